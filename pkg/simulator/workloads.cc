#include "pkg/simulator/workloads.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <random>
#include <set>

#include "pkg/api/codec.h"
#include "pkg/api/label_selector.h"
#include "pkg/api/node_selector.h"
#include "pkg/api/taints.h"

namespace ksched::simulator {
namespace {

uint32_t Fnv32a(std::string_view data) {
  uint32_t h = 2166136261u;
  for (unsigned char c : data) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

uint64_t Fnv64a(std::string_view data) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// utilrand.String(5), from a generator seeded per workload.
class Suffixes {
 public:
  Suffixes(uint64_t seed, std::string_view workload)
      : rng_(seed ^ Fnv64a(workload)) {}
  std::string Next() {
    std::string out;
    for (int i = 0; i < 5; ++i) {
      out += kNameAlphabet[rng_() % kNameAlphabet.size()];
    }
    return out;
  }

 private:
  std::mt19937_64 rng_;
};

api::OwnerReference ControllerRef(std::string api_version, std::string kind,
                                  const api::ObjectMeta& owner) {
  api::OwnerReference ref;
  ref.api_version = std::move(api_version);
  ref.kind = std::move(kind);
  ref.name = owner.name;
  ref.uid = owner.uid;
  ref.controller = true;
  ref.block_owner_deletion = true;
  return ref;
}

std::string UidOf(const api::ObjectMeta& m, std::string_view kind) {
  if (!m.uid.empty()) return m.uid;
  std::string lower;
  for (char c : kind) lower += static_cast<char>(std::tolower(c));
  return lower + "-" + m.ns + "-" + m.name;
}

bool Terminal(const api::Pod& pod) {
  return pod.status.phase == api::kPodPhaseSucceeded ||
         pod.status.phase == api::kPodPhaseFailed;
}

// The controller's owner reference on `pod`, if it names kind/name.
bool OwnedBy(const api::Pod& pod, std::string_view kind,
             const std::function<bool(const std::string&)>& name_matches) {
  for (const api::OwnerReference& ref : pod.metadata.owner_references) {
    if (ref.controller.value_or(false) && ref.kind == kind &&
        name_matches(ref.name)) {
      return true;
    }
  }
  return false;
}

// The selector must select the template's labels, as validation demands.
util::Status CheckSelector(const std::optional<api::LabelSelector>& selector,
                           const api::PodTemplateSpec& t,
                           const std::string& what) {
  // "Deployment shop/web" -> "deployment", as the API server words it.
  std::string kind = what.substr(0, what.find(' '));
  for (char& c : kind) c = static_cast<char>(std::tolower(c));
  if (!selector.has_value()) {
    return util::Error(what + ": spec.selector: Required value");
  }
  auto compiled = api::Selector::FromLabelSelector(&*selector);
  if (!compiled.ok()) {
    return util::Error(what + ": spec.selector: " + compiled.error().message());
  }
  if (compiled->IsEverything()) {
    return util::Error(what +
                       ": spec.selector: Invalid value: empty selector is "
                       "invalid for " +
                       kind);
  }
  if (!compiled->Matches(t.metadata.labels)) {
    return util::Error(what +
                       ": spec.template.metadata.labels: Invalid value: "
                       "`selector` does not match template `labels`");
  }
  return util::Status();
}

util::Status CheckReplicas(std::optional<int32_t> n, const std::string& what,
                           const char* field) {
  if (n.has_value() && *n < 0) {
    return util::Error(what + ": spec." + field +
                       ": Invalid value: must be greater than or equal to 0");
  }
  return util::Status();
}

// What the API server's validation refuses in a replicated workload.
util::Status CheckWorkload(std::optional<int32_t> replicas,
                           const std::optional<api::LabelSelector>& selector,
                           const api::PodTemplateSpec& t,
                           const std::string& what) {
  if (auto s = CheckReplicas(replicas, what, "replicas"); !s.ok()) return s;
  return CheckSelector(selector, t, what);
}

class Expander {
 public:
  Expander(Cluster& cluster, const ExpandOptions& options)
      : cluster_(cluster), options_(options) {
    for (const api::Pod& p : cluster_.pods) {
      names_.insert(p.metadata.ns + "/" + p.metadata.name);
    }
    for (const auto& c : cluster_.persistent_volume_claims) {
      claims_.insert(c.metadata.ns + "/" + c.metadata.name);
    }
  }

  util::Status Deployment(const api::Deployment& d) {
    const std::string what =
        "Deployment " + d.metadata.ns + "/" + d.metadata.name;
    if (auto s = CheckWorkload(d.spec.replicas, d.spec.selector,
                               d.spec.pod_template, what);
        !s.ok()) {
      return s;
    }
    // The ReplicaSet the Deployment controller makes for this template.
    const std::string hash = TemplateHash(d.spec.pod_template);
    api::ObjectMeta rs;
    rs.ns = d.metadata.ns;
    rs.name = d.metadata.name + "-" + hash;
    rs.uid = "replicaset-" + rs.ns + "-" + rs.name;
    WorkloadPods w =
        Begin("Deployment", d.metadata, d.spec.replicas.value_or(1));
    auto compiled = api::Selector::FromLabelSelector(&*d.spec.selector);
    // Pods of any of its ReplicaSets count, as the Deployment's replicas.
    const std::string prefix = d.metadata.name + "-";
    CountExisting(w, [&](const api::Pod& p) {
      return p.metadata.ns == d.metadata.ns &&
             compiled->Matches(p.metadata.labels) &&
             OwnedBy(p, "ReplicaSet", [&](const std::string& n) {
               return n.starts_with(prefix);
             });
    });
    Suffixes suffixes(options_.seed, "Deployment/" + rs.ns + "/" + rs.name);
    for (int i = w.existing; i < w.desired; ++i) {
      api::Pod pod = FromTemplate(d.spec.pod_template, rs.ns,
                                  UniqueName(rs.ns, rs.name, suffixes));
      pod.metadata.labels.Set("pod-template-hash", hash);
      pod.metadata.owner_references.push_back(
          ControllerRef("apps/v1", "ReplicaSet", rs));
      Add(w, std::move(pod));
    }
    out_.push_back(std::move(w));
    return util::Status();
  }

  util::Status ReplicaSet(const api::ReplicaSet& r,
                          const std::set<std::string>& deployments) {
    // A ReplicaSet a Deployment of the file owns is that Deployment's.
    for (const api::OwnerReference& ref : r.metadata.owner_references) {
      if (ref.kind == "Deployment" &&
          deployments.count(r.metadata.ns + "/" + ref.name)) {
        return util::Status();
      }
    }
    const std::string what =
        "ReplicaSet " + r.metadata.ns + "/" + r.metadata.name;
    if (auto s = CheckWorkload(r.spec.replicas, r.spec.selector,
                               r.spec.pod_template, what);
        !s.ok()) {
      return s;
    }
    api::ObjectMeta meta = r.metadata;
    meta.uid = UidOf(meta, "ReplicaSet");
    WorkloadPods w = Begin("ReplicaSet", meta, r.spec.replicas.value_or(1));
    CountExisting(w, [&](const api::Pod& p) {
      return p.metadata.ns == meta.ns &&
             OwnedBy(p, "ReplicaSet",
                     [&](const std::string& n) { return n == meta.name; });
    });
    Suffixes suffixes(options_.seed, "ReplicaSet/" + meta.ns + "/" + meta.name);
    for (int i = w.existing; i < w.desired; ++i) {
      api::Pod pod = FromTemplate(r.spec.pod_template, meta.ns,
                                  UniqueName(meta.ns, meta.name, suffixes));
      pod.metadata.owner_references.push_back(
          ControllerRef("apps/v1", "ReplicaSet", meta));
      Add(w, std::move(pod));
    }
    out_.push_back(std::move(w));
    return util::Status();
  }

  util::Status StatefulSet(const api::StatefulSet& s) {
    const std::string what =
        "StatefulSet " + s.metadata.ns + "/" + s.metadata.name;
    if (auto r = CheckWorkload(s.spec.replicas, s.spec.selector,
                               s.spec.pod_template, what);
        !r.ok()) {
      return r;
    }
    api::ObjectMeta meta = s.metadata;
    meta.uid = UidOf(meta, "StatefulSet");
    WorkloadPods w = Begin("StatefulSet", meta, s.spec.replicas.value_or(1));
    const std::string revision =
        meta.name + "-" + TemplateHash(s.spec.pod_template);
    for (int ordinal = 0; ordinal < w.desired; ++ordinal) {
      const std::string name = meta.name + "-" + std::to_string(ordinal);
      const std::string key = meta.ns + "/" + name;
      if (names_.count(key)) {
        // The ordinal exists: the controller leaves it be.
        ++w.existing;
        w.pods.push_back(key);
        continue;
      }
      api::Pod pod = FromTemplate(s.spec.pod_template, meta.ns, name);
      pod.metadata.labels.Set("controller-revision-hash", revision);
      pod.metadata.labels.Set("statefulset.kubernetes.io/pod-name", name);
      pod.metadata.labels.Set("apps.kubernetes.io/pod-index",
                              std::to_string(ordinal));
      pod.metadata.owner_references.push_back(
          ControllerRef("apps/v1", "StatefulSet", meta));
      for (const api::PersistentVolumeClaim& t :
           s.spec.volume_claim_templates) {
        const std::string claim = t.metadata.name + "-" + name;
        AddClaim(t, meta, s.spec.selector, claim);
        bool replaced = false;
        for (api::Volume& v : pod.spec.volumes) {
          if (v.name != t.metadata.name) continue;
          v = api::Volume{};
          v.name = t.metadata.name;
          v.persistent_volume_claim.emplace();
          v.persistent_volume_claim->claim_name = claim;
          replaced = true;
        }
        if (!replaced) {
          api::Volume v;
          v.name = t.metadata.name;
          v.persistent_volume_claim.emplace();
          v.persistent_volume_claim->claim_name = claim;
          pod.spec.volumes.push_back(std::move(v));
        }
      }
      names_.insert(key);
      w.pods.push_back(key);
      cluster_.pods.push_back(std::move(pod));
    }
    out_.push_back(std::move(w));
    return util::Status();
  }

  util::Status DaemonSet(const api::DaemonSet& d) {
    const std::string what =
        "DaemonSet " + d.metadata.ns + "/" + d.metadata.name;
    if (auto r = CheckSelector(d.spec.selector, d.spec.pod_template, what);
        !r.ok()) {
      return r;
    }
    api::ObjectMeta meta = d.metadata;
    meta.uid = UidOf(meta, "DaemonSet");
    WorkloadPods w = Begin("DaemonSet", meta, 0);
    // Nodes that already run (or wait for) one of its pods.
    std::map<std::string, std::string> on_node;
    for (const api::Pod& p : cluster_.pods) {
      if (p.metadata.ns != meta.ns || Terminal(p) ||
          !OwnedBy(p, "DaemonSet",
                   [&](const std::string& n) { return n == meta.name; })) {
        continue;
      }
      const std::string node =
          p.spec.node_name.empty() ? PinnedNode(p) : p.spec.node_name;
      on_node.emplace(node, p.metadata.ns + "/" + p.metadata.name);
    }
    const std::string hash = TemplateHash(d.spec.pod_template);
    const std::string generation =
        std::to_string(meta.generation > 0 ? meta.generation : 1);
    Suffixes suffixes(options_.seed, "DaemonSet/" + meta.ns + "/" + meta.name);
    for (const api::Node& node : cluster_.nodes) {
      api::Pod pod = FromTemplate(d.spec.pod_template, meta.ns, "");
      AddDaemonTolerations(pod);
      if (!ShouldRunOn(pod, node)) continue;
      ++w.desired;
      if (auto it = on_node.find(node.metadata.name); it != on_node.end()) {
        ++w.existing;
        w.pods.push_back(it->second);
        continue;
      }
      pod.metadata.name = UniqueName(meta.ns, meta.name, suffixes);
      pod.metadata.uid = "pod-" + meta.ns + "-" + pod.metadata.name;
      pod.metadata.labels.Set("controller-revision-hash", hash);
      pod.metadata.labels.Set("pod-template-generation", generation);
      pod.metadata.owner_references.push_back(
          ControllerRef("apps/v1", "DaemonSet", meta));
      PinToNode(pod, node.metadata.name);
      Add(w, std::move(pod));
    }
    out_.push_back(std::move(w));
    return util::Status();
  }

  util::Status Job(const api::ObjectMeta& job_meta, const api::JobSpec& spec,
                   const std::string& kind_shown) {
    const std::string what = "Job " + job_meta.ns + "/" + job_meta.name;
    if (auto r = CheckReplicas(spec.parallelism, what, "parallelism");
        !r.ok()) {
      return r;
    }
    if (auto r = CheckReplicas(spec.completions, what, "completions");
        !r.ok()) {
      return r;
    }
    api::ObjectMeta meta = job_meta;
    meta.uid = UidOf(meta, "Job");
    // Pods running at once: parallelism, no more than the completions.
    int32_t active = spec.parallelism.value_or(1);
    if (spec.completions.has_value())
      active = std::min(active, *spec.completions);
    WorkloadPods w = Begin(kind_shown, meta, active);
    CountExisting(w, [&](const api::Pod& p) {
      return p.metadata.ns == meta.ns &&
             OwnedBy(p, "Job",
                     [&](const std::string& n) { return n == meta.name; });
    });
    const bool indexed = spec.completion_mode == "Indexed";
    Suffixes suffixes(options_.seed, "Job/" + meta.ns + "/" + meta.name);
    for (int i = w.existing; i < w.desired; ++i) {
      const std::string base =
          indexed ? meta.name + "-" + std::to_string(i) : meta.name;
      api::Pod pod = FromTemplate(spec.pod_template, meta.ns,
                                  UniqueName(meta.ns, base, suffixes));
      api::StringMap& labels = pod.metadata.labels;
      labels.Set("batch.kubernetes.io/controller-uid", meta.uid);
      labels.Set("batch.kubernetes.io/job-name", meta.name);
      labels.Set("controller-uid", meta.uid);
      labels.Set("job-name", meta.name);
      if (indexed) {
        labels.Set("batch.kubernetes.io/job-completion-index",
                   std::to_string(i));
        pod.metadata.annotations.Set("batch.kubernetes.io/job-completion-index",
                                     std::to_string(i));
      }
      pod.metadata.owner_references.push_back(
          ControllerRef("batch/v1", "Job", meta));
      Add(w, std::move(pod));
    }
    out_.push_back(std::move(w));
    return util::Status();
  }

  util::Status CronJob(const api::CronJob& c) {
    // The Job the CronJob controller would start for a run now: named
    // after the scheduled time in minutes since the epoch.
    int64_t now = options_.now_unix_seconds;
    if (now == 0) {
      now = std::chrono::duration_cast<std::chrono::seconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
    }
    api::ObjectMeta job = c.spec.job_template.metadata;
    job.ns = c.metadata.ns;
    job.name = c.metadata.name + "-" + std::to_string(now / 60);
    job.uid = "job-" + job.ns + "-" + job.name;
    return Job(job, c.spec.job_template.spec, "CronJob " + c.metadata.name);
  }

  std::vector<WorkloadPods> Finish() { return std::move(out_); }

 private:
  WorkloadPods Begin(std::string kind, const api::ObjectMeta& meta,
                     int desired) {
    WorkloadPods w;
    w.kind = std::move(kind);
    w.ns = meta.ns;
    w.name = meta.name;
    w.desired = desired;
    return w;
  }

  void CountExisting(WorkloadPods& w,
                     const std::function<bool(const api::Pod&)>& owned) {
    for (const api::Pod& p : cluster_.pods) {
      if (Terminal(p) || !owned(p)) continue;
      ++w.existing;
      w.pods.push_back(p.metadata.ns + "/" + p.metadata.name);
    }
  }

  // A fresh name: generateName's suffix, drawn again on a collision.
  std::string UniqueName(const std::string& ns, const std::string& base,
                         Suffixes& suffixes) {
    while (true) {
      std::string name = base + "-" + suffixes.Next();
      if (!names_.count(ns + "/" + name)) return name;
    }
  }

  api::Pod FromTemplate(const api::PodTemplateSpec& t, const std::string& ns,
                        const std::string& name) {
    api::Pod pod;
    pod.metadata.labels = t.metadata.labels;
    pod.metadata.annotations = t.metadata.annotations;
    pod.metadata.ns = ns;
    pod.metadata.name = name;
    pod.metadata.uid = "pod-" + ns + "-" + name;
    pod.spec = t.spec;
    pod.spec.node_name.clear();
    if (pod.spec.scheduler_name.empty()) {
      pod.spec.scheduler_name = std::string(api::kDefaultSchedulerName);
    }
    pod.status.phase = std::string(api::kPodPhasePending);
    return pod;
  }

  void Add(WorkloadPods& w, api::Pod pod) {
    const std::string key = pod.metadata.ns + "/" + pod.metadata.name;
    names_.insert(key);
    w.pods.push_back(key);
    cluster_.pods.push_back(std::move(pod));
  }

  void AddClaim(const api::PersistentVolumeClaim& t,
                const api::ObjectMeta& owner,
                const std::optional<api::LabelSelector>& selector,
                const std::string& name) {
    const std::string key = owner.ns + "/" + name;
    if (!claims_.insert(key).second) return;  // already there: kept
    api::PersistentVolumeClaim claim = t;
    claim.metadata.name = name;
    claim.metadata.ns = owner.ns;
    claim.metadata.uid = "pvc-" + owner.ns + "-" + name;
    if (selector.has_value()) {
      for (const auto& [k, v] : selector->match_labels) {
        claim.metadata.labels.Set(k, v);
      }
    }
    claim.status = {};
    claim.status.phase = "Pending";
    cluster_.persistent_volume_claims.push_back(std::move(claim));
  }

  // util.AddOrUpdateDaemonPodTolerations.
  static void AddDaemonTolerations(api::Pod& pod) {
    auto add = [&pod](const char* key, api::TaintEffect effect) {
      for (const api::Toleration& t : pod.spec.tolerations) {
        if (t.key == key && t.op == api::TolerationOperator::kExists &&
            t.effect == effect) {
          return;
        }
      }
      api::Toleration t;
      t.key = key;
      t.op = api::TolerationOperator::kExists;
      t.effect = effect;
      pod.spec.tolerations.push_back(std::move(t));
    };
    add("node.kubernetes.io/not-ready", api::TaintEffect::kNoExecute);
    add("node.kubernetes.io/unreachable", api::TaintEffect::kNoExecute);
    add("node.kubernetes.io/disk-pressure", api::TaintEffect::kNoSchedule);
    add("node.kubernetes.io/memory-pressure", api::TaintEffect::kNoSchedule);
    add("node.kubernetes.io/pid-pressure", api::TaintEffect::kNoSchedule);
    add("node.kubernetes.io/unschedulable", api::TaintEffect::kNoSchedule);
    if (pod.spec.host_network) {
      add("node.kubernetes.io/network-unavailable",
          api::TaintEffect::kNoSchedule);
    }
  }

  // NodeShouldRunDaemonPod's predicates: node name, node affinity and
  // selector, and NoSchedule/NoExecute taints the pod does not tolerate.
  static bool ShouldRunOn(const api::Pod& pod, const api::Node& node) {
    if (!pod.spec.node_name.empty() &&
        pod.spec.node_name != node.metadata.name) {
      return false;
    }
    if (!api::RequiredNodeAffinity(pod).Matches(node)) return false;
    return api::FindMatchingUntoleratedTaint(
               node.spec.taints, pod.spec.tolerations, [](const api::Taint& t) {
                 return t.effect == api::TaintEffect::kNoSchedule ||
                        t.effect == api::TaintEffect::kNoExecute;
               }) == nullptr;
  }

  // util.ReplaceDaemonSetPodNodeNameNodeAffinity: one term, matching the
  // node by name, in place of whatever required terms the template had.
  static void PinToNode(api::Pod& pod, const std::string& node) {
    api::NodeSelectorRequirement by_name;
    by_name.key = "metadata.name";
    by_name.op = api::NodeSelectorOperator::kIn;
    by_name.values = {node};
    api::NodeSelectorTerm term;
    term.match_fields.push_back(std::move(by_name));
    if (!pod.spec.affinity) pod.spec.affinity.emplace();
    if (!pod.spec.affinity->node_affinity) {
      pod.spec.affinity->node_affinity.emplace();
    }
    api::NodeSelector required;
    required.node_selector_terms.push_back(std::move(term));
    pod.spec.affinity->node_affinity->required = std::move(required);
  }

  // The node a pending DaemonSet pod is pinned to by its affinity.
  static std::string PinnedNode(const api::Pod& pod) {
    if (!pod.spec.affinity || !pod.spec.affinity->node_affinity ||
        !pod.spec.affinity->node_affinity->required) {
      return "";
    }
    for (const api::NodeSelectorTerm& term :
         pod.spec.affinity->node_affinity->required->node_selector_terms) {
      for (const api::NodeSelectorRequirement& r : term.match_fields) {
        if (r.key == "metadata.name" && r.values.size() == 1) {
          return r.values.front();
        }
      }
    }
    return "";
  }

  Cluster& cluster_;
  const ExpandOptions& options_;
  std::set<std::string> names_;   // namespace/name of every pod
  std::set<std::string> claims_;  // namespace/name of every claim
  std::vector<WorkloadPods> out_;
};

}  // namespace

std::string TemplateHash(const api::PodTemplateSpec& pod_template,
                         std::string_view salt) {
  api::Pod as_pod;
  as_pod.metadata = pod_template.metadata;
  as_pod.spec = pod_template.spec;
  const uint32_t hash = Fnv32a(api::EncodeJson(as_pod) + std::string(salt));
  // rand.SafeEncodeString(fmt.Sprint(hash)).
  std::string out;
  for (char c : std::to_string(hash)) {
    out += kNameAlphabet[static_cast<unsigned char>(c) % kNameAlphabet.size()];
  }
  return out;
}

util::Result<std::vector<WorkloadPods>> ExpandWorkloads(
    Cluster& cluster, const ExpandOptions& options) {
  Expander e(cluster, options);
  std::set<std::string> deployments;
  for (const api::Deployment& d : cluster.deployments) {
    deployments.insert(d.metadata.ns + "/" + d.metadata.name);
  }
  // Controllers create pods in the order their workloads were created:
  // by creationTimestamp where the file gives one (those without after),
  // then in file order. The pods enter the queue in that order.
  std::vector<WorkloadRef> order = WorkloadsInFileOrder(cluster);
  std::stable_sort(
      order.begin(), order.end(),
      [&](const WorkloadRef& a, const WorkloadRef& b) {
        const api::Time& ta = WorkloadMeta(cluster, a).creation_timestamp;
        const api::Time& tb = WorkloadMeta(cluster, b).creation_timestamp;
        if (ta.IsZero() != tb.IsZero()) return tb.IsZero();
        return ta.value < tb.value;
      });
  for (const WorkloadRef& ref : order) {
    util::Status s;
    switch (ref.kind) {
      case WorkloadRef::Kind::kDeployment:
        s = e.Deployment(cluster.deployments[ref.index]);
        break;
      case WorkloadRef::Kind::kReplicaSet:
        s = e.ReplicaSet(cluster.replica_sets[ref.index], deployments);
        break;
      case WorkloadRef::Kind::kStatefulSet:
        s = e.StatefulSet(cluster.stateful_sets[ref.index]);
        break;
      case WorkloadRef::Kind::kDaemonSet:
        s = e.DaemonSet(cluster.daemon_sets[ref.index]);
        break;
      case WorkloadRef::Kind::kJob: {
        const api::Job& j = cluster.jobs[ref.index];
        s = e.Job(j.metadata, j.spec, "Job");
        break;
      }
      case WorkloadRef::Kind::kCronJob:
        if (options.cron_jobs) s = e.CronJob(cluster.cron_jobs[ref.index]);
        break;
    }
    if (!s.ok()) return s.error();
  }
  if (auto s = ResolvePriorities(cluster); !s.ok()) return s.error();
  return e.Finish();
}

}  // namespace ksched::simulator
