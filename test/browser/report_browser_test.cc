// The HTML report (`ksched simulate --output html`) in a real browser:
// Debian's chromium, headless, loads the page the real binary wrote, runs
// its scripts, and the tests read the DOM it ends with. Every figure they
// check is compared with what the JSON (or table) output of the same run
// says, so the page cannot drift from the other renderers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/report_cluster.h"
#include "pkg/api/quantity.h"
#include "pkg/util/json.h"
#include "test/browser/headless_chromium.h"
#include "test/cli/run_command.h"

namespace ksched::testing {
namespace {

const std::string kSource = KSCHED_SOURCE_DIR;

std::string Ksched() { return KSCHED_BINARY; }

rapidjson::Document ParseJsonOrDie(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  EXPECT_FALSE(doc.HasParseError()) << text.substr(0, 300);
  return doc;
}

int64_t Milli(const rapidjson::Value& resources, const char* name) {
  if (!resources.HasMember(name)) return 0;
  auto q = api::Quantity::Parse(resources[name].GetString());
  EXPECT_TRUE(q.ok()) << resources[name].GetString();
  return q.ok() ? q->MilliValue() : 0;
}

// Cores as the report writes them ("7.91", "0", "12").
std::string Cores(int64_t milli) {
  std::string out = std::to_string(milli / 1000);
  if (milli % 1000 != 0) {
    std::string digits = std::to_string(1000 + milli % 1000).substr(1);
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out;
}

// The index of the first tag at or after `from` with `cls` among its
// classes; tags.size() when none.
size_t NextWithClass(const std::vector<Tag>& tags, size_t from,
                     const std::string& cls) {
  for (size_t i = from; i < tags.size(); ++i) {
    std::istringstream classes(tags[i].Attr("class"));
    std::string c;
    while (classes >> c) {
      if (c == cls) return i;
    }
  }
  return tags.size();
}

size_t IndexOf(const std::vector<Tag>& tags, const Tag* tag) {
  return static_cast<size_t>(tag - tags.data());
}

// The figure of a summary card (<div id="sum-NAME"><div class="num">).
std::string Card(const std::vector<Tag>& tags, const std::string& name) {
  const std::string id = "sum-" + name;
  auto cards = WithAttr(tags, "id", &id);
  if (cards.size() != 1) return "missing card " + id;
  const size_t num = NextWithClass(tags, IndexOf(tags, cards[0]) + 1, "num");
  return num < tags.size() ? tags[num].text : "no figure in " + id;
}

class ReportBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/ksched-report-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(dir_);
  }

  // Runs `ksched simulate ARGS -o FORMAT` and returns its stdout.
  std::string Simulate(const std::string& args, const std::string& format) {
    CommandResult r =
        RunCommand(Ksched() + " simulate " + args + " --quiet -o " + format);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }

  // Writes the page and loads it in chromium; the DOM's tags after the
  // scripts ran.
  std::vector<Tag> Render(const std::string& html, const std::string& name,
                          const std::string& fragment = "") {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << html;
    DumpedDom dumped = DumpDom("file://" + path + fragment);
    EXPECT_EQ(dumped.exit_code, 0) << "chromium at " << ChromiumPath();
    std::vector<Tag> tags = ParseTags(dumped.dom);
    const std::string body = "body";
    bool rendered = false;
    for (const Tag& t : tags) {
      if (t.name != body) continue;
      rendered = t.Attr("data-rendered") == "true";
      EXPECT_FALSE(t.Has("data-render-error")) << t.Attr("data-render-error");
    }
    EXPECT_TRUE(rendered) << "the page's script did not finish:\n"
                          << dumped.dom.substr(0, 2000);
    return tags;
  }

  std::string dir_;
};

// Summary cards, placements and pending reasons against the JSON output.
void ExpectSummaryAndPods(const std::vector<Tag>& tags,
                          const rapidjson::Document& json) {
  const auto& pods = json["pods"].GetArray();
  int scheduled = 0;
  for (const auto& p : pods) scheduled += p["node"].IsString();
  EXPECT_EQ(Card(tags, "pending"), std::to_string(pods.Size()));
  EXPECT_EQ(Card(tags, "scheduled"), std::to_string(scheduled));
  EXPECT_EQ(Card(tags, "unschedulable"),
            std::to_string(pods.Size() - scheduled));
  EXPECT_EQ(Card(tags, "preempted"),
            std::to_string(json["preempted"].GetArray().Size()));
  EXPECT_EQ(Card(tags, "nodes"),
            std::to_string(json["nodes"].GetArray().Size()));

  int reason_total = 0;
  for (const auto& r : json["pendingReasons"].GetArray()) {
    const std::string reason = r["reason"].GetString();
    auto items = WithAttr(tags, "data-reason", &reason);
    ASSERT_EQ(items.size(), 1u) << reason;
    const size_t count = NextWithClass(tags, IndexOf(tags, items[0]), "count");
    ASSERT_LT(count, tags.size());
    EXPECT_EQ(tags[count].text, std::to_string(r["pods"].GetInt())) << reason;
    reason_total += r["pods"].GetInt();
  }
  EXPECT_EQ(reason_total, static_cast<int>(pods.Size()) - scheduled);
}

TEST_F(ReportBrowserTest, ExampleReportShowsWhatJsonAndTableSay) {
  const std::string args =
      "--cluster " + kSource + "/examples/cluster.yaml --explain";
  const rapidjson::Document json = ParseJsonOrDie(Simulate(args, "json"));
  const std::string table = Simulate(args, "table");
  const std::string html = Simulate(args, "html");
  ASSERT_EQ(html.find("http://"), std::string::npos) << "fetches nothing";
  ASSERT_EQ(html.find("https://"), std::string::npos) << "fetches nothing";
  const std::vector<Tag> tags = Render(html, "example.html");
  ExpectSummaryAndPods(tags, json);
  ASSERT_GT(json["pods"].GetArray().Size(), 20u);
  EXPECT_EQ(Card(tags, "preempted"), "2");

  // Every pod's row: where it went, or "-".
  for (const auto& p : json["pods"].GetArray()) {
    const std::string key =
        std::string(p["namespace"].GetString()) + "/" + p["name"].GetString();
    const std::string node = p["node"].IsString() ? p["node"].GetString() : "-";
    bool found = false;
    for (const Tag* row : WithAttr(tags, "data-pod", &key)) {
      found |= row->name == "tr" && row->Attr("data-node") == node;
    }
    EXPECT_TRUE(found) << key << " on " << node;
  }

  // Each node's card gives the NODES table's CPU, MEMORY and PODS figures,
  // and what its pods requested before the run as the JSON has it.
  const std::regex line(
      R"(^(\S+)\s+(\S+ \d+%)\s+(\S+ \d+%)\s+(\d+/\d+)\s*.*$)");
  std::istringstream lines(table.substr(table.find("\nNODES\n")));
  std::string text;
  int nodes_seen = 0;
  std::map<std::string, const rapidjson::Value*> json_nodes;
  for (const auto& n : json["nodes"].GetArray()) {
    json_nodes[n["name"].GetString()] = &n;
  }
  while (std::getline(lines, text)) {
    std::smatch m;
    if (!std::regex_match(text, m, line) || m[1] == "NODE") continue;
    ++nodes_seen;
    const std::string node = m[1];
    std::vector<const Tag*> cards;
    for (const Tag* t : WithAttr(tags, "data-node", &node)) {
      if (t->Attr("class").find("node-card") != std::string::npos) {
        cards.push_back(t);
      }
    }
    ASSERT_EQ(cards.size(), 1u) << node;
    std::map<std::string, std::string> figures, titles;
    for (size_t i = IndexOf(tags, cards[0]) + 1;
         i < tags.size() &&
         tags[i].Attr("class").find("node-card") == std::string::npos &&
         tags[i].Attr("class") != "group";
         ++i) {
      if (tags[i].Attr("class") != "res") continue;
      const std::string resource = tags[i].Attr("data-resource");
      figures[resource] = tags[NextWithClass(tags, i, "res-text")].text;
      titles[resource] = tags[NextWithClass(tags, i, "res-bar")].Attr("title");
    }
    EXPECT_EQ(figures["cpu"], m[2].str()) << node;
    EXPECT_EQ(figures["memory"], m[3].str()) << node;
    EXPECT_EQ(figures["pods"].substr(0, figures["pods"].find(' ')), m[4].str())
        << node;
    const rapidjson::Value& j = *json_nodes.at(node);
    EXPECT_EQ(
        titles["cpu"].rfind(
            "cpu: " + Cores(Milli(j["requestedBefore"], "cpu")) + " before, ",
            0),
        0u)
        << titles["cpu"];
    EXPECT_EQ(
        titles["pods"].rfind(
            "pods: " + std::to_string(j["podsBefore"].GetInt()) + " before, ",
            0),
        0u)
        << titles["pods"];
  }
  EXPECT_EQ(nodes_seen, static_cast<int>(json["nodes"].GetArray().Size()));

  // Grouped by zone: the example's two zones, their nodes and CPU adding
  // up to the JSON's.
  int64_t json_cpu = 0;
  for (const auto& n : json["nodes"].GetArray()) {
    json_cpu += Milli(n["requested"], "cpu");
  }
  std::set<std::string> groups;
  int grouped_nodes = 0;
  int64_t grouped_cpu = 0;
  for (const Tag* g : WithAttr(tags, "data-group")) {
    groups.insert(g->Attr("data-group"));
    grouped_nodes += std::stoi(g->Attr("data-nodes"));
    grouped_cpu += std::stoll(g->Attr("data-used"));
  }
  EXPECT_EQ(groups, (std::set<std::string>{"zone-a", "zone-b"}));
  EXPECT_EQ(grouped_nodes, static_cast<int>(json["nodes"].GetArray().Size()));
  EXPECT_EQ(grouped_cpu, json_cpu);

  // Explanations: per explained pod its block; in the open ones the
  // rejections, the top nodes' totals and, cell by cell, the filter matrix
  // against the JSON's filter-result.
  int explained = 0, checked_cells = 0, victims = 0, closest = 0;
  for (const auto& p : json["pods"].GetArray()) {
    if (!p.HasMember("explain")) continue;
    ++explained;
    const std::string key =
        std::string(p["namespace"].GetString()) + "/" + p["name"].GetString();
    std::vector<const Tag*> blocks;
    for (const Tag* t : WithAttr(tags, "data-pod", &key)) {
      if (t->name == "details" &&
          t->Attr("class").find("explain") != std::string::npos) {
        blocks.push_back(t);
      }
    }
    ASSERT_EQ(blocks.size(), 1u) << key;
    if (!blocks[0]->Has("open")) continue;
    const size_t begin = IndexOf(tags, blocks[0]) + 1;
    size_t end = begin;
    while (end < tags.size() && !(tags[end].name == "details" &&
                                  tags[end].Attr("class") == "explain")) {
      ++end;
    }
    const std::vector<Tag> block(tags.begin() + begin, tags.begin() + end);
    const auto& summary = p["explain"]["summary"];
    std::vector<std::string> want_top, got_top;
    for (const auto& t : summary["top"].GetArray()) {
      want_top.push_back(std::string(t["node"].GetString()) + " " +
                         std::to_string(t["total"].GetInt64()));
    }
    for (const Tag* t : WithAttr(block, "data-total")) {
      got_top.push_back(t->Attr("data-node") + " " + t->Attr("data-total"));
    }
    EXPECT_EQ(got_top, want_top) << key;
    std::vector<std::string> want_rejections, got_rejections;
    for (const auto& r : summary["rejections"].GetArray()) {
      want_rejections.push_back(std::string(r["plugin"].GetString()) + " " +
                                std::to_string(r["nodes"].GetInt()));
    }
    for (const Tag* t : WithAttr(block, "data-nodes")) {
      if (t->name == "tr") {
        got_rejections.push_back(t->Attr("data-plugin") + " " +
                                 t->Attr("data-nodes"));
      }
    }
    EXPECT_EQ(got_rejections, want_rejections) << key;
    const auto& filter = p["explain"]["filter-result"];
    int rows = 0;
    for (size_t i = 0; i < block.size(); ++i) {
      if (block[i].name != "tr" || !block[i].Has("data-node") ||
          block[i].Has("data-total")) {
        continue;
      }
      ++rows;
      const std::string node = block[i].Attr("data-node");
      ASSERT_TRUE(filter.HasMember(node.c_str())) << key << " " << node;
      for (size_t c = i + 1; c < block.size() && block[c].name == "td"; ++c) {
        if (!block[c].Has("data-plugin")) continue;
        const std::string plugin = block[c].Attr("data-plugin");
        ASSERT_TRUE(filter[node.c_str()].HasMember(plugin.c_str()))
            << key << " " << node << " " << plugin;
        const std::string verdict =
            filter[node.c_str()][plugin.c_str()].GetString();
        const std::string cls = block[c].Attr("class");
        if (verdict == "passed") {
          EXPECT_EQ(cls, "pass") << key << " " << node << " " << plugin;
        } else {
          EXPECT_EQ(cls.rfind("fail", 0), 0u) << key << " " << node;
          EXPECT_NE(block[c].Attr("title").find(verdict), std::string::npos)
              << block[c].Attr("title") << " vs " << verdict;
        }
        ++checked_cells;
      }
    }
    EXPECT_EQ(rows, static_cast<int>(filter.MemberCount())) << key;
    // An unschedulable pod's closest nodes: plugin and count per group.
    if (!p["node"].IsString()) {
      std::vector<std::string> want_closest, got_closest;
      for (const auto& c : summary["closest"].GetArray()) {
        want_closest.push_back(std::string(c["plugin"].GetString()) + " " +
                               std::to_string(c["nodes"].GetInt()));
      }
      for (const Tag* t : WithAttr(block, "data-nodes")) {
        if (t->name == "li") {
          got_closest.push_back(t->Attr("data-plugin") + " " +
                                t->Attr("data-nodes"));
        }
      }
      EXPECT_EQ(got_closest, want_closest) << key;
      closest += static_cast<int>(want_closest.size());
    }
    // Preemption's candidates, with their victims.
    for (const auto& m : p["explain"]["preemption-result"].GetObject()) {
      const std::string outcome = m.value.GetString();
      if (outcome.rfind("chosen", 0) != 0 &&
          outcome.rfind("candidate", 0) != 0) {
        continue;
      }
      const std::string node = m.name.GetString();
      bool listed = false;
      for (const Tag* t : WithAttr(block, "data-node", &node)) {
        listed |= t->name == "li" && t->text.find(outcome) != std::string::npos;
      }
      EXPECT_TRUE(listed) << key << ": " << node << ": " << outcome;
      ++victims;
    }
  }
  EXPECT_GT(explained, 10);
  EXPECT_GT(checked_cells, 100);
  EXPECT_GE(victims, 1) << "the example's preemption (shop/ledger-0)";
  EXPECT_GE(closest, 3);
}

// A plan: a Deployment to place, a node drained, and as many worker nodes
// added as it takes; then a capacity question; then gangs. The page's
// tables give the JSON's units.
TEST_F(ReportBrowserTest, PlansShowWorkloadsDrainsNodesNeededCapacityAndGangs) {
  const std::string plan =
      "--cluster " + kSource + "/examples/cluster.yaml --add " + kSource +
      "/examples/plan/shop-web.yaml --drain cpu-a-1 --force --node-template " +
      kSource + "/examples/plan/worker-node.yaml --add-nodes-until-fits";
  const rapidjson::Document json = ParseJsonOrDie(Simulate(plan, "json"));
  const std::vector<Tag> tags = Render(Simulate(plan, "html"), "plan.html");
  ExpectSummaryAndPods(tags, json);
  ASSERT_TRUE(json.HasMember("workloads"));
  for (const auto& w : json["workloads"].GetArray()) {
    const std::string key =
        std::string(w["namespace"].GetString()) + "/" + w["name"].GetString();
    auto rows = WithAttr(tags, "data-workload", &key);
    ASSERT_EQ(rows.size(), 1u) << key;
    const size_t first = IndexOf(tags, rows[0]) + 1;
    ASSERT_LT(first + 2, tags.size());
    EXPECT_EQ(tags[first + 2].text, std::to_string(w["scheduled"].GetInt()) +
                                        "/" +
                                        std::to_string(w["desired"].GetInt()))
        << key;
  }
  ASSERT_TRUE(json.HasMember("displaced"));
  ASSERT_GT(json["displaced"].GetArray().Size(), 0u);
  for (const auto& d : json["displaced"].GetArray()) {
    const std::string pod = d["pod"].GetString();
    bool found = false;
    for (const Tag* t : WithAttr(tags, "data-pod", &pod)) {
      found |= t->Has("data-new-node") &&
               t->Attr("data-new-node") ==
                   (d["newNode"].IsString() ? d["newNode"].GetString() : "");
    }
    EXPECT_TRUE(found) << pod;
  }
  const std::string needed_id = "nodes-needed";
  auto needed = WithAttr(tags, "id", &needed_id);
  ASSERT_EQ(needed.size(), 1u);
  ASSERT_LT(IndexOf(tags, needed[0]) + 2, tags.size());
  EXPECT_EQ(tags[IndexOf(tags, needed[0]) + 2].text,
            std::to_string(json["nodesNeeded"].GetInt()));
  // The pods no node of the template takes, one line a reason, and how the
  // count was found.
  const rapidjson::Value& search = json["nodeSearch"];
  const std::string cannot_id = "cannot-take";
  EXPECT_EQ(WithAttr(tags, "id", &cannot_id).size(),
            search["cannotTake"].Size() > 0 ? 1u : 0u);
  const std::string search_id = "nodes-needed-search";
  auto searched = WithAttr(tags, "id", &search_id);
  ASSERT_EQ(searched.size(), 1u);
  EXPECT_NE(
      searched[0]->text.find("Searched in " +
                             std::to_string(search["runs"].GetInt()) + " runs"),
      std::string::npos)
      << searched[0]->text;

  const std::string capacity = "--cluster " + kSource +
                               "/examples/cluster.yaml --capacity " + kSource +
                               "/examples/plan/probe-pod.yaml";
  const rapidjson::Document cap = ParseJsonOrDie(Simulate(capacity, "json"));
  const std::vector<Tag> cap_tags =
      Render(Simulate(capacity, "html"), "capacity.html");
  const std::string fits_id = "capacity-fits";
  auto fits = WithAttr(cap_tags, "id", &fits_id);
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_EQ(fits[0]->text, std::to_string(cap["capacity"]["fits"].GetInt()));

  const std::string gangs = "--cluster " + kSource +
                            "/examples/gang/cluster.yaml --config " + kSource +
                            "/examples/gang/scheduler-config.yaml";
  const rapidjson::Document gang = ParseJsonOrDie(Simulate(gangs, "json"));
  const std::vector<Tag> gang_tags =
      Render(Simulate(gangs, "html"), "gangs.html");
  ExpectSummaryAndPods(gang_tags, gang);
  ASSERT_TRUE(gang.HasMember("podGroups"));
  for (const auto& g : gang["podGroups"].GetArray()) {
    const std::string key =
        std::string(g["namespace"].GetString()) + "/" + g["name"].GetString();
    auto rows = WithAttr(gang_tags, "data-gang", &key);
    ASSERT_EQ(rows.size(), 1u) << key;
    const size_t first = IndexOf(gang_tags, rows[0]) + 1;
    ASSERT_LT(first + 3, gang_tags.size());
    EXPECT_EQ(gang_tags[first + 1].text,
              std::to_string(g["minMember"].GetInt()));
    EXPECT_EQ(gang_tags[first + 3].text,
              std::to_string(g["scheduled"].GetInt()))
        << key;
  }
}

// The devices v1.36 turns on: each claim's devices say which are
// partitions, shares and tolerated taints, and the counter sets, shared
// devices and tainted devices are listed as the JSON has them.
TEST_F(ReportBrowserTest, DevicesShowPartitionsSharesAndTaints) {
  const std::string args =
      "--cluster " + kSource + "/examples/devices/cluster.yaml";
  const rapidjson::Document json = ParseJsonOrDie(Simulate(args, "json"));
  const std::vector<Tag> tags = Render(Simulate(args, "html"), "devices.html");
  ExpectSummaryAndPods(tags, json);
  // The row of a claim's devices: its fourth cell.
  auto devices_of = [&](const std::string& claim) {
    auto rows = WithAttr(tags, "data-claim", &claim);
    if (rows.size() != 1u) return std::string("<no row>");
    const size_t first = IndexOf(tags, rows[0]) + 1;
    return first + 3 < tags.size() ? tags[first + 3].text : "";
  };
  EXPECT_EQ(devices_of("claim-3g"),
            "gpu.example.com/node-1/gpu-1-3g-0 (draws on gpu-1-counters)");
  EXPECT_EQ(devices_of("claim-bw-33gi"),
            "nic.example.com/node-3/nic-0 (share bandwidth 35Gi)");
  EXPECT_EQ(devices_of("claim-tol"),
            "accel.example.com/node-2/accel-0 (tolerates "
            "example.com/unhealthy=ecc:NoSchedule)");
  const rapidjson::Value& usage = json["deviceUsage"];
  for (const auto& c : usage["counterSets"].GetArray()) {
    const std::string name = c["name"].GetString();
    auto rows = WithAttr(tags, "data-counter-set", &name);
    ASSERT_EQ(rows.size(), 1u) << name;
    const size_t first = IndexOf(tags, rows[0]) + 1;
    ASSERT_LT(first + 3, tags.size());
    std::string left;
    for (const auto& k : c["counters"].GetArray()) {
      if (!left.empty()) left += ", ";
      left += std::string(k["name"].GetString()) + " " + k["left"].GetString() +
              " of " + k["total"].GetString();
    }
    EXPECT_EQ(tags[first + 3].text, left) << name;
  }
  ASSERT_EQ(usage["sharedDevices"].Size(), 1u);
  EXPECT_EQ(usage["sharedDevices"][0]["shares"].GetInt(), 3);
  const std::string nic = "nic-0";
  auto shared = WithAttr(tags, "data-device", &nic);
  ASSERT_EQ(shared.size(), 1u);
  const size_t first = IndexOf(tags, shared[0]) + 1;
  ASSERT_LT(first + 3, tags.size());
  EXPECT_EQ(tags[first + 3].text, "bandwidth 65Gi of 100Gi");
  ASSERT_EQ(usage["taintedDevices"].Size(), 1u);
  const std::string accel = "accel-0";
  auto tainted = WithAttr(tags, "data-device", &accel);
  ASSERT_EQ(tainted.size(), 1u);
  const size_t at = IndexOf(tags, tainted[0]) + 1;
  ASSERT_LT(at + 3, tags.size());
  EXPECT_EQ(tags[at + 3].text, "taints/claim-tol");
}

TEST_F(ReportBrowserTest, ExampleScreenshotIsDrawn) {
  // Run from the source tree, as the README's command is.
  const CommandResult r =
      RunCommand("cd " + kSource + " && " + Ksched() +
                 " simulate --cluster examples/cluster.yaml --explain "
                 "--quiet -o html");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = dir_ + "/example.html";
  std::ofstream(page) << r.out;
  const std::string png = dir_ + "/example.png";
  ASSERT_TRUE(Screenshot("file://" + page, png, 1280, 1400));
  const PngStats stats = ReadPngStats(png);
  ASSERT_TRUE(stats.ok) << stats.error;
  EXPECT_EQ(stats.width, 1280);
  EXPECT_EQ(stats.height, 1400);
  // Text, bars and coloured nodes: a blank or unstyled page has a handful
  // of colours and almost nothing but white.
  EXPECT_GT(stats.colours, 200u);
  EXPECT_GT(stats.non_white, 0.05);
  // The README's picture is this screenshot:
  // KSCHED_UPDATE_SCREENSHOT=1 writes it to docs/images/.
  if (const char* update = std::getenv("KSCHED_UPDATE_SCREENSHOT");
      update != nullptr && std::string(update) == "1") {
    std::filesystem::copy_file(
        png, kSource + "/docs/images/report-example.png",
        std::filesystem::copy_options::overwrite_existing);
  }
}

TEST_F(ReportBrowserTest, FiveThousandNodesAggregateByZoneAndFindANode) {
  const std::string cluster = dir_ + "/cluster.json";
  std::ofstream(cluster) << bench::ReportClusterJson(
      {.nodes = 5000, .pending = 500});
  const std::string args =
      "--cluster " + cluster + " --explain apps/huge-0 apps/gpu-0 apps/web-0";
  const rapidjson::Document json = ParseJsonOrDie(Simulate(args, "json"));
  const std::string html = Simulate(args, "html");
  EXPECT_LE(html.size(), 5u << 20) << "the 5,000-node report is too large";
  const std::vector<Tag> tags = Render(html, "large.html");
  ExpectSummaryAndPods(tags, json);
  EXPECT_EQ(Card(tags, "nodes"), "5000");

  // Ten zones of 500 nodes: each shown as a histogram of how full its
  // nodes are, not 500 tiles; the counts add up to the zone's nodes.
  int64_t json_cpu = 0, json_allocatable = 0;
  for (const auto& n : json["nodes"].GetArray()) {
    json_cpu += Milli(n["requested"], "cpu");
    json_allocatable += Milli(n["allocatable"], "cpu");
  }
  const auto groups = WithAttr(tags, "data-group");
  ASSERT_EQ(groups.size(), 10u);
  int64_t cpu = 0, allocatable = 0;
  for (const Tag* g : groups) {
    cpu += std::stoll(g->Attr("data-used"));
    allocatable += std::stoll(g->Attr("data-allocatable"));
    EXPECT_EQ(g->Attr("data-nodes"), "500");
    int counted = 0, buckets = 0;
    for (size_t i = IndexOf(tags, g) + 1;
         i < tags.size() && !tags[i].Has("data-group"); ++i) {
      EXPECT_NE(tags[i].Attr("class"), "tile") << "tiles at 500 nodes";
      if (tags[i].Has("data-bucket")) {
        counted += std::stoi(tags[i].Attr("data-count"));
        ++buckets;
      }
    }
    EXPECT_EQ(buckets, 11);
    EXPECT_EQ(counted, 500) << g->Attr("data-group");
  }
  EXPECT_EQ(cpu, json_cpu);
  EXPECT_EQ(allocatable, json_allocatable);

  // A link that groups by instance type and opens one node.
  const std::string node = "node-1234";
  const std::vector<Tag> found =
      Render(html, "large.html",
             "#group=node.kubernetes.io/instance-type&node=" + node);
  std::set<std::string> types;
  for (const Tag* g : WithAttr(found, "data-group")) {
    types.insert(g->Attr("data-group"));
  }
  EXPECT_EQ(types, (std::set<std::string>{"m6i.2xlarge", "m6i.4xlarge",
                                          "m6i.8xlarge"}));
  const rapidjson::Value* want = nullptr;
  for (const auto& n : json["nodes"].GetArray()) {
    if (node == n["name"].GetString()) want = &n;
  }
  ASSERT_NE(want, nullptr);
  std::vector<const Tag*> cards;
  for (const Tag* t : WithAttr(found, "data-node", &node)) {
    if (t->Attr("class") == "card") cards.push_back(t);
  }
  ASSERT_EQ(cards.size(), 1u) << "no detail card for " << node;
  std::vector<std::string> cells;
  const std::string cpu_row = "cpu";
  for (const Tag* row : WithAttr(found, "data-resource", &cpu_row)) {
    if (row->name != "tr") continue;
    for (size_t i = IndexOf(found, row) + 1;
         i < found.size() && found[i].name == "td"; ++i) {
      cells.push_back(found[i].text);
    }
  }
  ASSERT_EQ(cells.size(), 5u);
  EXPECT_EQ(cells[1], Cores(Milli((*want)["requestedBefore"], "cpu")));
  EXPECT_EQ(cells[2], Cores(Milli((*want)["requested"], "cpu")));
  EXPECT_EQ(cells[3], Cores(Milli((*want)["allocatable"], "cpu")));

  // The three explained pods, open. huge-0 was filtered on every node,
  // and its matrix carries the 500 closest to fitting.
  for (const std::string pod : {"apps/huge-0", "apps/gpu-0", "apps/web-0"}) {
    const Tag* block = nullptr;
    for (const Tag* t : WithAttr(tags, "data-pod", &pod)) {
      if (t->name == "details") block = t;
    }
    ASSERT_NE(block, nullptr) << pod;
    EXPECT_TRUE(block->Has("open")) << pod;
    if (pod != "apps/huge-0") continue;
    int rows = 0;
    for (size_t i = IndexOf(tags, block) + 1;
         i < tags.size() && tags[i].name != "details"; ++i) {
      rows += tags[i].name == "tr" && tags[i].Has("data-node") &&
              !tags[i].Has("data-total");
    }
    EXPECT_EQ(rows, 500);
  }
}

}  // namespace
}  // namespace ksched::testing
