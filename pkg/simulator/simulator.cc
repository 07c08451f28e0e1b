#include "pkg/simulator/simulator.h"

#include <algorithm>
#include <map>
#include <memory>

#include "pkg/api/resource_names.h"
#include "pkg/api/taints.h"
#include "pkg/framework/binder.h"
#include "pkg/framework/cluster_objects.h"
#include "pkg/framework/image_states.h"
#include "pkg/framework/parallelizer.h"
#include "pkg/framework/snapshot.h"
#include "pkg/scheduler/algorithm.h"
#include "pkg/scheduler/profile.h"
#include "pkg/util/clock.h"
#include "pkg/util/random.h"

namespace ksched::simulator {
namespace {

using framework::NodeInfo;
using framework::NodeInfoPtr;
using framework::PodInfo;
using framework::Status;

// Binding in the simulator: the placement is recorded by the loop itself.
class InMemoryBinder final : public framework::Binder {
 public:
  Status Bind(const api::Pod&, const std::string&) override { return Status(); }
};

bool IsTerminal(const api::Pod& pod) {
  return pod.status.phase == api::kPodPhaseSucceeded ||
         pod.status.phase == api::kPodPhaseFailed;
}

NodeSummary Summarize(const NodeInfo& info) {
  NodeSummary s;
  const api::Node& node = *info.node();
  s.name = node.metadata.name;
  s.allocatable = node.status.allocatable;
  s.pods = static_cast<int>(info.pods().size());
  s.allowed_pods = info.allocatable().allowed_pod_number;
  s.unschedulable = node.spec.unschedulable;
  for (const api::Taint& t : node.spec.taints) {
    s.taints.push_back(t.key + (t.value.empty() ? "" : "=" + t.value) + ":" +
                       std::string(api::TaintEffectName(t.effect)));
  }
  const framework::Resource& r = info.requested();
  s.requested.Set(api::kResourceCpu, api::Quantity::FromMilli(r.milli_cpu));
  s.requested.Set(
      api::kResourceMemory,
      api::Quantity::FromValue(r.memory, api::Quantity::Format::kBinarySI));
  if (r.ephemeral_storage != 0) {
    s.requested.Set(api::kResourceEphemeralStorage,
                    api::Quantity::FromValue(r.ephemeral_storage,
                                             api::Quantity::Format::kBinarySI));
  }
  for (const auto& [name, value] : r.scalar_resources) {
    s.requested.Set(name, api::Quantity::FromValue(value));
  }
  return s;
}

}  // namespace

util::Result<SimulationResult> Simulate(
    const Cluster& cluster, const config::KubeSchedulerConfiguration& cfg,
    const framework::Registry& registry, const SimulationOptions& options) {
  SimulationResult out;
  if (cfg.profiles.empty()) return util::Error("no profiles configured");

  framework::InMemoryClusterObjects objects;
  for (const api::Namespace& ns : cluster.namespaces) objects.Upsert(ns);
  util::RealClock clock;
  util::DefaultRandom random(options.seed);
  framework::Parallelizer parallelizer(cfg.parallelism);
  InMemoryBinder binder;
  framework::Framework::Options fwk_options;
  fwk_options.parallelizer = &parallelizer;
  fwk_options.clock = &clock;
  fwk_options.binder = &binder;
  fwk_options.objects = &objects;
  auto profiles = scheduler::BuildProfiles(cfg, registry, fwk_options);
  if (!profiles.ok()) return profiles.error();

  // Nodes, then the pods already running on them.
  std::vector<NodeInfoPtr> infos;
  std::map<std::string, NodeInfoPtr, std::less<>> by_name;
  int64_t generation = 0;
  for (const api::Node& node : cluster.nodes) {
    auto info = std::make_shared<NodeInfo>();
    info->SetNode(std::make_shared<const api::Node>(node));
    info->set_generation(++generation);
    by_name[node.metadata.name] = info;
    infos.push_back(info);
  }
  framework::SetImageStates(infos);
  std::vector<framework::QueuedPodInfo> pending;
  for (const api::Pod& pod : cluster.pods) {
    if (IsTerminal(pod)) continue;
    auto ptr = std::make_shared<const api::Pod>(pod);
    if (!pod.spec.node_name.empty()) {
      auto it = by_name.find(pod.spec.node_name);
      if (it == by_name.end()) {
        out.warnings.push_back("pod " + pod.metadata.ns + "/" +
                               pod.metadata.name + " is bound to node " +
                               pod.spec.node_name + ", which is not defined");
        continue;
      }
      it->second->AddPod(PodInfo::Create(ptr));
      continue;
    }
    bool ours = options.all_pods || profiles->count(pod.spec.scheduler_name);
    if (!ours) {
      out.other_scheduler_pods.push_back(pod.metadata.ns + "/" +
                                         pod.metadata.name + " (" +
                                         pod.spec.scheduler_name + ")");
      continue;
    }
    framework::QueuedPodInfo q;
    q.pod_info = PodInfo::Create(ptr);
    // Manifest order stands in for arrival order.
    q.timestamp = util::Clock::TimePoint(
        std::chrono::nanoseconds(static_cast<int64_t>(pending.size())));
    pending.push_back(std::move(q));
  }

  framework::Framework& first = *profiles->begin()->second;
  auto profile_for = [&](const api::Pod& pod) -> framework::Framework& {
    auto it = profiles->find(pod.spec.scheduler_name);
    return it == profiles->end() ? first : *it->second;
  };
  // Every profile shares one queue sort (validation requires it).
  std::stable_sort(
      pending.begin(), pending.end(),
      [&](const auto& a, const auto& b) { return first.QueueSortLess(a, b); });

  framework::Snapshot snapshot(infos);
  scheduler::SchedulingAlgorithm algorithm(cfg.percentage_of_nodes_to_score,
                                           random);
  for (const framework::QueuedPodInfo& q : pending) {
    const api::Pod& pod = q.pod();
    framework::Framework& fwk = profile_for(pod);
    PodOutcome outcome{pod.metadata.ns,
                       pod.metadata.name,
                       fwk.profile_name(),
                       std::nullopt,
                       "",
                       ""};

    Status gate = fwk.RunPreEnqueuePlugins(pod);
    if (!gate.IsSuccess()) {
      outcome.message = gate.Message();
      out.pods.push_back(std::move(outcome));
      continue;
    }

    snapshot.RebuildIndexes();
    fwk.SetSnapshot(&snapshot);
    framework::CycleState state;
    scheduler::ScheduleResult result =
        algorithm.Schedule(fwk, state, *q.pod_info, snapshot);

    if (result.kind == scheduler::ScheduleResult::Kind::kNoFit &&
        fwk.HasPostFilterPlugins()) {
      framework::PostFilterResult post;
      Status s = fwk.RunPostFilterPlugins(
          state, *q.pod_info, result.diagnosis.node_to_status, &post);
      result.diagnosis.post_filter_msg = s.Message();
      outcome.nominated_node = post.nominated_node_name;
    }
    if (result.kind != scheduler::ScheduleResult::Kind::kScheduled) {
      outcome.message = result.FailureMessage();
      out.pods.push_back(std::move(outcome));
      continue;
    }

    const std::string& host = result.suggested_host;
    Status s = fwk.RunReservePluginsReserve(state, *q.pod_info, host);
    if (s.IsSuccess()) {
      std::vector<std::pair<std::string, std::chrono::milliseconds>> waits;
      s = fwk.RunPermitPlugins(state, *q.pod_info, host, &waits);
      // Nothing in a simulation can allow a waiting pod.
      if (s.IsWait())
        s = Status::Unschedulable(
            "rejected due to timeout after waiting at permit");
    }
    if (s.IsSuccess()) s = fwk.RunPreBindPlugins(state, *q.pod_info, host);
    if (s.IsSuccess()) s = fwk.RunBindPlugins(state, *q.pod_info, host);
    if (!s.IsSuccess()) {
      fwk.RunReservePluginsUnreserve(state, *q.pod_info, host);
      outcome.message = s.Message();
      out.pods.push_back(std::move(outcome));
      continue;
    }
    fwk.RunPostBindPlugins(state, *q.pod_info, host);

    auto bound = std::make_shared<api::Pod>(pod);
    bound->spec.node_name = host;
    NodeInfoPtr& info = by_name[host];
    info->AddPod(PodInfo::Create(std::move(bound)));
    info->set_generation(++generation);
    outcome.node = host;
    out.pods.push_back(std::move(outcome));
  }

  for (const NodeInfoPtr& info : infos) out.nodes.push_back(Summarize(*info));
  return out;
}

}  // namespace ksched::simulator
