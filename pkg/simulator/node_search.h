// --add-nodes-until-fits: the smallest number of nodes like a template
// after which every pending pod that such a node can take is scheduled.
//
// Whether a count is enough is only known by simulating it: pods placed
// before the one asked about may take the new nodes first (a 2-GPU pod
// lands on an empty 8-GPU node and leaves no room for an 8-GPU job), so
// one more node can leave as many pods pending as one fewer and still not
// be the end. The search treats "every pod fits" as monotone in the count:
// it gallops up from a lower bound (what the pods ask for that the cluster
// cannot give, divided by what one node brings), then bisects. It stops at
// an upper bound: every pending pod on a node of its own (one node per
// pod), or --max, whichever is smaller. Pods that no node of the template
// can take are found before the search (ProbeTemplateNode) and left out
// of what it waits for.
#pragma once

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/pod_resources.h"
#include "pkg/api/resource.h"
#include "pkg/simulator/plan.h"
#include "pkg/simulator/simulator.h"
#include "pkg/util/result.h"

namespace ksched::simulator {

// One trial: the pods (namespace/name) left unscheduled with `extra_nodes`
// nodes of the template added.
using NodeSearchTrial =
    std::function<util::Result<std::set<std::string>>(int extra_nodes)>;

struct NodeSearchInput {
  // The pods left unscheduled without added nodes (the first trial, which
  // the caller ran to find out what to probe).
  std::set<std::string> unscheduled_without;
  // Pods no node of the template can take: not waited for.
  std::set<std::string> hopeless;
  // No smaller count can make the others fit (1 at least).
  int lower_bound = 1;
  // The most nodes tried.
  int upper_bound = 1;
};

struct NodeSearchOutcome {
  // The smallest count tried after which every pod but the hopeless ones
  // is scheduled; when `found` is false, the upper bound.
  int nodes = 0;
  bool found = true;
  // Pods still unscheduled at `nodes` that were waited for (!found only).
  std::set<std::string> still_pending;
  // The counts simulated, in order (the run without added nodes first).
  std::vector<int> tried;
};

util::Result<NodeSearchOutcome> SearchNodeCount(const NodeSearchInput& input,
                                                const NodeSearchTrial& trial);

// The whole of --add-nodes-until-fits over a plan: the run without added
// nodes, the pods it leaves pending tried alone on one node like the
// template (those it rejects are not waited for, and the summary says
// why), the lower bound (NodeCountLowerBound) and the search.
struct NodesNeededInput {
  int max_nodes = 1000;
  api::ResourceFeatures features;
  api::Node node_template;
  std::vector<api::ResourceSlice> template_slices;  // TemplateSlices
  // The plan with `extra` more template nodes, prepared (not simulated).
  std::function<util::Result<Plan>(int extra)> prepare;
  // The plan with `extra` more template nodes, simulated; with `probe`,
  // those pods are each tried alone on the first added node instead
  // (SimulationOptions::probe_node).
  std::function<util::Result<SimulationResult>(
      int extra, const std::set<std::string>* probe)>
      simulate;
};

struct NodesNeeded {
  int nodes = 0;
  NodeSearchSummary summary;
};

util::Result<NodesNeeded> SearchNodesNeeded(const NodesNeededInput& input);

}  // namespace ksched::simulator
