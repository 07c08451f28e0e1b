// The HTML report at scale: `ksched simulate --output html` (the real
// binary) on a cluster of bench/report_cluster.h, the page's size, and how
// long Debian's headless chromium takes to draw it.
//
//   html_report_bench [--nodes 5000] [--pending 2000] [--runs 5]
//                     [--keep FILE]
//
// For each run it prints chromium's wall time (start, load, scripts, DOM
// dump, exit) and the page's own figure: performance.now() once its script
// has drawn everything and the page is laid out, i.e. from navigation
// start through parsing the page and its model, building the DOM, style
// and layout. It prints figures; it asserts nothing.
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "bench/report_cluster.h"
#include "test/browser/headless_chromium.h"

namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> flags;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) {
      std::cerr << "flag " << argv[i] << " needs a value\n";
      return 2;
    }
    flags[argv[i]] = argv[i + 1];
  }
  auto flag = [&](const std::string& name, int fallback) {
    return flags.count(name) ? std::stoi(flags[name]) : fallback;
  };
  const int nodes = flag("--nodes", 5000);
  const int pending = flag("--pending", 2000);
  const int runs = flag("--runs", 5);
  const std::string dir =
      std::filesystem::temp_directory_path() / "ksched-html-report-bench";
  std::filesystem::create_directories(dir);
  const std::string cluster = dir + "/cluster.json";
  const std::string page =
      flags.count("--keep") ? flags["--keep"] : dir + "/report.html";
  std::ofstream(cluster) << ksched::bench::ReportClusterJson(
      {.nodes = nodes, .pending = pending});

  // Three pods explained: one that fits, two that fit nowhere.
  const std::string command =
      std::string(KSCHED_BINARY) + " simulate --quiet --cluster " + cluster +
      " --explain apps/web-0 apps/huge-0 apps/gpu-0 -o html > " + page;
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  const double simulate =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::cerr << "failed: " << command << "\n";
    return 1;
  }
  const auto bytes = std::filesystem::file_size(page);
  std::printf(
      "html report: %d nodes, %d pending pods (+%d unschedulable), 3 "
      "explained\n",
      nodes, pending,
      ksched::bench::kReportHugePods + ksched::bench::kReportGpuPods +
          ksched::bench::kReportPinnedPods);
  std::printf(
      "  ksched simulate -o html: %.2f s wall, page %.2f MB (%ju bytes)\n",
      simulate, bytes / 1048576.0, static_cast<uintmax_t>(bytes));

  std::vector<double> wall, in_page;
  for (int i = 0; i < runs; ++i) {
    ksched::testing::DumpedDom d = ksched::testing::DumpDom("file://" + page);
    double drawn = -1;
    for (const ksched::testing::Tag& t : ksched::testing::ParseTags(d.dom)) {
      if (t.name == "body" && t.Has("data-render-ms")) {
        drawn = std::stod(t.Attr("data-render-ms"));
      }
      if (t.name == "body" && t.Has("data-render-error")) {
        std::cerr << "the page failed: " << t.Attr("data-render-error") << "\n";
        return 1;
      }
    }
    if (d.exit_code != 0 || drawn < 0) {
      std::cerr << "chromium failed (exit " << d.exit_code << ")\n";
      return 1;
    }
    wall.push_back(d.seconds);
    in_page.push_back(drawn / 1000.0);
    std::printf(
        "  run %d: drawn %.3f s after navigation start; chromium %.3f s wall\n",
        i + 1, drawn / 1000.0, d.seconds);
  }
  std::printf(
      "  median of %d: drawn %.3f s after navigation start, chromium %.3f "
      "s wall (targets: page <= 5 MB, drawn < 2 s)\n",
      runs, Median(in_page), Median(wall));
  return 0;
}
