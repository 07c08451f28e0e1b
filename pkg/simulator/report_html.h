// Renders a simulation as one self-contained HTML page (inline CSS and
// JavaScript, nothing fetched): a summary, the cluster as a picture grouped
// by a topology label, pending pods by reason, and each explained pod's
// filter matrix, scores, closest nodes and preemption. The page is drawn
// in the browser from a JSON model written here from the same
// SimulationResult the table and JSON renderers read, so the three show
// the same numbers.
#pragma once

#include <string>

#include "pkg/simulator/simulator.h"

namespace ksched::simulator {

struct HtmlReportOptions {
  // The page's heading, e.g. "ksched simulate examples/cluster.yaml".
  std::string title = "ksched simulate";
  // Where the cluster came from (a file, an API server), shown under it.
  std::string source;
  // `ksched explain`: the one pod the page is about (namespace/name); the
  // explanations section leads and the pod is opened.
  std::string focus_pod;
  // Rows of each explained pod's filter matrix (nodes x plugins) the page
  // carries, closest to fitting first; the JSON output has them all.
  int matrix_rows = 500;
};

std::string RenderHtml(const SimulationResult& result,
                       const HtmlReportOptions& options);

// The JSON model the page draws (the content of its
// <script id="ksched-report" type="application/json">): exposed for tests.
std::string HtmlReportModel(const SimulationResult& result,
                            const HtmlReportOptions& options);

}  // namespace ksched::simulator
