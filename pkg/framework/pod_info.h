// PodInfo: a pod plus what the scheduler derives from it once (its resource
// requests, its parsed inter-pod affinity terms), shared immutably between
// the cache, snapshots and plugins.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pkg/api/label_selector.h"
#include "pkg/api/pod.h"
#include "pkg/framework/resource.h"

namespace ksched::framework {

// A parsed PodAffinityTerm (framework.AffinityTerm).
struct AffinityTerm {
  std::vector<std::string> namespaces;
  api::Selector selector;
  std::string topology_key;
  api::Selector namespace_selector;

  // Whether `pod` (whose namespace carries `namespace_labels`) is selected.
  bool Matches(const api::Pod& pod,
               const api::StringMap& namespace_labels) const;
};

struct WeightedAffinityTerm {
  AffinityTerm term;
  int32_t weight = 0;
};

// What a pod adds to a node: real requests (fit) and the requests with the
// non-zero defaults (scoring).
struct PodResource {
  Resource requests;
  int64_t non_zero_milli_cpu = 0;
  int64_t non_zero_memory = 0;
};

class PodInfo;
using PodInfoPtr = std::shared_ptr<const PodInfo>;

class PodInfo {
 public:
  struct AffinityTerms {
    std::vector<AffinityTerm> required_affinity;
    std::vector<AffinityTerm> required_anti_affinity;
    std::vector<WeightedAffinityTerm> preferred_affinity;
    std::vector<WeightedAffinityTerm> preferred_anti_affinity;
  };

  // Never fails: a term that does not parse is recorded in parse_error(),
  // which the plugins that need the terms turn into an error status.
  static PodInfoPtr Create(std::shared_ptr<const api::Pod> pod);
  // The same derived data for another version of this pod whose spec did
  // not change what it derives from (the assumed copy with a node name).
  PodInfoPtr WithPod(std::shared_ptr<const api::Pod> pod) const;

  const api::Pod& pod() const { return *pod_; }
  const std::shared_ptr<const api::Pod>& pod_ptr() const { return pod_; }
  const PodResource& resource() const { return resource_; }

  // Empty term lists for pods without inter-pod affinity.
  const AffinityTerms& affinity() const;
  bool has_affinity() const { return affinity_ != nullptr; }
  const std::string& parse_error() const { return parse_error_; }

  // framework.podWithAffinity / podWithRequiredAntiAffinity, on the spec.
  bool WithAffinity() const;
  bool WithRequiredAntiAffinity() const;

 private:
  std::shared_ptr<const api::Pod> pod_;
  PodResource resource_;
  // Shared between versions of one pod; null: no pod (anti-)affinity.
  std::shared_ptr<const AffinityTerms> affinity_;
  std::string parse_error_;
};

// Computes a pod's real and non-zero requests (NodeInfo's calculateResource).
PodResource ComputePodResource(const api::Pod& pod);

}  // namespace ksched::framework
