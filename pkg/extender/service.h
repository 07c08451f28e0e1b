// ExtenderService: the extender verbs answered with ksched's own profiles
// over its own cache, independent of HTTP.
//
//   filter      PreFilter, then Filter on every node kube-scheduler sent;
//               nodes that fail go to FailedNodes, or to
//               FailedAndUnresolvableNodes when removing pods would not help.
//   prioritize  PreScore and Score on the nodes sent; the weighted totals
//               mapped onto 0..10, best node 10, worst 0 (see Prioritize).
//   bind        a v1.Binding POST through the Binder, only for a pod of
//               ksched's cache (same UID, not bound, not ksched's own to
//               schedule) that passes the profile's PreFilter and Filter
//               on the node in ksched's snapshot.
//   preempt     keeps the candidate nodes where, with their victims gone,
//               the pod passes every Filter.
//
// Requests may arrive in parallel and share nothing but the cache: each
// runs on a context of its own (a snapshot and the profiles' frameworks
// over it), taken from a small pool, so filter and prioritize for one pod
// can arrive on different connections at once.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "pkg/cache/cache.h"
#include "pkg/config/feature_gates.h"
#include "pkg/config/types.h"
#include "pkg/extender/wire.h"
#include "pkg/framework/binder.h"
#include "pkg/framework/cluster_objects.h"
#include "pkg/framework/registry.h"
#include "pkg/util/clock.h"
#include "pkg/util/result.h"

namespace ksched::extender {

// What went wrong with a request that decoded: kBadRequest when it asks for
// something ksched cannot answer (an unknown profile or node), kInternal
// when a plugin failed.
struct VerbError {
  enum class Kind { kBadRequest, kInternal };
  Kind kind;
  std::string message;
};
template <typename T>
using VerbResult = std::variant<T, VerbError>;

class ExtenderService {
 public:
  struct Options {
    const util::Clock* clock = nullptr;  // required
    // Namespaces, PDBs, volumes; an empty store when null.
    const framework::ClusterObjects* objects = nullptr;
    // The members of each PodGroup (Coscheduling's quorum); none if null.
    const framework::PodGroupMembers* pod_group_members = nullptr;
    // Where bind sends Bindings; bind answers an error when null.
    framework::Binder* binder = nullptr;
    // The pods ksched's informers hold, by namespace and name, for bind's
    // checks; bind answers an error when unset.
    std::function<std::shared_ptr<const api::Pod>(const std::string& ns,
                                                  const std::string& name)>
        pod_lookup;
    // Requests served at once; more wait for a context.
    int max_parallel_requests = 4;
    // The gates the profiles' plugins are built with and pods' requests are
    // counted by; the scheduler's own, so that both answer alike.
    config::FeatureGates features;
  };

  // Builds one context at once, so a configuration its plugins reject is
  // reported here.
  static util::Result<std::unique_ptr<ExtenderService>> Create(
      const config::KubeSchedulerConfiguration& cfg,
      const framework::Registry& registry, cache::Cache& cache,
      Options options);
  ~ExtenderService();

  bool HasProfile(const std::string& name) const;

  VerbResult<ExtenderFilterResult> Filter(const std::string& profile,
                                          const ExtenderArgs& args);
  VerbResult<std::vector<HostPriority>> Prioritize(const std::string& profile,
                                                   const ExtenderArgs& args);
  ExtenderBindingResult Bind(const std::string& profile,
                             const ExtenderBindingArgs& args);
  VerbResult<ExtenderPreemptionResult> Preempt(
      const std::string& profile, const ExtenderPreemptionArgs& args);

 private:
  struct Context;
  class Lease;
  struct Cycle;

  ExtenderService(const config::KubeSchedulerConfiguration& cfg,
                  const framework::Registry& registry, cache::Cache& cache,
                  Options options);
  util::Result<std::unique_ptr<Context>> NewContext() const;
  // A context brought up to date with the cache, pointed at `profile`; a
  // VerbError when the profile is unknown or the snapshot failed.
  VerbResult<Lease> Acquire(const std::string& profile);
  void Release(std::unique_ptr<Context> context);
  // Acquire, then the pod's PreFilter; a VerbError when either fails (a
  // PreFilter rejection is not a failure: each verb reads it its own way).
  VerbResult<std::unique_ptr<Cycle>> Begin(const std::string& profile,
                                           const api::Pod& pod);
  // Begin, and the nodes the request names (an unknown name is a
  // VerbError).
  VerbResult<std::unique_ptr<Cycle>> Begin(const std::string& profile,
                                           const ExtenderArgs& args);

  const config::KubeSchedulerConfiguration cfg_;
  const framework::Registry& registry_;
  cache::Cache& cache_;
  Options options_;

  std::mutex mu_;
  std::condition_variable released_;
  std::vector<std::unique_ptr<Context>> idle_;
  int contexts_ = 0;  // idle and leased
};

}  // namespace ksched::extender
