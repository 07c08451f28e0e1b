#include "pkg/simulator/simulator.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include "pkg/api/codec.h"
#include "pkg/api/podgroup.h"
#include "pkg/api/resource_names.h"
#include "pkg/api/taints.h"
#include "pkg/framework/cluster_objects.h"
#include "pkg/framework/pod_group_members.h"
#include "pkg/framework/snapshot.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/simulator/claim_controller.h"
#include "pkg/simulator/device_outcomes.h"
#include "pkg/simulator/inert_content.h"
#include "pkg/simulator/report.h"
#include "pkg/simulator/simulated_cluster.h"
#include "pkg/util/fake_clock.h"
#include "pkg/util/random.h"

namespace ksched::simulator {
namespace {

// A pending pod let into the queue whose turn never came: pods ahead of
// it kept failing until nothing changed any more.
constexpr std::string_view kNeverTried =
    "not tried: nothing could be scheduled any more before its turn came";

using framework::NodeInfo;

bool IsTerminal(const api::Pod& pod) {
  return pod.status.phase == api::kPodPhaseSucceeded ||
         pod.status.phase == api::kPodPhaseFailed;
}

std::string Key(const std::string& ns, const std::string& name) {
  return ns + "/" + name;
}

api::ResourceList Requested(const framework::Resource& r);

NodeSummary Summarize(const NodeInfo& info) {
  NodeSummary s;
  const api::Node& node = *info.node();
  s.name = node.metadata.name;
  s.labels = node.metadata.labels;
  s.allocatable = node.status.allocatable;
  s.pods = static_cast<int>(info.pods().size());
  s.allowed_pods = info.allocatable().allowed_pod_number;
  s.unschedulable = node.spec.unschedulable;
  for (const api::Taint& t : node.spec.taints) {
    s.taints.push_back(t.key + (t.value.empty() ? "" : "=" + t.value) + ":" +
                       std::string(api::TaintEffectName(t.effect)));
  }
  s.requested = Requested(info.requested());
  return s;
}

api::ResourceList Requested(const framework::Resource& r) {
  api::ResourceList out;
  out.Set(api::kResourceCpu, api::Quantity::FromMilli(r.milli_cpu));
  out.Set(api::kResourceMemory,
          api::Quantity::FromValue(r.memory, api::Quantity::Format::kBinarySI));
  if (r.ephemeral_storage != 0) {
    out.Set(api::kResourceEphemeralStorage,
            api::Quantity::FromValue(r.ephemeral_storage,
                                     api::Quantity::Format::kBinarySI));
  }
  for (const auto& [name, value] : r.scalar_resources) {
    out.Set(name, api::Quantity::FromValue(value));
  }
  return out;
}

// Why a member of a gang did not fit a node, from its last message: the
// messages the gang rules themselves gave (too few members, released with
// the others, backing off) say nothing about the cluster.
std::string FitFailure(const std::string& message) {
  if (message.rfind("0/", 0) != 0) return "";
  for (const char* gang_only :
       {"cannot find enough sibling pods", "rejection in", "failed recently",
        "rejected due to timeout"}) {
    if (message.find(gang_only) != std::string::npos) return "";
  }
  // The PostFilter's verdict on the whole group follows the nodes' story.
  const size_t verdict = message.find(", PodGroup ");
  return message.substr(0, verdict);
}

// A pod of the input that names a PodGroup (and is not terminal).
struct GroupMember {
  std::string ns;
  std::string name;
  std::string group;
};

std::vector<GroupMember> GroupMembers(const std::vector<api::Pod>& input) {
  std::vector<GroupMember> members;
  for (const api::Pod& pod : input) {
    const std::string_view group = framework::PodGroupName(pod);
    if (group.empty() || IsTerminal(pod)) continue;
    members.push_back({pod.metadata.ns, pod.metadata.name, std::string(group)});
  }
  return members;
}

// `shortage`: the last fit failure of a member in the run (FitFailure),
// which the members' final messages may no longer hold (released with the
// others, backing off).
PodGroupOutcome SummarizePodGroup(const api::PodGroup& group,
                                  const std::vector<PodOutcome>& pods,
                                  const SimulatedCluster& api_server,
                                  const std::vector<GroupMember>& members,
                                  int most_placed,
                                  const std::string& shortage) {
  PodGroupOutcome out{group.metadata.ns, group.metadata.name,
                      group.spec.min_member};
  out.most_placed = most_placed;
  std::map<std::string, const PodOutcome*> outcome_by_key;
  for (const PodOutcome& o : pods) outcome_by_key[Key(o.ns, o.name)] = &o;
  std::string fit_failure, last_message;
  for (const GroupMember& member : members) {
    if (member.ns != group.metadata.ns || member.group != group.metadata.name) {
      continue;
    }
    ++out.members;
    auto now = api_server.GetPod(member.ns, member.name);
    if (now != nullptr && !now->spec.node_name.empty()) ++out.scheduled;
    auto it = outcome_by_key.find(Key(member.ns, member.name));
    if (it == outcome_by_key.end() || it->second->node) continue;
    if (last_message.empty()) last_message = it->second->message;
    if (fit_failure.empty()) fit_failure = FitFailure(it->second->message);
  }
  out.most_placed = std::max(out.most_placed, out.scheduled);
  if (out.scheduled >= out.min_member && out.scheduled == out.members) {
    return out;
  }
  if (fit_failure.empty()) fit_failure = shortage;
  if (out.members < out.min_member) {
    const int missing = out.min_member - out.members;
    out.message = "waiting for " + std::to_string(missing) + " more pod" +
                  (missing == 1 ? "" : "s");
  } else if (out.most_placed < out.min_member) {
    out.message = "only " + std::to_string(out.most_placed) + " of " +
                  std::to_string(out.min_member) + " fit";
    if (!fit_failure.empty()) out.message += " (" + fit_failure + ")";
  } else {
    out.message = FitFailure(last_message).empty() && !fit_failure.empty()
                      ? fit_failure
                      : last_message;
  }
  return out;
}

// Words for gang members the report would leave a user puzzled by: a
// member whose siblings took every turn before it (its group cannot be
// placed, and each sibling that waits at Permit activates the others,
// which sort before it), and a member whose PodGroup does not exist
// (Permit's "PodGroup not found" names no group).
void ExplainGangMembers(const SimulatedCluster& api_server,
                        const std::vector<api::PodGroup>& groups,
                        SimulationResult& out) {
  std::map<std::string, const PodGroupOutcome*> outcome_by_group;
  for (const PodGroupOutcome& g : out.pod_groups) {
    outcome_by_group[Key(g.ns, g.name)] = &g;
  }
  std::set<std::string> known;
  for (const api::PodGroup& g : groups) {
    known.insert(Key(g.metadata.ns, g.metadata.name));
  }
  for (PodOutcome& o : out.pods) {
    if (o.node) continue;
    auto pod = api_server.GetPod(o.ns, o.name);
    if (pod == nullptr) continue;
    const std::string_view group = framework::PodGroupName(*pod);
    if (group.empty()) continue;
    const std::string key = Key(o.ns, std::string(group));
    if (!known.count(key)) {
      if (o.message.find("PodGroup not found") != std::string::npos) {
        o.message += " (no PodGroup " + key + ", which its label " +
                     std::string(api::kPodGroupLabel) + " names)";
      }
      continue;
    }
    auto g = outcome_by_group.find(key);
    if (o.message != kNeverTried && FitFailure(o.message).empty() &&
        g != outcome_by_group.end() && !g->second->message.empty() &&
        o.message.find(g->second->message) == std::string::npos) {
      // kube's words for the gang's rule ("optimistic rejection in
      // PostFilter", "failed recently"), then what the group lacks.
      o.message += " (PodGroup " + key + ": " + g->second->message + ")";
      continue;
    }
    if (o.message == kNeverTried && g != outcome_by_group.end() &&
        !g->second->message.empty()) {
      o.message =
          "not tried: the other members of PodGroup " + key +
          " took every turn before it (each member placed at Permit "
          "activates its siblings, which sort first), and the group cannot "
          "be placed: " +
          g->second->message;
    }
  }
}

// `text` with the claims made for the pod from templates named as the pod
// names them ("claim ml/train-0-gpus-x7k2p" -> "its claim gpus"), so that
// the pods of one workload read alike.
std::string WithPodClaimNames(std::string text, const api::Pod& pod) {
  for (const api::PodResourceClaimStatus& s :
       pod.status.resource_claim_statuses) {
    if (!s.resource_claim_name) continue;
    const std::string made =
        "claim " + pod.metadata.ns + "/" + *s.resource_claim_name;
    for (size_t at; (at = text.find(made)) != std::string::npos;) {
      text.replace(at, made.size(), "its claim " + s.name);
    }
  }
  return text;
}

// What an explained cycle says a pod lacks: the reason that alone rejects
// the most nodes, and what its claims lack on a node (one with devices of
// their class, where the first few rejected nodes have one).
struct Shortage {
  std::string primary_reason;
  std::string devices;
};

Shortage ShortageOf(const explain::Explanation& e) {
  Shortage out;
  if (!e.closest.empty()) {
    // One reason, as the message counts them: a plugin that rejects a node
    // for two ("Insufficient cpu, Insufficient memory") is counted under
    // its first, so pods share the reasons their messages give.
    const explain::CloseGroup& closest = e.closest.front();
    out.primary_reason = closest.reason;
    for (const explain::PluginRejections& r : e.rejections) {
      if (r.plugin != closest.plugin) continue;
      for (const auto& [reason, nodes] : r.reasons) {
        if (closest.reason.rfind(reason, 0) == 0 &&
            reason.size() < out.primary_reason.size()) {
          out.primary_reason = reason;
        }
      }
    }
  }
  for (const explain::PluginRejections& r : e.rejections) {
    if (r.plugin != "DynamicResources") continue;
    // A node with the claim's devices but too few free says more than one
    // without any ("no device matches").
    for (const auto& [node, detail] : r.details) {
      if (out.devices.empty() ||
          detail.find("matching devices free") != std::string::npos) {
        out.devices = node + ": " + detail;
        if (detail.find("matching devices free") != std::string::npos) break;
      }
    }
  }
  return out;
}

// PodOutcome::primary_reason and ::device_shortage for the unschedulable
// pods whose message gives several reasons or blames their claims: read
// from a cycle recorded against the cluster as the run leaves it (every
// plugin runs on every node there). Pods alike (the same spec, labels and
// message, as a workload's or the --capacity copies are) share the
// answer, so a Deployment of a hundred GPU pods costs one cycle.
void ExplainShortages(scheduler::Scheduler& s,
                      const SimulatedCluster& api_server,
                      std::vector<PodOutcome>& pods) {
  constexpr std::string_view kClaims = "cannot allocate all claims";
  std::map<std::string, Shortage> by_shape;
  for (PodOutcome& o : pods) {
    const int reasons = FitErrorReasons(o.message);
    if (o.node || reasons == 0 ||
        (reasons < 2 && o.message.find(kClaims) == std::string::npos)) {
      continue;
    }
    Shortage found;
    if (o.explanation != nullptr) {
      found = ShortageOf(*o.explanation);
    } else {
      std::shared_ptr<const api::Pod> pod = api_server.GetPod(o.ns, o.name);
      if (pod == nullptr) continue;
      // What of the pod its cycle reads: its namespace, labels and spec (a
      // claim made from a template is named in its status, which is not).
      api::Pod bare;
      bare.metadata.ns = pod->metadata.ns;
      bare.metadata.labels = pod->metadata.labels;
      bare.spec = pod->spec;
      std::string shape = api::EncodeJson(bare) + "\n" +
                          PrimaryReasonKey(o.message, o.name, o.ns);
      if (auto it = by_shape.find(shape); it != by_shape.end()) {
        found = it->second;
      } else {
        auto cycle = s.Explain(o.ns, o.name, 5);
        if (cycle.ok()) found = ShortageOf(cycle->explanation);
        by_shape.emplace(std::move(shape), found);
      }
    }
    if (reasons >= 2) o.primary_reason = found.primary_reason;
    o.device_shortage = found.devices;
  }
}

}  // namespace

CapacityOutcome SummarizeCapacity(const SimulationResult& result,
                                  const std::vector<std::string>& copies,
                                  const std::string& template_pod, int max) {
  CapacityOutcome out;
  out.pod = template_pod;
  out.max = max;
  std::map<std::string, const PodOutcome*> by_key;
  for (const PodOutcome& p : result.pods) by_key[Key(p.ns, p.name)] = &p;
  for (const std::string& key : copies) {
    auto it = by_key.find(key);
    if (it == by_key.end() || !it->second->node) {
      if (it != by_key.end()) {
        out.stopped_by = it->second->message;
        out.stopped_devices = it->second->device_shortage;
      }
      return out;
    }
    ++out.fits;
    ++out.nodes[*it->second->node];
  }
  out.reached_max = out.fits >= max;
  return out;
}

bool PlannedPodsUnschedulable(const SimulationResult& result) {
  for (const WorkloadOutcome& w : result.workloads) {
    if (w.unschedulable > 0) return true;
  }
  for (const DisplacedOutcome& d : result.displaced) {
    if (!d.recreated.empty() && !d.new_node) return true;
  }
  return false;
}

bool AnyPodUnschedulable(const SimulationResult& result) {
  for (const PodOutcome& p : result.pods) {
    if (!p.node) return true;
  }
  return false;
}

namespace {

// Simulate, taking `cluster`'s nodes and pods from `movable` (the same
// cluster, writable) when it is given: they are gone once loaded, so
// cluster.nodes and cluster.pods are not read after that.
util::Result<SimulationResult> SimulateFrom(
    const Cluster& cluster, Cluster* movable,
    const config::KubeSchedulerConfiguration& cfg,
    const framework::Registry& registry, const SimulationOptions& options) {
  SimulationResult out;
  if (cfg.profiles.empty()) return util::Error("no profiles configured");
  // Read before the pods are taken.
  out.warnings = InertContentWarnings(cluster, options.features);

  framework::InMemoryClusterObjects objects;
  for (const auto& o : cluster.namespaces) objects.Upsert(o);
  for (const auto& o : cluster.persistent_volume_claims) objects.Upsert(o);
  for (const auto& o : cluster.persistent_volumes) objects.Upsert(o);
  for (const auto& o : cluster.storage_classes) objects.Upsert(o);
  for (const auto& o : cluster.csi_nodes) objects.Upsert(o);
  for (const auto& o : cluster.csi_drivers) objects.Upsert(o);
  for (const auto& o : cluster.volume_attachments) objects.Upsert(o);
  for (const auto& o : cluster.pod_disruption_budgets) objects.Upsert(o);
  for (const auto& o : cluster.pod_groups) objects.Upsert(o);

  // DRA's classes, slices and claims, as the informers would deliver them
  // (it outlives the scheduler, which listens to it).
  dra::DraManager dra(
      options.features.Enabled(config::Feature::kDRAConsumableCapacity));
  dra.SetServed(cluster.dra_served);
  for (const auto& c : cluster.device_classes) {
    dra.UpsertDeviceClass(std::make_shared<const api::DeviceClass>(c));
  }
  for (const auto& slice : cluster.resource_slices) {
    dra.UpsertResourceSlice(std::make_shared<const api::ResourceSlice>(slice));
  }

  SimulatedCluster api_server(objects);
  api_server.set_dra(&dra);
  {
    // The claims as the resourceclaim controller leaves them once the pods
    // a change took away (or the simulation leaves out) are gone.
    std::vector<api::ResourceClaim> claims = cluster.resource_claims;
    SettleClaims(claims, cluster.pods);
    for (api::ResourceClaim& c : claims) {
      if (auto w = api_server.CreateResourceClaim(std::move(c)); !w.ok()) {
        return util::Error(w.error);
      }
    }
  }
  ClaimController claim_controller(api_server, cluster.resource_claim_templates,
                                   options.seed);
  // Simulated time: it moves only when nothing can be scheduled until a
  // backoff expires, so a run is fast and reproducible.
  util::FakeClock clock;
  util::DefaultRandom random(options.seed);
  // Each tried pod's last message: all an outcome reads of its attempts.
  std::map<std::string, std::string> last_attempt;
  std::vector<std::string> attempt_order;

  scheduler::Scheduler::Dependencies deps;
  deps.clock = &clock;
  deps.random = &random;
  deps.binder = &api_server;
  deps.writer = &api_server;
  deps.objects = &objects;
  deps.pod_lookup = [&api_server](const std::string& ns,
                                  const std::string& name) {
    return api_server.GetPod(ns, name);
  };
  deps.binding_workers = 0;  // bind inline: one deterministic sequence
  deps.memoize_node_results = options.memoize_node_results;
  deps.use_filter_candidates = options.use_filter_candidates;
  deps.features = options.features;
  deps.dra = &dra;
  // The last recorded cycle of each explained pod; binding is inline, so a
  // cycle's record is complete before the pod's next cycle replaces it.
  std::map<std::string, std::shared_ptr<framework::CycleRecorder>> records;
  // The last cycle whose preemption chose a node, for the pod that later
  // took that node: the last cycle alone only says it tried its nomination.
  std::map<std::string, std::shared_ptr<framework::CycleRecorder>> preempting;
  if (options.explain.has_value()) {
    deps.record_cycle = [&](const api::Pod& pod) -> framework::CycleRecorder* {
      std::string key = Key(pod.metadata.ns, pod.metadata.name);
      if (!options.explain->empty() && !options.explain->count(key)) {
        return nullptr;
      }
      auto& slot = records[key];
      if (slot != nullptr && !slot->post_filter().empty()) {
        preempting[key] = slot;
      }
      slot = std::make_shared<framework::CycleRecorder>();
      return slot.get();
    };
  }
  // Failed attempts since a pod was last scheduled.
  int failed_attempts_since_progress = 0;
  int scheduled_total = 0;
  // Pods whose last failure came while pods of another group were held at
  // Permit: the room those held may be what this pod lacked, and giving it
  // back is no event the queue hears of (an in-flight claim allocation let
  // go writes nothing), so the running scheduler retries such a pod when
  // it flushes its unschedulable pods, five minutes on.
  std::set<std::string> failed_beside_holds;
  // "namespace/group" -> the last fit failure of one of its members.
  std::map<std::string, std::string> group_shortage;
  // The scheduler, once made: a pod's failure asks it who is held.
  scheduler::Scheduler* running = nullptr;
  auto held_by_others = [&](const std::string& key) {
    if (running == nullptr) return false;
    const size_t slash = key.find('/');
    std::shared_ptr<const api::Pod> pod =
        api_server.GetPod(key.substr(0, slash), key.substr(slash + 1));
    const std::string_view group =
        pod == nullptr ? std::string_view() : framework::PodGroupName(*pod);
    bool held = false;
    running->waiting_pods().ForEach([&](framework::WaitingPod& w) {
      if (held || w.Done()) return;
      const api::Pod& other = w.pod();
      const bool sibling = !group.empty() && pod != nullptr &&
                           other.metadata.ns == pod->metadata.ns &&
                           framework::PodGroupName(other) == group;
      held = !sibling && Key(other.metadata.ns, other.metadata.name) != key;
    });
    return held;
  };
  deps.on_attempt = [&](const scheduler::AttemptOutcome& o) {
    if (!last_attempt.count(o.pod)) attempt_order.push_back(o.pod);
    last_attempt[o.pod] = o.message;
    if (o.result == scheduler::AttemptOutcome::Result::kScheduled) {
      failed_attempts_since_progress = 0;
      ++scheduled_total;
      failed_beside_holds.erase(o.pod);
    } else {
      ++failed_attempts_since_progress;
      if (std::string fit = FitFailure(o.message); !fit.empty()) {
        const size_t slash = o.pod.find('/');
        if (auto pod = api_server.GetPod(o.pod.substr(0, slash),
                                         o.pod.substr(slash + 1));
            pod != nullptr && !framework::PodGroupName(*pod).empty()) {
          group_shortage[Key(pod->metadata.ns,
                             std::string(framework::PodGroupName(*pod)))] =
              std::move(fit);
        }
      }
      if (held_by_others(o.pod)) {
        failed_beside_holds.insert(o.pod);
      } else {
        failed_beside_holds.erase(o.pod);
      }
    }
  };
  auto sched = scheduler::Scheduler::Create(cfg, registry, std::move(deps));
  if (!sched.ok()) return sched.error();
  scheduler::Scheduler& s = **sched;
  running = &s;
  api_server.set_scheduler(&s);
  const std::string first_profile = cfg.profiles.front().scheduler_name;

  // The nodes in the file's order, for the summary at the end, and where
  // each name stands in it (the views stay valid: node_order is reserved).
  std::vector<std::string> node_order;
  std::unordered_map<std::string_view, size_t> position;
  node_order.reserve(cluster.nodes.size());
  position.reserve(cluster.nodes.size());
  for (size_t i = 0; i < cluster.nodes.size(); ++i) {
    node_order.push_back(cluster.nodes[i].metadata.name);
    position.emplace(node_order.back(), i);
    s.OnNodeAdd(
        movable == nullptr
            ? std::make_shared<const api::Node>(cluster.nodes[i])
            : std::make_shared<const api::Node>(std::move(movable->nodes[i])));
  }
  if (movable != nullptr) std::vector<api::Node>().swap(movable->nodes);
  // Running pods first, so the pending ones see a settled cluster. Pending
  // pods then enter the queue in creation order (creationTimestamp where
  // the file has one, pods without one after those), then file order, one
  // simulated microsecond apart: PrioritySort breaks ties between equal
  // priorities by the time a pod entered the queue, and pods added at the
  // same instant would come out of the heap in no particular order.
  std::vector<size_t> order_in_file(cluster.pods.size());
  for (size_t i = 0; i < order_in_file.size(); ++i) order_in_file[i] = i;
  std::stable_sort(
      order_in_file.begin(), order_in_file.end(), [&](size_t a, size_t b) {
        const api::Time& ta = cluster.pods[a].metadata.creation_timestamp;
        const api::Time& tb = cluster.pods[b].metadata.creation_timestamp;
        if (ta.IsZero() != tb.IsZero()) return tb.IsZero();
        return ta.value < tb.value;
      });
  // Which pass loads each pod, decided before any is taken.
  enum Phase : uint8_t { kTerminal, kRunning, kPending };
  std::vector<Phase> phases(cluster.pods.size());
  for (size_t i = 0; i < phases.size(); ++i) {
    const api::Pod& pod = cluster.pods[i];
    phases[i] = IsTerminal(pod)              ? kTerminal
                : pod.spec.node_name.empty() ? kPending
                                             : kRunning;
  }
  const std::vector<GroupMember> group_members =
      cluster.pod_groups.empty() ? std::vector<GroupMember>()
                                 : GroupMembers(cluster.pods);
  // Given pods move to the heap now, and the vector of their moved-from
  // shells (900 bytes a pod) goes before the scheduler takes them: at
  // 300,000 pods the shells and the pods would otherwise coexist (270 MB).
  std::vector<std::shared_ptr<api::Pod>> taken;
  if (movable != nullptr) {
    taken.reserve(movable->pods.size());
    for (api::Pod& pod : movable->pods) {
      taken.push_back(std::make_shared<api::Pod>(std::move(pod)));
    }
    std::vector<api::Pod>().swap(movable->pods);
  }
  std::vector<std::string> pending;
  // What each node (by its place in the file) had before the pending pods:
  // kept as the cache counts it, and made a ResourceList only for the
  // report, so it costs little while the cycles run.
  struct Before {
    framework::Resource requested;
    int pods = 0;
    bool seen = false;  // else the node joined later: nothing before
  };
  std::vector<Before> before(node_order.size());
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      // The input's running pods are all in: what each node had before.
      s.cache().ForEachNodeInfo([&](const NodeInfo& info) {
        if (auto it = position.find(info.name()); it != position.end()) {
          before[it->second] = {info.requested(),
                                static_cast<int>(info.pods().size()), true};
        }
      });
    }
    for (size_t index : order_in_file) {
      if (phases[index] != (pass == 0 ? kRunning : kPending)) continue;
      const bool assigned = pass == 0;
      // Each input pod is read once: taken when the caller gave the pods
      // away, else copied.
      std::shared_ptr<api::Pod> given =
          taken.empty() ? std::make_shared<api::Pod>(cluster.pods[index])
                        : std::move(taken[index]);
      api::Pod& pod = *given;
      const std::string key = Key(pod.metadata.ns, pod.metadata.name);
      if (assigned && !position.count(pod.spec.node_name)) {
        out.warnings.push_back("pod " + key + " is bound to node " +
                               pod.spec.node_name + ", which is not defined");
        continue;
      }
      if (!assigned) {
        if (options.all_pods) pod.spec.scheduler_name = first_profile;
        if (!s.IsResponsibleFor(pod)) {
          out.other_scheduler_pods.push_back(key + " (" +
                                             pod.spec.scheduler_name + ")");
          continue;
        }
        pending.push_back(key);
        clock.Advance(std::chrono::microseconds(1));
      }
      // The resourceclaim controller's turn, before the scheduler sees the
      // pod: its template claims are made and recorded in its status.
      for (std::string& failure : claim_controller.SyncPod(pod)) {
        out.warnings.push_back(std::move(failure));
      }
      std::shared_ptr<const api::Pod> shared = std::move(given);
      api_server.StorePod(shared);
      s.OnPodAdd(std::move(shared));
    }
  }

  if (!options.probe_node.empty()) {
    for (const std::string& key : pending) {
      if (!options.probe_pods.empty() && !options.probe_pods.count(key)) {
        continue;
      }
      const size_t slash = key.find('/');
      std::shared_ptr<const api::Pod> pod =
          api_server.GetPod(key.substr(0, slash), key.substr(slash + 1));
      if (pod == nullptr) continue;
      PodOutcome o{pod->metadata.ns, pod->metadata.name,
                   pod->spec.scheduler_name};
      // PreEnqueue (a scheduling gate) holds it back from every node.
      o.message = s.profiles()
                      .at(pod->spec.scheduler_name)
                      ->RunPreEnqueuePlugins(*pod)
                      .Message();
      if (o.message.empty()) {
        auto verdicts = s.VerdictsOn(o.ns, o.name, options.probe_node);
        if (!verdicts.ok()) return verdicts.error();
        for (const framework::CycleRecorder::Verdict& v : *verdicts) {
          if (v.passed()) continue;
          if (!o.message.empty()) o.message += "; ";
          o.message += v.plugin + ": " + v.Outcome();
          if (!v.detail.empty()) {
            o.message += " (" + WithPodClaimNames(v.detail, *pod) + ")";
          }
        }
      }
      if (o.message.empty()) o.node = options.probe_node;
      out.pods.push_back(std::move(o));
    }
    return out;
  }

  // The most members of each gang placed at once (held at Permit or bound).
  std::map<std::string, int> most_placed;
  // Only a group with members held at Permit can have more placed than it
  // ends with (the summary counts the bound ones); the members are listed
  // for those groups alone, so a cycle costs the gangs it touches.
  auto count_placed = [&] {
    if (cluster.pod_groups.empty()) return;
    for (auto& [key, placed] : s.WaitingByPodGroup()) {
      const size_t slash = key.find('/');
      for (const auto& pod : s.pod_group_members().List(
               key.substr(0, slash), key.substr(slash + 1))) {
        if (!pod->spec.node_name.empty()) ++placed;
      }
      most_placed[key] = std::max(most_placed[key], static_cast<int>(placed));
    }
  };
  const int max_cycles = 50 * static_cast<int>(pending.size() + 10);
  size_t preemptions_seen = api_server.preemptions().size();
  // Every 256 cycles is often enough for a line redrawn 5 times a second,
  // and costs the loop nothing measurable.
  constexpr int kCyclesPerProgress = 256;
  auto progress = [&] {
    if (options.on_progress) {
      options.on_progress(static_cast<int>(attempt_order.size()),
                          static_cast<int>(pending.size()));
    }
  };
  progress();
  // The running scheduler moves a pod pooled as unschedulable back to be
  // tried again after this long without an event for it
  // (podMaxInUnschedulablePodsDuration).
  constexpr std::chrono::minutes kUnschedulableFlush{5};
  // Flushes emulated since the last pod was scheduled (or preempted).
  int flushes_without_progress = 0;
  int scheduled_before = 0;
  // Stops the run, unless pods that failed only beside another group's
  // held room are still to be retried: then simulated time moves to the
  // flush that retries them, once per progress made.
  auto stop_or_flush = [&] {
    if (failed_beside_holds.empty() || flushes_without_progress > 0) {
      return false;
    }
    ++flushes_without_progress;
    failed_attempts_since_progress = 0;
    clock.Advance(kUnschedulableFlush + std::chrono::seconds(1));
    return true;
  };
  while (true) {
    s.Tick();
    count_placed();
    if (api_server.preemptions().size() != preemptions_seen) {
      preemptions_seen = api_server.preemptions().size();
      failed_attempts_since_progress = 0;
      flushes_without_progress = 0;
    }
    if (scheduled_total != scheduled_before) {
      scheduled_before = scheduled_total;
      flushes_without_progress = 0;
    }
    // Nothing scheduled (or preempted) while every pending pod could have
    // failed three times over: the simulated cluster no longer changes,
    // and neither would the next attempts (a gang that does not fit
    // retries for ever).
    if (failed_attempts_since_progress >
        3 * static_cast<int>(pending.size()) + 10) {
      if (stop_or_flush()) continue;
      break;
    }
    queue::SchedulingQueue::Counts counts = s.queue().PendingCounts();
    // With SchedulerPopFromBackoffQ (v1.33 on) an empty activeQ hands out a
    // pod still backing off, as the running scheduler's Pop does.
    if (counts.active > 0 || s.queue().CanPop()) {
      if (++out.cycles > max_cycles) {
        out.warnings.push_back("stopped after " + std::to_string(max_cycles) +
                               " scheduling cycles");
        break;
      }
      s.ScheduleOne();
      if (out.cycles % kCyclesPerProgress == 0) progress();
      continue;
    }
    // Pods held at Permit whose group does not complete: their wait times
    // out, which releases what they hold.
    bool waiting = false;
    s.waiting_pods().ForEach(
        [&](framework::WaitingPod& w) { waiting = waiting || !w.Done(); });
    if (counts.backoff > 0 || waiting) {
      clock.Advance(std::chrono::seconds(1));
      continue;
    }
    if (stop_or_flush()) continue;
    break;
  }
  // Stopped early: what pods still hold at Permit is given back.
  s.waiting_pods().ForEach(
      [](framework::WaitingPod& w) { w.Reject("", "the simulation stopped"); });
  s.WaitForBindings();
  out.memoized_filter_passes = s.memoized_filter_passes();
  out.filter_candidate_rejections = s.filter_candidate_rejections();

  ClaimsByKey claims_at_end;
  for (auto& claim : api_server.ResourceClaims()) {
    claims_at_end[claim->metadata.ns + "/" + claim->metadata.name] = claim;
  }
  const DeviceCatalog catalog(cluster.resource_slices);
  out.device_usage = UsageOfDevices(catalog, claims_at_end);

  // Pods in the order they were first tried, then those never tried.
  std::vector<std::string> order = attempt_order;
  for (const std::string& key : pending) {
    if (!last_attempt.count(key)) order.push_back(key);
  }
  // Reserved: growing by doubling would hold two copies of every outcome
  // at once, the largest allocation of a run with many pending pods.
  out.pods.reserve(out.pods.size() + order.size());
  for (const std::string& key : order) {
    auto slash = key.find('/');
    std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
    std::shared_ptr<const api::Pod> pod = api_server.GetPod(ns, name);
    if (pod == nullptr) continue;
    PodOutcome o{ns, name, pod->spec.scheduler_name, std::nullopt, "", ""};
    if (!pod->spec.node_name.empty()) {
      o.node = pod->spec.node_name;
      o.claims = PodClaimOutcomes(*pod, claims_at_end, catalog);
    } else if (auto it = last_attempt.find(key); it != last_attempt.end()) {
      // Only whether there was an attempt is read from here on.
      o.message = std::move(it->second);
    } else if (auto it = s.profiles().find(pod->spec.scheduler_name);
               it != s.profiles().end()) {
      // Never tried: held back at PreEnqueue (a scheduling gate).
      o.message = it->second->RunPreEnqueuePlugins(*pod).Message();
      // Let in, but its turn never came: pods ahead of it kept failing
      // until nothing changed any more (the members of a gang that does
      // not fit take turns ahead of their last sibling).
      if (o.message.empty()) o.message = std::string(kNeverTried);
    }
    o.nominated_node = pod->status.nominated_node_name;
    if (o.node) o.nominated_node.clear();
    const bool explained =
        options.explain.has_value() &&
        (options.explain->empty() || options.explain->count(key));
    if (explained) {
      // A pod PreEnqueue held back has no cycle: an empty record, and the
      // message says why.
      auto it = records.find(key);
      o.record = it != records.end()
                     ? it->second
                     : std::make_shared<framework::CycleRecorder>();
      explain::Subject subject{
          o.ns,
          o.name,
          o.profile,
          o.node,
          o.message,
          o.nominated_node,
          key == options.rescheduled_pod ? options.rescheduled_from : "",
          static_cast<int>(node_order.size()),
          last_attempt.count(key) != 0};
      explain::Explanation e =
          explain::Explain(*o.record, std::move(subject), options.explain_top);
      if (auto p = preempting.find(key); p != preempting.end() &&
                                         e.preemption.empty() &&
                                         !e.nominated_node_tried.empty()) {
        e.preemption = p->second->preemption();
        e.preemption_cycle_earlier = true;
      }
      o.explanation =
          std::make_shared<const explain::Explanation>(std::move(e));
    }
    out.pods.push_back(std::move(o));
  }

  ExplainShortages(s, api_server, out.pods);

  if (options.workloads != nullptr) {
    std::map<std::string, const PodOutcome*> outcome_by_key;
    for (const PodOutcome& o : out.pods) {
      outcome_by_key[Key(o.ns, o.name)] = &o;
    }
    for (const WorkloadPods& w : *options.workloads) {
      WorkloadOutcome wo{w.kind, w.ns, w.name, w.desired, 0, 0, ""};
      for (const std::string& key : w.pods) {
        auto it = outcome_by_key.find(key);
        if (it == outcome_by_key.end()) {
          // Not pending in the simulation: it was running already.
          auto slash = key.find('/');
          auto pod =
              api_server.GetPod(key.substr(0, slash), key.substr(slash + 1));
          if (pod != nullptr && !pod->spec.node_name.empty()) {
            ++wo.scheduled;
          } else {
            ++wo.unschedulable;
          }
          continue;
        }
        if (it->second->node) {
          ++wo.scheduled;
        } else {
          ++wo.unschedulable;
          if (wo.message.empty()) wo.message = it->second->message;
        }
      }
      out.workloads.push_back(std::move(wo));
    }
  }

  if (s.SchedulesGangs()) {
    for (const api::PodGroup& g : cluster.pod_groups) {
      out.pod_groups.push_back(SummarizePodGroup(
          g, out.pods, api_server, group_members,
          most_placed[Key(g.metadata.ns, g.metadata.name)],
          group_shortage[Key(g.metadata.ns, g.metadata.name)]));
    }
    ExplainGangMembers(api_server, cluster.pod_groups, out);
  } else {
    // No profile runs Coscheduling: a PodGroup is only a label, and its
    // pods were scheduled one by one like any others.
    out.pod_groups_ignored = static_cast<int>(cluster.pod_groups.size());
  }

  if (options.changes != nullptr) {
    std::map<std::string, const PodOutcome*> outcome_by_key;
    for (const PodOutcome& o : out.pods) {
      outcome_by_key[Key(o.ns, o.name)] = &o;
    }
    for (const DisplacedPod& d : options.changes->displaced) {
      DisplacedOutcome o{d.pod, d.node, d.fate, d.recreated, std::nullopt, ""};
      if (auto it = outcome_by_key.find(d.recreated);
          it != outcome_by_key.end()) {
        o.new_node = it->second->node;
        o.message = it->second->message;
      }
      out.displaced.push_back(std::move(o));
    }
    out.added_nodes = options.changes->added_nodes;
  }

  std::map<std::string, std::string> name_by_uid;
  if (!api_server.preemptions().empty()) {
    for (const auto& pod : api_server.Pods()) {
      name_by_uid[pod->metadata.uid] =
          Key(pod->metadata.ns, pod->metadata.name);
    }
  }
  for (const auto& p : api_server.preemptions()) {
    auto slash = p.victim.find('/');
    auto by = name_by_uid.find(p.by);
    out.preempted.push_back({p.victim.substr(0, slash),
                             p.victim.substr(slash + 1), p.node,
                             by == name_by_uid.end() ? p.by : by->second});
  }

  // The cycles are over: the snapshot they read (a second copy of every
  // NodeInfo) goes before the summaries are made, or both would count
  // towards the run's peak (at 100,000 nodes, about 60 MiB each).
  s.ReleaseSnapshot();
  // Read from the cache itself: a snapshot would copy every NodeInfo (and
  // compact the copies: twice) to be read once. Made in place, in the
  // file's order (not the zone-interleaved order filtering walks), and
  // closed up over nodes the cache lacks: one vector of summaries, not two.
  std::vector<NodeSummary>& nodes = out.nodes;
  nodes.clear();
  nodes.resize(node_order.size());
  std::vector<bool> summarized(node_order.size());
  s.cache().ForEachNodeInfo([&](const NodeInfo& info) {
    if (auto it = position.find(info.name()); it != position.end()) {
      nodes[it->second] = Summarize(info);
      summarized[it->second] = true;
    }
  });
  auto devices = DevicesByNode(cluster.resource_slices, claims_at_end);
  size_t kept = 0;
  for (size_t i = 0; i < node_order.size(); ++i) {
    if (!summarized[i]) continue;
    const std::string& name = node_order[i];
    NodeSummary& n = nodes[kept++];
    if (&n != &nodes[i]) n = std::move(nodes[i]);
    if (before[i].seen) {
      n.requested_before = Requested(before[i].requested);
      n.pods_before = before[i].pods;
    }
    n.devices = std::move(devices[name]);
  }
  nodes.resize(kept);
  return out;
}

}  // namespace

util::Result<SimulationResult> Simulate(
    const Cluster& cluster, const config::KubeSchedulerConfiguration& cfg,
    const framework::Registry& registry, const SimulationOptions& options) {
  return SimulateFrom(cluster, nullptr, cfg, registry, options);
}

util::Result<SimulationResult> Simulate(
    Cluster&& cluster, const config::KubeSchedulerConfiguration& cfg,
    const framework::Registry& registry, const SimulationOptions& options) {
  return SimulateFrom(cluster, &cluster, cfg, registry, options);
}

}  // namespace ksched::simulator
