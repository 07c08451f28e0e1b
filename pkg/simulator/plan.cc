#include "pkg/simulator/plan.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "pkg/api/pod_resources.h"
#include "pkg/api/resource_names.h"
#include "pkg/framework/pod_info.h"
#include "pkg/simulator/device_bound.h"

namespace ksched::simulator {

void Plan::Into(SimulationOptions& options) const {
  options.workloads = workloads.empty() ? nullptr : &workloads;
  options.changes = applied.displaced.empty() && applied.added_nodes.empty()
                        ? nullptr
                        : &applied;
}

util::Result<Plan> PreparePlan(Cluster base, const PlanInput& input,
                               const config::KubeSchedulerConfiguration& cfg) {
  Plan plan;
  plan.cluster = std::move(base);
  Cluster& c = plan.cluster;
  auto applied = ApplyChanges(c, input.changes, input.seed);
  if (!applied.ok()) return applied.error();
  plan.applied = std::move(*applied);
  std::set<std::string> made;
  for (const DisplacedPod& d : plan.applied.displaced) {
    if (!d.recreated.empty()) made.insert(d.recreated);
  }
  const size_t before = c.pods.size();
  auto workloads =
      ExpandWorkloads(c, {.seed = input.seed, .cron_jobs = input.cron_jobs});
  if (!workloads.ok()) return workloads.error();
  plan.workloads = std::move(*workloads);
  if (input.capacity_template) {
    std::set<std::string> names;
    for (const api::Pod& p : c.pods) {
      names.insert(p.metadata.ns + "/" + p.metadata.name);
    }
    std::set<std::string> claim_templates;
    for (const api::ResourceClaimTemplate& t : c.resource_claim_templates) {
      claim_templates.insert(t.metadata.ns + "/" + t.metadata.name);
    }
    for (const api::ResourceClaimTemplate& t : input.capacity_claim_templates) {
      if (claim_templates.insert(t.metadata.ns + "/" + t.metadata.name)
              .second) {
        c.resource_claim_templates.push_back(t);
      }
    }
    const api::Pod& t = *input.capacity_template;
    const int copies =
        std::min(input.capacity_copies,
                 CapacityUpperBound(
                     c, t, framework::ResourceFeaturesOf(input.features)) +
                     1);
    int index = 1;
    for (int added = 0; added < copies; ++index) {
      api::Pod pod = t;
      pod.metadata.name = t.metadata.name + "-" + std::to_string(index);
      const std::string key = pod.metadata.ns + "/" + pod.metadata.name;
      if (names.count(key)) continue;
      pod.metadata.uid = "pod-" + pod.metadata.ns + "-" + pod.metadata.name;
      pod.metadata.creation_timestamp = {};
      pod.spec.node_name.clear();
      names.insert(key);
      plan.capacity_pods.push_back(key);
      c.pods.push_back(std::move(pod));
      ++added;
    }
    if (auto s = ResolvePriorities(c); !s.ok()) return s.error();
  }
  const std::set<std::string> copies(plan.capacity_pods.begin(),
                                     plan.capacity_pods.end());
  for (size_t i = 0; i < c.pods.size(); ++i) {
    api::Pod& pod = c.pods[i];
    const std::string key = pod.metadata.ns + "/" + pod.metadata.name;
    if (i < before && !made.count(key)) continue;
    bool served = false;
    for (const config::Profile& p : cfg.profiles) {
      served |= p.scheduler_name == pod.spec.scheduler_name;
    }
    if (!served) {
      pod.spec.scheduler_name = cfg.profiles.front().scheduler_name;
      if (copies.count(key)) {
        plan.capacity_reassigned = true;
      } else {
        ++plan.reassigned;
      }
    }
  }
  return plan;
}

util::Result<api::Pod> LoadCapacityTemplate(
    const std::string& path,
    std::vector<api::ResourceClaimTemplate>* claim_templates,
    std::vector<std::string>* notes) {
  auto file = LoadClusterFile(path);
  if (!file.ok()) return file.error();
  if (notes != nullptr) {
    notes->insert(notes->end(), file->read_notes.begin(),
                  file->read_notes.end());
  }
  if (claim_templates != nullptr) {
    *claim_templates = std::move(file->resource_claim_templates);
  }
  // One pod to copy: a file of several would leave the others unasked.
  std::vector<std::string> found;
  for (const auto& [kind, n] :
       {std::pair{"Pod", file->pods.size()},
        std::pair{"Deployment", file->deployments.size()},
        std::pair{"ReplicaSet", file->replica_sets.size()},
        std::pair{"StatefulSet", file->stateful_sets.size()},
        std::pair{"DaemonSet", file->daemon_sets.size()},
        std::pair{"Job", file->jobs.size()}}) {
    if (n > 0)
      found.push_back(std::to_string(n) + " " + kind + (n == 1 ? "" : "s"));
  }
  const size_t count = file->pods.size() + file->deployments.size() +
                       file->replica_sets.size() + file->stateful_sets.size() +
                       file->daemon_sets.size() + file->jobs.size();
  if (count > 1) {
    std::string kinds;
    for (const std::string& f : found) kinds += (kinds.empty() ? "" : ", ") + f;
    return util::Error("--capacity " + path +
                       " must hold one Pod or workload, not " +
                       std::to_string(count) + " (" + kinds + ")");
  }
  auto from = [](const api::ObjectMeta& owner, const api::PodTemplateSpec& t) {
    api::Pod pod;
    pod.metadata.name = owner.name;
    pod.metadata.ns = owner.ns.empty() ? "default" : owner.ns;
    pod.metadata.labels = t.metadata.labels;
    pod.metadata.annotations = t.metadata.annotations;
    pod.spec = t.spec;
    if (pod.spec.scheduler_name.empty()) {
      pod.spec.scheduler_name = std::string(api::kDefaultSchedulerName);
    }
    return pod;
  };
  if (!file->pods.empty()) {
    api::Pod pod = file->pods.front();
    pod.status = {};
    pod.metadata.owner_references.clear();
    pod.spec.priority.reset();  // resolved again in the cluster planned
    return pod;
  }
  if (!file->deployments.empty()) {
    return from(file->deployments[0].metadata,
                file->deployments[0].spec.pod_template);
  }
  if (!file->replica_sets.empty()) {
    return from(file->replica_sets[0].metadata,
                file->replica_sets[0].spec.pod_template);
  }
  if (!file->stateful_sets.empty()) {
    return from(file->stateful_sets[0].metadata,
                file->stateful_sets[0].spec.pod_template);
  }
  if (!file->daemon_sets.empty()) {
    return from(file->daemon_sets[0].metadata,
                file->daemon_sets[0].spec.pod_template);
  }
  if (!file->jobs.empty()) {
    return from(file->jobs[0].metadata, file->jobs[0].spec.pod_template);
  }
  return util::Error("--capacity " + path +
                     ": no Pod or workload (Deployment, ReplicaSet, "
                     "StatefulSet, DaemonSet, Job) in the file");
}

namespace {

int64_t Milli(const api::ResourceList& list, std::string_view name) {
  const api::Quantity* q = list.Find(name);
  return q == nullptr ? int64_t{0} : q->MilliValue();
}

void AddTo(api::ResourceList& sum, const api::ResourceList& more) {
  for (const auto& [name, q] : more) {
    sum.Set(name, api::Quantity::FromMilli(Milli(sum, name) + q.MilliValue()));
  }
}

// What the pods running on each node hold, as the scheduler counts it.
struct NodeUsage {
  std::map<std::string, api::ResourceList> requested;
  std::map<std::string, int64_t> pods;
};

NodeUsage UsageOf(const Cluster& cluster,
                  const api::ResourceFeatures& features) {
  const api::PodResourcesOptions held = api::PodResourcesOptionsFor(features);
  NodeUsage usage;
  for (const api::Pod& p : cluster.pods) {
    if (p.spec.node_name.empty() || p.status.phase == api::kPodPhaseSucceeded ||
        p.status.phase == api::kPodPhaseFailed) {
      continue;
    }
    ++usage.pods[p.spec.node_name];
    AddTo(usage.requested[p.spec.node_name], api::PodRequests(p, held));
  }
  return usage;
}

// A pending pod's requests as NodeResourcesFit asks for them.
api::ResourceList Wanted(const api::Pod& pod,
                         const api::ResourceFeatures& features) {
  api::PodResourcesOptions options;
  options.skip_pod_level_resources = !features.pod_level_resources;
  return api::PodRequests(pod, options);
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

int CapacityUpperBound(const Cluster& cluster, const api::Pod& pod,
                       const api::ResourceFeatures& features) {
  const api::ResourceList want = Wanted(pod, features);
  NodeUsage used = UsageOf(cluster, features);
  int64_t total = 0;
  for (const api::Node& node : cluster.nodes) {
    const api::ResourceList& alloc = node.status.allocatable;
    const std::string& name = node.metadata.name;
    int64_t fits = Milli(alloc, api::kResourcePods) / 1000 - used.pods[name];
    for (const auto& [resource, q] : want) {
      const int64_t need = q.MilliValue();
      if (need <= 0) continue;
      const int64_t room =
          Milli(alloc, resource) - Milli(used.requested[name], resource);
      fits = std::min(fits, room / need);
    }
    total += std::max<int64_t>(0, fits);
  }
  return static_cast<int>(std::min<int64_t>(
      std::min<int64_t>(total, std::numeric_limits<int>::max() - 1),
      DeviceCapacityUpperBound(cluster, pod)));
}

int NodeCountLowerBound(const Cluster& cluster, const api::Node& node_template,
                        const std::vector<api::ResourceSlice>& template_slices,
                        const std::set<std::string>& pods,
                        const api::ResourceFeatures& features) {
  // What the pods ask for: their requests, a slot each, and the devices of
  // their claims (each claim once: a claim several pods share is
  // allocated once).
  api::ResourceList demand;
  int64_t slots = 0;
  int64_t devices = 0;
  std::set<std::string> claims_counted;
  auto count_claim = [&](const std::string& key,
                         const api::ResourceClaimSpec& spec) {
    if (!claims_counted.insert(key).second) return;
    if (auto n = FewestDevices(spec)) devices += *n;
  };
  for (const api::Pod& p : cluster.pods) {
    const std::string key = p.metadata.ns + "/" + p.metadata.name;
    if (!p.spec.node_name.empty() || !pods.count(key)) continue;
    ++slots;
    AddTo(demand, Wanted(p, features));
    for (const api::PodResourceClaim& c : p.spec.resource_claims) {
      if (c.resource_claim_name) {
        for (const api::ResourceClaim& claim : cluster.resource_claims) {
          if (claim.metadata.ns == p.metadata.ns &&
              claim.metadata.name == *c.resource_claim_name &&
              !claim.status.allocation) {
            count_claim(p.metadata.ns + "/" + claim.metadata.name, claim.spec);
          }
        }
      } else if (c.resource_claim_template_name) {
        for (const api::ResourceClaimTemplate& t :
             cluster.resource_claim_templates) {
          if (t.metadata.ns == p.metadata.ns &&
              t.metadata.name == *c.resource_claim_template_name) {
            count_claim(key + "/" + c.name, t.spec.spec);
          }
        }
      }
    }
  }
  // What the cluster has free, and what one template node brings.
  NodeUsage used = UsageOf(cluster, features);
  api::ResourceList free;
  int64_t free_slots = 0;
  for (const api::Node& node : cluster.nodes) {
    const std::string& name = node.metadata.name;
    free_slots += std::max<int64_t>(
        0, Milli(node.status.allocatable, api::kResourcePods) / 1000 -
               used.pods[name]);
    for (const auto& [resource, q] : demand) {
      const int64_t room = Milli(node.status.allocatable, resource) -
                           Milli(used.requested[name], resource);
      if (room > 0) {
        free.Set(resource,
                 api::Quantity::FromMilli(Milli(free, resource) + room));
      }
    }
  }
  int64_t bound = 1;
  // Resources the template node does not have bound nothing here: the
  // pods that ask for them are those no such node can take.
  auto raise = [&](int64_t wanted, int64_t have, int64_t per_node) {
    if (wanted > have && per_node > 0) {
      bound = std::max(bound, CeilDiv(wanted - have, per_node));
    }
  };
  const api::ResourceList& brings = node_template.status.allocatable;
  raise(slots, free_slots, Milli(brings, api::kResourcePods) / 1000);
  for (const auto& [resource, q] : demand) {
    raise(q.MilliValue(), Milli(free, resource), Milli(brings, resource));
  }
  int64_t template_devices = 0;
  for (const api::ResourceSlice& s : template_slices) {
    template_devices += static_cast<int64_t>(s.spec.devices.size());
  }
  raise(devices, FreeDevices(cluster), template_devices);
  return static_cast<int>(
      std::min<int64_t>(bound, std::numeric_limits<int>::max() - 1));
}

}  // namespace ksched::simulator
