#include "pkg/simulator/cluster.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <type_traits>

#include "pkg/api/codec.h"
#include "pkg/api/json_stream.h"
#include "pkg/api/yaml.h"
#include "pkg/validation/validation.h"

namespace ksched::simulator {
namespace {

constexpr size_t kMaxClusterFileBytes = 256u << 20;

// Built-in classes every API server has.
constexpr int32_t kSystemClusterCritical = 2000000000;
constexpr int32_t kSystemNodeCritical = 2000001000;

// What the API server's defaults make of a request that asks for
// ExactCount without a count (SetDefaults_ExactDeviceRequest): one device,
// which validation then takes for given. (An unset mode, which the
// allocator defaults itself, is left unset.)
void DefaultDeviceRequestCounts(api::ResourceClaimSpec& spec) {
  auto one_if_unset = [](api::DeviceAllocationMode mode, int64_t& count) {
    if (mode == api::DeviceAllocationMode::kExactCount && count == 0) {
      count = 1;
    }
  };
  for (api::DeviceRequest& r : spec.devices.requests) {
    if (r.exactly) one_if_unset(r.exactly->allocation_mode, r.exactly->count);
    for (api::DeviceSubRequest& sub : r.first_available) {
      one_if_unset(sub.allocation_mode, sub.count);
    }
  }
}

template <typename T>
void Append(std::vector<T>& into, std::vector<T>& more) {
  into.insert(into.end(), std::make_move_iterator(more.begin()),
              std::make_move_iterator(more.end()));
}

// `more`'s objects after `into`'s, its workloads' indices shifted past
// into's; names are not checked.
void AppendCluster(Cluster& into, Cluster more) {
  for (WorkloadRef ref : more.workload_order) {
    switch (ref.kind) {
      case WorkloadRef::Kind::kDeployment:
        ref.index += into.deployments.size();
        break;
      case WorkloadRef::Kind::kReplicaSet:
        ref.index += into.replica_sets.size();
        break;
      case WorkloadRef::Kind::kStatefulSet:
        ref.index += into.stateful_sets.size();
        break;
      case WorkloadRef::Kind::kDaemonSet:
        ref.index += into.daemon_sets.size();
        break;
      case WorkloadRef::Kind::kJob:
        ref.index += into.jobs.size();
        break;
      case WorkloadRef::Kind::kCronJob:
        ref.index += into.cron_jobs.size();
        break;
    }
    into.workload_order.push_back(ref);
  }
  Append(into.nodes, more.nodes);
  Append(into.pods, more.pods);
  Append(into.priority_classes, more.priority_classes);
  Append(into.namespaces, more.namespaces);
  Append(into.persistent_volume_claims, more.persistent_volume_claims);
  Append(into.persistent_volumes, more.persistent_volumes);
  Append(into.storage_classes, more.storage_classes);
  Append(into.csi_nodes, more.csi_nodes);
  Append(into.csi_drivers, more.csi_drivers);
  Append(into.volume_attachments, more.volume_attachments);
  Append(into.pod_disruption_budgets, more.pod_disruption_budgets);
  Append(into.pod_groups, more.pod_groups);
  Append(into.device_classes, more.device_classes);
  Append(into.resource_slices, more.resource_slices);
  Append(into.resource_claims, more.resource_claims);
  Append(into.resource_claim_templates, more.resource_claim_templates);
  Append(into.deployments, more.deployments);
  Append(into.replica_sets, more.replica_sets);
  Append(into.stateful_sets, more.stateful_sets);
  Append(into.daemon_sets, more.daemon_sets);
  Append(into.jobs, more.jobs);
  Append(into.cron_jobs, more.cron_jobs);
  Append(into.read_notes, more.read_notes);
  for (const auto& [kind, n] : more.ignored_kinds) {
    into.ignored_kinds[kind] += n;
  }
}

class Loader {
 public:
  util::Result<void> Add(const rapidjson::Value& obj,
                         const std::string& where) {
    if (!obj.IsObject()) return util::Error(where + ": expected an object");
    auto kind_it = obj.FindMember("kind");
    if (kind_it == obj.MemberEnd() || !kind_it->value.IsString()) {
      return util::Error(where + ": object has no kind" +
                         (where.ends_with("]")
                              ? " (items of a kind: List carry their own "
                                "kind; only a typed list such as PodList "
                                "gives it to them)"
                              : ""));
    }
    std::string kind = kind_it->value.GetString();
    if (kind == "List" || kind.ends_with("List")) {
      auto items = obj.FindMember("items");
      if (items == obj.MemberEnd() || items->value.IsNull()) return {};
      if (!items->value.IsArray()) {
        return util::Error(where + ": items: expected array");
      }
      for (rapidjson::SizeType i = 0; i < items->value.Size(); ++i) {
        auto r = AddListItem(kind, items->value[i],
                             where + ": items[" + std::to_string(i) + "]");
        if (!r.ok()) return r;
      }
      return {};
    }
    return AddKind(kind, obj, where);
  }

  // One item of a list of `list_kind` ("List", "PodList", ...).
  util::Result<void> AddListItem(const std::string& list_kind,
                                 const rapidjson::Value& item,
                                 const std::string& where) {
    // Typed lists (PodList) may leave the items' kind out.
    if (item.IsObject() && !item.HasMember("kind") && list_kind != "List" &&
        list_kind.ends_with("List")) {
      return AddKind(list_kind.substr(0, list_kind.size() - 4), item, where);
    }
    return Add(item, where);
  }

  util::Result<Cluster> Finish() {
    if (auto r = ResolvePriorities(cluster_); !r.ok()) return r.error();
    cluster_.ignored_kinds = ignored_;
    return std::move(cluster_);
  }

  // Room for `more` nodes and pods, so that absorbing loaders does not
  // move the ones already in.
  void Reserve(size_t nodes, size_t pods) {
    cluster_.nodes.reserve(cluster_.nodes.size() + nodes);
    cluster_.pods.reserve(cluster_.pods.size() + pods);
  }
  size_t nodes() const { return cluster_.nodes.size(); }
  size_t pods() const { return cluster_.pods.size(); }

  // Takes in what `more` read from the items that follow this loader's;
  // false, with this loader then unusable, when both named one object (the
  // caller reads the file again in one pass, for the error that names the
  // item).
  bool Absorb(Loader& more) {
    for (auto [into, from] :
         {std::pair{&node_names_, &more.node_names_},
          std::pair{&pod_names_, &more.pod_names_},
          std::pair{&device_class_names_, &more.device_class_names_},
          std::pair{&resource_slice_names_, &more.resource_slice_names_},
          std::pair{&resource_claim_names_, &more.resource_claim_names_},
          std::pair{&resource_claim_template_names_,
                    &more.resource_claim_template_names_}}) {
      // Moves the nodes of the set, allocating nothing; what stays in
      // `from` was already in `into`.
      into->merge(*from);
      if (!from->empty()) return false;
    }
    AppendCluster(cluster_, std::move(more.cluster_));
    for (const auto& [kind, n] : more.ignored_) ignored_[kind] += n;
    return true;
  }

 private:
  // Decodes `obj` and refuses what the API server's validation would: a
  // file is written by hand, and a negative request or an unknown operator
  // would otherwise be scheduled as if the API server had taken it.
  template <typename T>
  util::Result<T> Decode(const std::string& kind, const rapidjson::Value& obj,
                         const std::string& where) {
    api::JsonDecodeOptions options;
    options.lenient_scalars = true;  // YAML typing, as kubectl reads it
    auto decoded = api::DecodeJson<T>(obj, options);
    if (!decoded.ok()) return decoded.error().Wrap(where);
    if (const validation::FieldErrors errors =
            validation::ValidateObject(kind, obj);
        !errors.empty()) {
      return util::Error(validation::InvalidMessage(
                             kind, decoded->metadata.name, errors))
          .Wrap(where);
    }
    return decoded;
  }

  util::Result<void> AddKind(const std::string& kind,
                             const rapidjson::Value& obj,
                             const std::string& where) {
    if (kind == "Node") {
      auto node = Decode<api::Node>(kind, obj, where);
      if (!node.ok()) return node.error();
      if (node->metadata.name.empty()) {
        return util::Error(where + ": metadata.name: Required value");
      }
      if (!node_names_.insert(node->metadata.name).second) {
        return util::Error(where + ": node " + node->metadata.name +
                           " is defined twice");
      }
      if (node->metadata.uid.empty()) {
        node->metadata.uid = "node-" + node->metadata.name;
      }
      cluster_.nodes.push_back(std::move(*node));
    } else if (kind == "Pod") {
      auto pod = Decode<api::Pod>(kind, obj, where);
      if (!pod.ok()) return pod.error();
      api::ObjectMeta& m = pod->metadata;
      if (m.name.empty()) {
        return util::Error(where + ": metadata.name: Required value");
      }
      if (m.ns.empty()) m.ns = "default";
      if (!pod_names_.insert(m.ns + "/" + m.name).second) {
        return util::Error(where + ": pod " + m.ns + "/" + m.name +
                           " is defined twice");
      }
      if (m.uid.empty()) m.uid = "pod-" + m.ns + "-" + m.name;
      if (pod->spec.scheduler_name.empty()) {
        pod->spec.scheduler_name = std::string(api::kDefaultSchedulerName);
      }
      cluster_.pods.push_back(std::move(*pod));
    } else if (kind == "PriorityClass") {
      auto pc = Decode<api::PriorityClass>(kind, obj, where);
      if (!pc.ok()) return pc.error();
      cluster_.priority_classes.push_back(std::move(*pc));
    } else if (kind == "Namespace") {
      auto ns = Decode<api::Namespace>(kind, obj, where);
      if (!ns.ok()) return ns.error();
      cluster_.namespaces.push_back(std::move(*ns));
    } else if (kind == "PersistentVolumeClaim") {
      auto pvc = Decode<api::PersistentVolumeClaim>(kind, obj, where);
      if (!pvc.ok()) return pvc.error();
      if (pvc->metadata.ns.empty()) pvc->metadata.ns = "default";
      cluster_.persistent_volume_claims.push_back(std::move(*pvc));
    } else if (kind == "PersistentVolume") {
      auto pv = Decode<api::PersistentVolume>(kind, obj, where);
      if (!pv.ok()) return pv.error();
      cluster_.persistent_volumes.push_back(std::move(*pv));
    } else if (kind == "StorageClass") {
      auto sc = Decode<api::StorageClass>(kind, obj, where);
      if (!sc.ok()) return sc.error();
      cluster_.storage_classes.push_back(std::move(*sc));
    } else if (kind == "CSINode") {
      auto csi_node = Decode<api::CsiNode>(kind, obj, where);
      if (!csi_node.ok()) return csi_node.error();
      cluster_.csi_nodes.push_back(std::move(*csi_node));
    } else if (kind == "CSIDriver") {
      auto csi_driver = Decode<api::CsiDriver>(kind, obj, where);
      if (!csi_driver.ok()) return csi_driver.error();
      cluster_.csi_drivers.push_back(std::move(*csi_driver));
    } else if (kind == "VolumeAttachment") {
      auto attachment = Decode<api::VolumeAttachment>(kind, obj, where);
      if (!attachment.ok()) return attachment.error();
      cluster_.volume_attachments.push_back(std::move(*attachment));
    } else if (kind == "PodDisruptionBudget") {
      auto pdb = Decode<api::PodDisruptionBudget>(kind, obj, where);
      if (!pdb.ok()) return pdb.error();
      if (pdb->metadata.ns.empty()) pdb->metadata.ns = "default";
      cluster_.pod_disruption_budgets.push_back(std::move(*pdb));
    } else if (kind == "PodGroup") {
      auto group = Decode<api::PodGroup>(kind, obj, where);
      if (!group.ok()) return group.error();
      if (group->metadata.name.empty()) {
        return util::Error(where + ": metadata.name: Required value");
      }
      if (group->metadata.ns.empty()) group->metadata.ns = "default";
      cluster_.pod_groups.push_back(std::move(*group));
    } else if (kind == "DeviceClass") {
      return AddDra<api::DeviceClass>(kind, obj, where, cluster_.device_classes,
                                      device_class_names_, false);
    } else if (kind == "ResourceSlice") {
      return AddDra<api::ResourceSlice>(kind, obj, where,
                                        cluster_.resource_slices,
                                        resource_slice_names_, false);
    } else if (kind == "ResourceClaim") {
      return AddDra<api::ResourceClaim>(kind, obj, where,
                                        cluster_.resource_claims,
                                        resource_claim_names_, true);
    } else if (kind == "ResourceClaimTemplate") {
      return AddDra<api::ResourceClaimTemplate>(
          kind, obj, where, cluster_.resource_claim_templates,
          resource_claim_template_names_, true);
    } else if (kind == "Deployment") {
      return AddWorkload<api::Deployment>(kind, obj, where,
                                          cluster_.deployments,
                                          WorkloadRef::Kind::kDeployment);
    } else if (kind == "ReplicaSet") {
      return AddWorkload<api::ReplicaSet>(kind, obj, where,
                                          cluster_.replica_sets,
                                          WorkloadRef::Kind::kReplicaSet);
    } else if (kind == "StatefulSet") {
      return AddWorkload<api::StatefulSet>(kind, obj, where,
                                           cluster_.stateful_sets,
                                           WorkloadRef::Kind::kStatefulSet);
    } else if (kind == "DaemonSet") {
      return AddWorkload<api::DaemonSet>(kind, obj, where, cluster_.daemon_sets,
                                         WorkloadRef::Kind::kDaemonSet);
    } else if (kind == "Job") {
      return AddWorkload<api::Job>(kind, obj, where, cluster_.jobs,
                                   WorkloadRef::Kind::kJob);
    } else if (kind == "CronJob") {
      return AddWorkload<api::CronJob>(kind, obj, where, cluster_.cron_jobs,
                                       WorkloadRef::Kind::kCronJob);
    } else {
      ++ignored_[kind];
    }
    return {};
  }

  // A resource.k8s.io object, named once per kind (and namespace); a
  // ResourceClaim without a UID gets one, as the API server gives it, so
  // the scheduler can tell claims apart.
  template <typename T>
  util::Result<void> AddDra(const std::string& kind,
                            const rapidjson::Value& obj,
                            const std::string& where, std::vector<T>& into,
                            std::set<std::string>& names, bool namespaced) {
    auto object = Decode<T>(kind, obj, where);
    if (!object.ok()) return object.error();
    api::ObjectMeta& m = object->metadata;
    if (m.name.empty()) {
      return util::Error(where + ": metadata.name: Required value");
    }
    if (namespaced && m.ns.empty()) m.ns = "default";
    const std::string key = namespaced ? m.ns + "/" + m.name : m.name;
    if (!names.insert(key).second) {
      return util::Error(where + ": " + kind + " " + key + " is defined twice");
    }
    if constexpr (std::is_same_v<T, api::ResourceClaim>) {
      if (m.uid.empty()) m.uid = "claim-" + m.ns + "-" + m.name;
      DefaultDeviceRequestCounts(object->spec);
    }
    if constexpr (std::is_same_v<T, api::ResourceClaimTemplate>) {
      DefaultDeviceRequestCounts(object->spec.spec);
    }
    into.push_back(std::move(*object));
    return {};
  }

  template <typename T>
  util::Result<void> AddWorkload(const std::string& kind,
                                 const rapidjson::Value& obj,
                                 const std::string& where, std::vector<T>& into,
                                 WorkloadRef::Kind ref_kind) {
    auto w = Decode<T>(kind, obj, where);
    if (!w.ok()) return w.error();
    if (w->metadata.name.empty()) {
      return util::Error(where + ": metadata.name: Required value");
    }
    if (w->metadata.ns.empty()) w->metadata.ns = "default";
    cluster_.workload_order.push_back({ref_kind, into.size()});
    into.push_back(std::move(*w));
    return {};
  }

  Cluster cluster_;
  std::set<std::string> node_names_;
  std::set<std::string> pod_names_;
  std::set<std::string> device_class_names_;
  std::set<std::string> resource_slice_names_;
  std::set<std::string> resource_claim_names_;
  std::set<std::string> resource_claim_template_names_;
  std::map<std::string, int> ignored_;
};

}  // namespace

// What the Priority admission plugin does at pod creation.
util::Status ResolvePriorities(Cluster& cluster) {
  std::map<std::string, const api::PriorityClass*> classes;
  const api::PriorityClass* global_default = nullptr;
  for (const auto& pc : cluster.priority_classes) {
    classes[pc.metadata.name] = &pc;
    if (pc.global_default) global_default = &pc;
  }
  for (api::Pod& pod : cluster.pods) {
    if (pod.spec.priority.has_value()) continue;
    const std::string& name = pod.spec.priority_class_name;
    if (name.empty()) {
      pod.spec.priority = global_default ? global_default->value : 0;
      if (global_default && !pod.spec.preemption_policy) {
        pod.spec.preemption_policy = global_default->preemption_policy;
      }
      continue;
    }
    if (name == "system-node-critical") {
      pod.spec.priority = kSystemNodeCritical;
      continue;
    }
    if (name == "system-cluster-critical") {
      pod.spec.priority = kSystemClusterCritical;
      continue;
    }
    auto it = classes.find(name);
    if (it == classes.end()) {
      return util::Error("pod " + pod.metadata.ns + "/" + pod.metadata.name +
                         ": no PriorityClass with name " + name + " was found");
    }
    pod.spec.priority = it->second->value;
    if (!pod.spec.preemption_policy) {
      pod.spec.preemption_policy = it->second->preemption_policy;
    }
  }
  return {};
}

namespace {

// `kind` objects of `more` whose (namespace/)name `into` has already.
template <typename T>
util::Status RefuseDuplicates(const std::vector<T>& into,
                              const std::vector<T>& more, std::string_view kind,
                              bool namespaced) {
  auto key = [namespaced](const T& o) {
    return namespaced ? o.metadata.ns + "/" + o.metadata.name : o.metadata.name;
  };
  std::set<std::string> have;
  for (const T& o : into) have.insert(key(o));
  for (const T& o : more) {
    if (have.count(key(o))) {
      return util::Error(std::string(kind) + " " + key(o) +
                         " is defined twice");
    }
  }
  return util::Status();
}

util::Status RefuseDuplicateDraObjects(const Cluster& into,
                                       const Cluster& more) {
  util::Status s = RefuseDuplicates(into.device_classes, more.device_classes,
                                    "DeviceClass", false);
  if (s.ok()) {
    s = RefuseDuplicates(into.resource_slices, more.resource_slices,
                         "ResourceSlice", false);
  }
  if (s.ok()) {
    s = RefuseDuplicates(into.resource_claims, more.resource_claims,
                         "ResourceClaim", true);
  }
  if (s.ok()) {
    s = RefuseDuplicates(into.resource_claim_templates,
                         more.resource_claim_templates, "ResourceClaimTemplate",
                         true);
  }
  return s;
}

}  // namespace

util::Status MergeCluster(Cluster& into, Cluster more) {
  std::set<std::string> nodes, pods;
  for (const api::Node& n : into.nodes) nodes.insert(n.metadata.name);
  for (const api::Pod& p : into.pods) {
    pods.insert(p.metadata.ns + "/" + p.metadata.name);
  }
  for (const api::Node& n : more.nodes) {
    if (nodes.count(n.metadata.name)) {
      return util::Error("node " + n.metadata.name + " is defined twice");
    }
  }
  for (const api::Pod& p : more.pods) {
    if (pods.count(p.metadata.ns + "/" + p.metadata.name)) {
      return util::Error("pod " + p.metadata.ns + "/" + p.metadata.name +
                         " is defined twice");
    }
  }
  if (auto s = RefuseDuplicateDraObjects(into, more); !s.ok()) return s;
  AppendCluster(into, std::move(more));
  return util::Status();
}

std::vector<WorkloadRef> WorkloadsInFileOrder(const Cluster& cluster) {
  using Kind = WorkloadRef::Kind;
  const std::pair<Kind, size_t> kinds[] = {
      {Kind::kDeployment, cluster.deployments.size()},
      {Kind::kReplicaSet, cluster.replica_sets.size()},
      {Kind::kStatefulSet, cluster.stateful_sets.size()},
      {Kind::kDaemonSet, cluster.daemon_sets.size()},
      {Kind::kJob, cluster.jobs.size()},
      {Kind::kCronJob, cluster.cron_jobs.size()},
  };
  std::set<std::pair<Kind, size_t>> seen;
  std::vector<WorkloadRef> out;
  for (const WorkloadRef& ref : cluster.workload_order) {
    size_t size = 0;
    for (const auto& [kind, n] : kinds) {
      if (kind == ref.kind) size = n;
    }
    if (ref.index < size && seen.insert({ref.kind, ref.index}).second) {
      out.push_back(ref);
    }
  }
  for (const auto& [kind, n] : kinds) {
    for (size_t i = 0; i < n; ++i) {
      if (!seen.count({kind, i})) out.push_back({kind, i});
    }
  }
  return out;
}

const api::ObjectMeta& WorkloadMeta(const Cluster& cluster, WorkloadRef ref) {
  switch (ref.kind) {
    case WorkloadRef::Kind::kDeployment:
      return cluster.deployments[ref.index].metadata;
    case WorkloadRef::Kind::kReplicaSet:
      return cluster.replica_sets[ref.index].metadata;
    case WorkloadRef::Kind::kStatefulSet:
      return cluster.stateful_sets[ref.index].metadata;
    case WorkloadRef::Kind::kDaemonSet:
      return cluster.daemon_sets[ref.index].metadata;
    case WorkloadRef::Kind::kJob:
      return cluster.jobs[ref.index].metadata;
    case WorkloadRef::Kind::kCronJob:
      break;
  }
  return cluster.cron_jobs[ref.index].metadata;
}

namespace {

// A JSON List's top level, found without building it: the text range of
// each member, and of each element of its "items". A snapshot of a large
// cluster is tens of megabytes; its items are then parsed one at a time,
// so no document of the whole file is ever held.
struct JsonListLayout {
  std::map<std::string, std::string_view> members;
  std::vector<std::string_view> items;
};

class JsonScanner {
 public:
  explicit JsonScanner(std::string_view text) : text_(text) {}

  // nullopt: not an object with an "items" array, or not well formed
  // enough to split; the caller then parses the text whole.
  std::optional<JsonListLayout> Scan() {
    JsonListLayout out;
    SkipSpace();
    if (!Eat('{')) return std::nullopt;
    SkipSpace();
    if (Eat('}')) return std::nullopt;
    bool has_items = false;
    while (true) {
      SkipSpace();
      std::optional<std::string_view> key = RawString();
      if (!key) return std::nullopt;
      SkipSpace();
      if (!Eat(':')) return std::nullopt;
      SkipSpace();
      if (*key == "items" && Peek() == '[') {
        has_items = true;
        ++pos_;
        SkipSpace();
        if (!Eat(']')) {
          while (true) {
            SkipSpace();
            const size_t begin = pos_;
            if (!SkipValue()) return std::nullopt;
            out.items.push_back(text_.substr(begin, pos_ - begin));
            SkipSpace();
            if (Eat(']')) break;
            if (!Eat(',')) return std::nullopt;
          }
        }
      } else {
        const size_t begin = pos_;
        if (!SkipValue()) return std::nullopt;
        out.members[std::string(*key)] = text_.substr(begin, pos_ - begin);
      }
      SkipSpace();
      if (Eat('}')) break;
      if (!Eat(',')) return std::nullopt;
    }
    SkipSpace();
    if (pos_ != text_.size() || !has_items) return std::nullopt;
    return out;
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' ||
            text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  // A key without escapes (every key the list's top level has); anything
  // else is left to the whole parse.
  std::optional<std::string_view> RawString() {
    if (!Eat('"')) return std::nullopt;
    const size_t begin = pos_;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\') return std::nullopt;
      ++pos_;
    }
    if (pos_ >= text_.size()) return std::nullopt;
    return text_.substr(begin, pos_++ - begin);
  }
  bool SkipString() {
    ++pos_;  // the opening quote
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '\\') {
        ++pos_;
      } else if (c == '"') {
        return true;
      }
    }
    return false;
  }
  // One value, by its brackets; the parser of the value checks the rest.
  bool SkipValue() {
    const char c = Peek();
    if (c == '"') return SkipString();
    if (c == '{' || c == '[') {
      int depth = 0;
      while (pos_ < text_.size()) {
        const char d = text_[pos_];
        if (d == '"') {
          if (!SkipString()) return false;
          continue;
        }
        ++pos_;
        if (d == '{' || d == '[') {
          ++depth;
        } else if (d == '}' || d == ']') {
          if (--depth == 0) return true;
        }
      }
      return false;
    }
    const size_t begin = pos_;
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '}' &&
           text_[pos_] != ']' && text_[pos_] != ' ' && text_[pos_] != '\n' &&
           text_[pos_] != '\t' && text_[pos_] != '\r') {
      ++pos_;
    }
    return pos_ > begin;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// JSON as kubectl reads text that starts with '{': strictly, and the file
// is YAML (flow style) only when it has at most one JSON value before a
// syntax error; when YAML cannot read it either, the JSON error stands.
// Returns std::nullopt to have the caller read the text as YAML.
// Items [begin, end) of a JSON list of `kind` ("" for a plain List) into
// `loader`. `*syntax_error` tells a syntax error from the others; `read`
// (optional) hears how far into the text each item ends.
util::Status LoadListItems(std::string_view text, const JsonListLayout& list,
                           const std::string& kind, size_t begin, size_t end,
                           Loader& loader, bool* syntax_error,
                           const std::function<void(size_t)>& read) {
  for (size_t i = begin; i < end; ++i) {
    const std::string_view part = list.items[i];
    const std::string where = "document 1: items[" + std::to_string(i) + "]";
    auto item = api::ParseJsonValue(
        part, text, static_cast<size_t>(part.data() - text.data()),
        syntax_error);
    if (!item.ok()) return item.error().Wrap(where);
    if (auto r = kind.empty() ? loader.Add(*item, where)
                              : loader.AddListItem(kind, *item, where);
        !r.ok()) {
      return r.error();
    }
    if (read) read(part.data() + part.size() - text.data());
  }
  return util::Status();
}

// A large list read by several threads, each a run of items into its own
// loader, the runs then joined in order. nullopt when a run failed or two
// named one object: the caller reads the list again in one pass, which
// gives the error of the first bad item, as it always has.
std::optional<Loader> LoadListInParallel(std::string_view text,
                                         const JsonListLayout& list,
                                         const std::string& kind,
                                         const LoadProgress& on_progress,
                                         int threads) {
  // Below this a list loads in well under a second in one pass.
  constexpr size_t kItemsPerRun = 20000;
  const size_t items = list.items.size();
  const size_t runs = std::min<size_t>(
      {threads > 0 ? static_cast<size_t>(threads)
                   : std::max(1u, std::thread::hardware_concurrency()),
       8, items / kItemsPerRun});
  if (runs < 2) return std::nullopt;
  std::vector<Loader> loaders(runs);
  std::vector<util::Status> statuses(runs);
  // Bytes read by every run together, reported from this thread only.
  std::atomic<uint64_t> bytes_read{0};
  auto run = [&](size_t r) {
    const size_t begin = items * r / runs;
    const size_t end = items * (r + 1) / runs;
    bool syntax_error = false;
    uint64_t last = list.items[begin].data() - text.data();
    statuses[r] = LoadListItems(
        text, list, kind, begin, end, loaders[r], &syntax_error,
        [&](size_t at) {
          bytes_read.fetch_add(at - last, std::memory_order_relaxed);
          last = at;
          if (r == 0 && on_progress) {
            on_progress(bytes_read.load(std::memory_order_relaxed),
                        text.size());
          }
        });
  };
  {
    std::vector<std::jthread> threads;
    for (size_t r = 1; r < runs; ++r) threads.emplace_back(run, r);
    run(0);
  }
  for (const util::Status& status : statuses) {
    if (!status.ok()) return std::nullopt;
  }
  size_t more_nodes = 0, more_pods = 0;
  for (size_t r = 1; r < runs; ++r) {
    more_nodes += loaders[r].nodes();
    more_pods += loaders[r].pods();
  }
  loaders[0].Reserve(more_nodes, more_pods);
  for (size_t r = 1; r < runs; ++r) {
    if (!loaders[0].Absorb(loaders[r])) return std::nullopt;
  }
  return std::move(loaders[0]);
}

// JSON as kubectl reads text that starts with '{': strictly, and the file
// is YAML (flow style) only when it has at most one JSON value before a
// syntax error; when YAML cannot read it either, the JSON error stands.
// Returns std::nullopt to have the caller read the text as YAML.
std::optional<util::Result<Cluster>> ParseJsonCluster(
    std::string_view text, util::Error* json_error,
    const LoadProgress& on_progress, int threads) {
  bool syntax_error = false;
  if (std::optional<JsonListLayout> list = JsonScanner(text).Scan()) {
    // The list's own kind first: items of a typed list may lack theirs.
    std::string kind;
    if (auto k = list->members.find("kind"); k != list->members.end()) {
      auto parsed = api::ParseJsonValue(
          k->second, text, static_cast<size_t>(k->second.data() - text.data()),
          &syntax_error);
      if (!parsed.ok()) return parsed.error().Wrap("document 1");
      if (parsed->IsString()) kind = parsed->GetString();
    }
    if (std::optional<Loader> loaded =
            LoadListInParallel(text, *list, kind, on_progress, threads)) {
      return loaded->Finish();
    }
    Loader loader;
    const util::Status loaded =
        LoadListItems(text, *list, kind, 0, list->items.size(), loader,
                      &syntax_error, [&](size_t at) {
                        if (on_progress) on_progress(at, text.size());
                      });
    if (!loaded.ok()) {
      if (!syntax_error) return loaded.error();
      *json_error = loaded.error();
      return std::nullopt;
    }
    return loader.Finish();
  }
  size_t read = 0;
  auto docs = api::ParseJsonStream(text, &read, &syntax_error);
  if (!docs.ok()) {
    if (!syntax_error || read > 1) return docs.error();
    *json_error = docs.error();
    return std::nullopt;
  }
  Loader loader;
  for (size_t i = 0; i < docs->size(); ++i) {
    const std::string where = "document " + std::to_string(i + 1);
    if (auto r = loader.Add((*docs)[i], where); !r.ok()) return r.error();
  }
  return loader.Finish();
}

util::Result<Cluster> ParseYamlCluster(std::string_view text,
                                       const LoadProgress& on_progress) {
  {
    // YAML (and JSON the split above left): libyaml's events, item by item;
    // what it leaves goes to YamlToJson below.
    Loader loader;
    struct Kindless {
      size_t document, index;
      rapidjson::Document item;
    };
    std::vector<Kindless> kindless;
    auto where = [](size_t document, size_t index) {
      return "document " + std::to_string(document) + ": items[" +
             std::to_string(index) + "]";
    };
    api::YamlStreamCallbacks callbacks;
    callbacks.on_item = [&](rapidjson::Document item, size_t document,
                            size_t index) -> util::Status {
      if (item.IsObject() && !item.HasMember("kind")) {
        // A typed list's item: its kind comes with the list's, later.
        kindless.push_back({document, index, std::move(item)});
        return util::Status();
      }
      return loader.Add(item, where(document, index));
    };
    callbacks.on_document = [&](rapidjson::Document doc,
                                size_t document) -> util::Status {
      std::string kind;
      if (doc.IsObject()) {
        auto k = doc.FindMember("kind");
        if (k != doc.MemberEnd() && k->value.IsString()) {
          kind = k->value.GetString();
        }
      }
      for (Kindless& k : kindless) {
        auto r = loader.AddListItem(kind, k.item, where(k.document, k.index));
        if (!r.ok()) return r.error();
      }
      kindless.clear();
      return loader.Add(doc, "document " + std::to_string(document));
    };
    if (on_progress) {
      callbacks.on_read = [&](size_t bytes) {
        on_progress(std::min(bytes, text.size()), text.size());
      };
    }
    auto streamed = api::StreamYamlToJson(text, callbacks);
    if (!streamed.ok()) return streamed.error();
    if (*streamed) return loader.Finish();
  }
  auto docs = api::YamlToJson(text);
  if (!docs.ok()) return docs.error();
  Loader loader;
  for (size_t i = 0; i < docs->size(); ++i) {
    std::string where = "document " + std::to_string(i + 1);
    if (auto r = loader.Add((*docs)[i], where); !r.ok()) return r.error();
  }
  return loader.Finish();
}

}  // namespace

util::Result<Cluster> ParseCluster(std::string_view text,
                                   const LoadProgress& on_progress,
                                   int threads) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') {
    return ParseYamlCluster(text, on_progress);
  }
  util::Error json_error("");
  if (auto parsed = ParseJsonCluster(text, &json_error, on_progress, threads)) {
    return std::move(*parsed);
  }
  // Not JSON: YAML's flow style, unless YAML cannot read it either, as
  // kubectl's decoder does with a stream whose first JSON value is
  // malformed; said, as a file meant as JSON usually has a mistake.
  if (!api::YamlToJson(text).ok()) return json_error;
  auto cluster = ParseYamlCluster(text, on_progress);
  if (cluster.ok()) {
    cluster->read_notes.push_back(
        "not valid JSON (" + json_error.message() +
        "): read as YAML, as kubectl reads a file whose first JSON value is "
        "malformed");
  }
  return cluster;
}

util::Result<Cluster> LoadClusterFile(const std::string& path,
                                      const LoadProgress& on_progress) {
  // The reason the system gives, as a user would see it from cat.
  auto failure = [&path](const char* what, int error) {
    return util::Error(std::string(what) + " cluster file " + path + ": " +
                       std::strerror(error));
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return failure("cannot open", errno);
  if (S_ISDIR(st.st_mode)) return failure("cannot read", EISDIR);
  std::ifstream in(path, std::ios::binary);
  if (!in) return failure("cannot open", errno);
  if (S_ISREG(st.st_mode) &&
      static_cast<uint64_t>(st.st_size) > kMaxClusterFileBytes) {
    return util::Error("cluster file " + path + " is larger than 256 MiB");
  }
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) return util::Error("cannot read cluster file " + path);
  if (static_cast<size_t>(size) > kMaxClusterFileBytes) {
    return util::Error("cluster file " + path + " is larger than 256 MiB");
  }
  in.seekg(0);
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), size);
  if (!in) return util::Error("cannot read cluster file " + path);
  auto cluster = ParseCluster(text, on_progress);
  if (!cluster.ok()) return cluster.error().Wrap(path);
  for (std::string& note : cluster->read_notes) note = path + ": " + note;
  return cluster;
}

}  // namespace ksched::simulator
