// What one recorded scheduling cycle says about a pod, condensed for
// people: which plugins rejected how many nodes and why, how the best
// nodes scored plugin by plugin, and which nodes a single change would
// open up. Built from a CycleRecorder, so every figure is one the
// framework used.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pkg/framework/cycle_recorder.h"

namespace ksched::explain {

// The cycle's outcome, which the recorder does not hold on its own.
struct Subject {
  std::string ns;
  std::string name;
  std::string profile;
  std::optional<std::string> node;  // where it went; nullopt: nowhere
  std::string message;              // why not ("0/6 nodes are available...")
  std::string nominated_node;       // set when preemption nominated one
  std::string current_node;         // a bound pod's node, explained anew
  int total_nodes = 0;              // nodes in the cluster
  bool attempted = true;            // false: held back before any cycle
};

struct PluginRejections {
  std::string plugin;
  int nodes = 0;
  // Each reason with the nodes it was given for, most frequent first.
  std::vector<std::pair<std::string, int>> reasons;
  // The plugin's detail on the first few rejected nodes (natural order):
  // node and detail.
  std::vector<std::pair<std::string, std::string>> details;
};

struct RankedNode {
  std::string name;
  std::map<std::string, int64_t> weighted;  // plugin -> normalized x weight
  int64_t total = 0;
  bool selected = false;
};

// Nodes that one plugin alone kept the pod from, for one reason: one
// change (a toleration, a smaller request, a label) would open them all.
struct CloseGroup {
  std::string plugin;
  std::string reason;
  int nodes = 0;
  std::vector<std::string> examples;  // the first few, in natural order
};

struct Explanation {
  Subject subject;
  // The nominated node (from an earlier preemption) filtered alone first.
  std::string nominated_node_tried;
  int filtered_nodes = 0;  // nodes the Filter plugins were run on
  int feasible_nodes = 0;  // nodes every Filter plugin passed
  // Feasible nodes the Score plugins ran on: all of them, or as many as
  // percentageOfNodesToScore asks for when filtering found more.
  int scored_nodes = 0;
  // PreFilter plugins that did not simply succeed or skip: a rejection of
  // the pod as a whole, or a narrowing ("3 nodes").
  std::vector<std::pair<std::string, std::string>> pre_filter;
  // Every plugin that rejected at least one node, most nodes first. All
  // Filter plugins run in a recorded cycle, so a node rejected by two
  // plugins counts for both.
  std::vector<PluginRejections> rejections;
  std::vector<std::string> score_plugins;  // the scored plugins, by name
  std::vector<RankedNode> top;             // best total first
  std::vector<CloseGroup> closest;         // most nodes first
  int closest_total = 0;                   // nodes failed by one plugin only
  // Nodes where a still-bound pod would fit now: its own node's verdict.
  std::optional<bool> fits_current_node;
  // Preemption's answer per node, in the recorder's words.
  std::map<std::string, std::string> preemption;
  // The preemption above is the earlier cycle's that nominated the node
  // this cycle tried first.
  bool preemption_cycle_earlier = false;
};

// `top` caps the ranked nodes and each closest group's examples.
Explanation Explain(const framework::CycleRecorder& record, Subject subject,
                    int top);

}  // namespace ksched::explain
