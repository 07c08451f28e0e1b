#include "pkg/simulator/changes.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "pkg/simulator/workloads.h"

namespace ksched::simulator {
namespace {

constexpr std::string_view kUnschedulableTaint =
    "node.kubernetes.io/unschedulable";

const api::OwnerReference* Controller(const api::Pod& pod) {
  for (const api::OwnerReference& ref : pod.metadata.owner_references) {
    if (ref.controller.value_or(false)) return &ref;
  }
  return nullptr;
}

bool HasFinished(const api::Pod& pod) {
  return pod.status.phase == api::kPodPhaseSucceeded ||
         pod.status.phase == api::kPodPhaseFailed;
}

// The API server's copy of a kubelet's static pod.
bool IsMirrorPod(const api::Pod& pod) {
  return pod.metadata.annotations.Find("kubernetes.io/config.mirror") !=
         nullptr;
}

// kubectl cordon, and the taint the node lifecycle controller then adds.
void Cordon(api::Node& node) {
  node.spec.unschedulable = true;
  for (const api::Taint& t : node.spec.taints) {
    if (t.key == kUnschedulableTaint) return;
  }
  api::Taint taint;
  taint.key = std::string(kUnschedulableTaint);
  taint.effect = api::TaintEffect::kNoSchedule;
  node.spec.taints.push_back(std::move(taint));
}

}  // namespace

util::Result<api::Node> LoadNodeTemplate(
    const std::string& path, std::vector<api::ResourceSlice>* slices,
    std::vector<std::string>* notes) {
  auto file = LoadClusterFile(path);
  if (!file.ok()) return file.error();
  if (notes != nullptr) {
    notes->insert(notes->end(), file->read_notes.begin(),
                  file->read_notes.end());
  }
  if (file->nodes.size() != 1) {
    return util::Error("node template " + path + " must hold one Node, not " +
                       std::to_string(file->nodes.size()));
  }
  if (slices != nullptr) {
    for (api::ResourceSlice& s : file->resource_slices) {
      if (s.spec.node_name == file->nodes.front().metadata.name) {
        slices->push_back(std::move(s));
      }
    }
  }
  return std::move(file->nodes.front());
}

api::ResourceSlice CopySliceForNode(const api::ResourceSlice& slice,
                                    const std::string& from,
                                    const std::string& to) {
  auto rename = [&](const std::string& name) {
    const size_t at = from.empty() ? std::string::npos : name.find(from);
    if (at == std::string::npos) return name + "-" + to;
    return name.substr(0, at) + to + name.substr(at + from.size());
  };
  api::ResourceSlice copy = slice;
  copy.metadata.name = rename(slice.metadata.name);
  copy.metadata.uid.clear();
  copy.metadata.resource_version.clear();
  copy.metadata.owner_references.clear();
  copy.spec.node_name = to;
  copy.spec.pool.name = rename(slice.spec.pool.name);
  return copy;
}

namespace {

// Takes the pods off drained and removed nodes: each is recorded in
// out->displaced, and the pods a controller re-creates come back pending.
void DisplacePods(Cluster& cluster, const std::set<std::string>& drained,
                  const std::set<std::string>& removed, uint64_t seed,
                  AppliedChanges* out_changes) {
  AppliedChanges& out = *out_changes;
  std::set<std::string> pod_names;
  for (const api::Pod& p : cluster.pods) {
    pod_names.insert(p.metadata.ns + "/" + p.metadata.name);
  }
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  std::vector<api::Pod> kept;
  kept.reserve(cluster.pods.size());
  for (api::Pod& pod : cluster.pods) {
    const std::string& node = pod.spec.node_name;
    if (node.empty() || HasFinished(pod) ||
        (!drained.count(node) && !removed.count(node))) {
      kept.push_back(std::move(pod));
      continue;
    }
    DisplacedPod d{pod.metadata.ns + "/" + pod.metadata.name, node, "",
                   removed.count(node) ? DisplacedPod::Fate::kGoneWithNode
                                       : DisplacedPod::Fate::kDeleted};
    const api::OwnerReference* owner = Controller(pod);
    const bool daemon = owner != nullptr && owner->kind == "DaemonSet";
    if (!removed.count(node) && (daemon || IsMirrorPod(pod))) {
      // kubectl drain --ignore-daemonsets leaves these on the node.
      d.fate = daemon ? DisplacedPod::Fate::kStaysDaemon
                      : DisplacedPod::Fate::kStaysMirror;
      out.displaced.push_back(std::move(d));
      kept.push_back(std::move(pod));
      continue;
    }
    if (owner != nullptr && !daemon) {
      // The controller replaces it: a StatefulSet under the same name, the
      // others under generateName's new suffix.
      api::Pod again = pod;
      if (owner->kind != "StatefulSet") {
        std::string name;
        do {
          std::string suffix;
          for (int i = 0; i < 5; ++i) {
            suffix += kNameAlphabet[rng() % kNameAlphabet.size()];
          }
          name = owner->name + "-" + suffix;
        } while (pod_names.count(again.metadata.ns + "/" + name));
        again.metadata.name = name;
        pod_names.insert(again.metadata.ns + "/" + name);
      }
      again.metadata.uid =
          "pod-" + again.metadata.ns + "-" + again.metadata.name + "-recreated";
      again.spec.node_name.clear();
      again.status = {};
      again.status.phase = std::string(api::kPodPhasePending);
      d.recreated = again.metadata.ns + "/" + again.metadata.name;
      d.fate = DisplacedPod::Fate::kRecreated;
      kept.push_back(std::move(again));
    }
    out.displaced.push_back(std::move(d));
  }
  cluster.pods = std::move(kept);
}

}  // namespace

std::vector<api::ResourceSlice> TemplateSlices(const Cluster& cluster,
                                               const ClusterChanges& changes) {
  if (!changes.node_template) return {};
  if (!changes.node_template_slices.empty()) {
    return changes.node_template_slices;
  }
  // A template is most often `kubectl get node -o yaml` of a node the
  // cluster has: that node's slices. Slices for several nodes (a node
  // selector, all nodes) are shared, not per node: not copied.
  std::vector<api::ResourceSlice> slices;
  const std::string& name = changes.node_template->metadata.name;
  if (name.empty()) return slices;
  for (const api::ResourceSlice& s : cluster.resource_slices) {
    if (s.spec.node_name == name) slices.push_back(s);
  }
  return slices;
}

util::Result<AppliedChanges> ApplyChanges(Cluster& cluster,
                                          const ClusterChanges& changes,
                                          uint64_t seed) {
  AppliedChanges out;
  std::set<std::string> names;
  for (const api::Node& n : cluster.nodes) names.insert(n.metadata.name);
  auto check = [&](const std::vector<std::string>& nodes,
                   const char* flag) -> util::Status {
    for (const std::string& n : nodes) {
      if (!names.count(n)) {
        return util::Error(std::string(flag) + " " + n +
                           ": no such node in the cluster");
      }
    }
    return util::Status();
  };
  if (auto s = check(changes.drain, "--drain"); !s.ok()) return s.error();
  if (auto s = check(changes.remove_nodes, "--remove-node"); !s.ok()) {
    return s.error();
  }
  if (auto s = check(changes.cordon, "--cordon"); !s.ok()) return s.error();
  if (changes.add_nodes < 0) {
    return util::Error("--add-nodes must not be negative");
  }
  if (changes.add_nodes > 0 && !changes.node_template) {
    return util::Error("--add-nodes needs --node-template FILE");
  }

  const std::set<std::string> drained(changes.drain.begin(),
                                      changes.drain.end());
  const std::set<std::string> removed(changes.remove_nodes.begin(),
                                      changes.remove_nodes.end());
  const std::set<std::string> cordoned(changes.cordon.begin(),
                                       changes.cordon.end());
  for (api::Node& node : cluster.nodes) {
    if (drained.count(node.metadata.name) ||
        cordoned.count(node.metadata.name)) {
      Cordon(node);
    }
  }
  std::erase_if(cluster.nodes, [&](const api::Node& n) {
    return removed.count(n.metadata.name) != 0;
  });

  // kubectl drain refuses a node with bare pods unless forced, before it
  // evicts anything.
  if (!changes.force) {
    std::map<std::string, std::vector<std::string>> bare_on;
    for (const api::Pod& pod : cluster.pods) {
      if (drained.count(pod.spec.node_name) &&
          !removed.count(pod.spec.node_name) && !HasFinished(pod) &&
          !IsMirrorPod(pod) && Controller(pod) == nullptr) {
        bare_on[pod.spec.node_name].push_back(pod.metadata.ns + "/" +
                                              pod.metadata.name);
      }
    }
    if (!bare_on.empty()) {
      std::string message;
      for (const auto& [node, pods] : bare_on) {
        if (!message.empty()) message += "; ";
        message += "--drain " + node +
                   ": cannot delete Pods that declare no controller (use "
                   "--force to override): ";
        for (size_t i = 0; i < pods.size(); ++i) {
          message += (i ? ", " : "") + pods[i];
        }
      }
      return util::Error(message);
    }
  }

  // Pods put out of their node, in file order (none without a drain or a
  // removal: a large cluster's pods are not worth walking then).
  if (!drained.empty() || !removed.empty()) {
    DisplacePods(cluster, drained, removed, seed, &out);
  }

  // A removed node's slices: its driver and the garbage collector (they
  // are owned by the Node) take them away.
  std::erase_if(cluster.resource_slices, [&](const api::ResourceSlice& s) {
    return s.spec.node_name && removed.count(*s.spec.node_name);
  });

  if (changes.add_nodes > 0) {
    const api::Node& t = *changes.node_template;
    const std::string base =
        t.metadata.name.empty() ? std::string("node") : t.metadata.name;
    const std::vector<api::ResourceSlice> template_slices =
        TemplateSlices(cluster, changes);
    int index = 1;
    for (int added = 0; added < changes.add_nodes; ++index) {
      const std::string name = base + "-" + std::to_string(index);
      if (names.count(name)) continue;
      api::Node node = t;
      node.metadata.name = name;
      node.metadata.uid = "node-" + name;
      node.metadata.labels.Set("kubernetes.io/hostname", name);
      names.insert(name);
      out.added_nodes.push_back(name);
      cluster.nodes.push_back(std::move(node));
      for (const api::ResourceSlice& s : template_slices) {
        cluster.resource_slices.push_back(
            CopySliceForNode(s, t.metadata.name, name));
      }
      ++added;
    }
  }
  return out;
}

}  // namespace ksched::simulator
