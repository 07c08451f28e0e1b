#include "pkg/simulator/plan.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "pkg/api/pod_resources.h"
#include "pkg/api/resource_names.h"
#include "pkg/framework/pod_info.h"

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
      ++plan.reassigned;
    }
  }
  return plan;
}

util::Result<api::Pod> LoadCapacityTemplate(
    const std::string& path,
    std::vector<api::ResourceClaimTemplate>* claim_templates) {
  auto file = LoadClusterFile(path);
  if (!file.ok()) return file.error();
  if (claim_templates != nullptr) {
    *claim_templates = std::move(file->resource_claim_templates);
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

int CapacityUpperBound(const Cluster& cluster, const api::Pod& pod,
                       const api::ResourceFeatures& features) {
  api::PodResourcesOptions want_options;
  want_options.skip_pod_level_resources = !features.pod_level_resources;
  const api::ResourceList want = api::PodRequests(pod, want_options);
  const api::PodResourcesOptions held_options =
      api::PodResourcesOptionsFor(features);
  auto milli = [](const api::ResourceList& l, std::string_view name) {
    const api::Quantity* q = l.Find(name);
    return q == nullptr ? int64_t{0} : q->MilliValue();
  };
  std::map<std::string, api::ResourceList> used;
  std::map<std::string, int64_t> pods_on;
  for (const api::Pod& p : cluster.pods) {
    if (p.spec.node_name.empty() || p.status.phase == api::kPodPhaseSucceeded ||
        p.status.phase == api::kPodPhaseFailed) {
      continue;
    }
    ++pods_on[p.spec.node_name];
    api::ResourceList& u = used[p.spec.node_name];
    for (const auto& [name, q] : api::PodRequests(p, held_options)) {
      const api::Quantity* have = u.Find(name);
      u.Set(name, api::Quantity::FromMilli((have ? have->MilliValue() : 0) +
                                           q.MilliValue()));
    }
  }
  int64_t total = 0;
  for (const api::Node& node : cluster.nodes) {
    const api::ResourceList& alloc = node.status.allocatable;
    int64_t fits =
        milli(alloc, api::kResourcePods) / 1000 - pods_on[node.metadata.name];
    for (const auto& [name, q] : want) {
      const int64_t need = q.MilliValue();
      if (need <= 0) continue;
      const int64_t room =
          milli(alloc, name) - milli(used[node.metadata.name], name);
      fits = std::min(fits, room / need);
    }
    total += std::max<int64_t>(0, fits);
  }
  return static_cast<int>(std::min<int64_t>(
      std::min<int64_t>(total, std::numeric_limits<int>::max() - 1),
      DeviceCapacityUpperBound(cluster, pod)));
}

}  // namespace ksched::simulator
