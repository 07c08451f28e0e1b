// The kube-scheduler extender protocol on the wire
// (k8s.io/kube-scheduler/extender/v1): what a stock kube-scheduler POSTs to
// an extender's filter, prioritize, bind and preempt verbs and what it
// reads back.
//
// The Go structs carry no json tags, so their keys are the Go field names
// ("Pod", "NodeNames", "FailedNodes", ...), while the embedded Pods and
// Nodes are ordinary API JSON. Go decodes keys case-insensitively; so does
// this. Answers use the exact Go names.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/pod.h"
#include "pkg/util/result.h"

namespace ksched::extender {

// kube-scheduler's MaxExtenderPriority: prioritize scores are 0..10.
inline constexpr int64_t kMaxExtenderPriority = 10;

// A node kube-scheduler sent in full (nodeCacheCapable: false), decoded,
// with its JSON as sent: a filter answer hands back the very objects, and
// kube-scheduler goes on with what it gets, so a re-encoding that dropped
// fields ksched does not model would change its nodes.
struct SentNode {
  api::Node node;
  std::string json;
};

// ExtenderArgs: the body of filter and prioritize.
struct ExtenderArgs {
  api::Pod pod;
  // Exactly one of these is set: Nodes when kube-scheduler's extender entry
  // is not nodeCacheCapable, NodeNames when it is.
  std::optional<std::vector<SentNode>> nodes;
  std::optional<std::vector<std::string>> node_names;
};

// ExtenderFilterResult. Answers in the mode of the request: kube-scheduler
// reads NodeNames only when nodeCacheCapable, Nodes otherwise, and takes a
// null list for "no node fits".
struct ExtenderFilterResult {
  std::optional<std::vector<std::string>> node_names;
  std::optional<std::vector<std::string>> nodes_json;  // SentNode::json
  std::map<std::string, std::string> failed_nodes;
  std::map<std::string, std::string> failed_and_unresolvable_nodes;
  std::string error;
};

struct HostPriority {
  std::string host;
  int64_t score = 0;
};

// ExtenderBindingArgs / ExtenderBindingResult.
struct ExtenderBindingArgs {
  std::string pod_name;
  std::string pod_namespace;
  std::string pod_uid;
  std::string node;
};
struct ExtenderBindingResult {
  std::string error;
};

// Victims (full pods, when not nodeCacheCapable) and MetaVictims (UIDs).
struct Victims {
  std::vector<api::Pod> pods;
  int64_t num_pdb_violations = 0;
};
struct MetaVictims {
  std::vector<std::string> pod_uids;
  int64_t num_pdb_violations = 0;
};

// ExtenderPreemptionArgs: one of the two maps is set.
struct ExtenderPreemptionArgs {
  api::Pod pod;
  std::optional<std::map<std::string, Victims>> node_to_victims;
  std::optional<std::map<std::string, MetaVictims>> node_to_meta_victims;
};
// ExtenderPreemptionResult: always MetaVictims.
struct ExtenderPreemptionResult {
  std::map<std::string, MetaVictims> node_to_meta_victims;
};

// Decoders: an error names the JSON path at fault ("Nodes.items[2].metadata
// .name: expected string", "Pod: missing").
util::Result<ExtenderArgs> DecodeExtenderArgs(std::string_view body);
util::Result<ExtenderBindingArgs> DecodeBindingArgs(std::string_view body);
util::Result<ExtenderPreemptionArgs> DecodePreemptionArgs(
    std::string_view body);

std::string EncodeFilterResult(const ExtenderFilterResult& result);
std::string EncodeHostPriorityList(const std::vector<HostPriority>& list);
std::string EncodeBindingResult(const ExtenderBindingResult& result);
std::string EncodePreemptionResult(const ExtenderPreemptionResult& result);

}  // namespace ksched::extender
