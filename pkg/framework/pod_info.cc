#include "pkg/framework/pod_info.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "pkg/api/pod_resources.h"
#include "pkg/api/resource_names.h"
#include "pkg/framework/host_ports.h"

namespace ksched::framework {
namespace {

// matchLabelKeys / mismatchLabelKeys merged into the selector as the API
// server does at pod creation (so manifests read without one behave alike;
// on pods that were merged already, the repeat adds an identical
// requirement).
api::LabelSelector EffectiveSelector(const api::Pod& pod,
                                     const api::PodAffinityTerm& term) {
  api::LabelSelector selector =
      term.label_selector ? *term.label_selector : api::LabelSelector{};
  auto add = [&](const std::vector<std::string>& keys,
                 api::LabelSelectorOperator op) {
    for (const std::string& key : keys) {
      const std::string* value = pod.metadata.labels.Find(key);
      if (value == nullptr) continue;
      selector.match_expressions.push_back({key, op, {*value}});
    }
  };
  add(term.match_label_keys, api::LabelSelectorOperator::kIn);
  add(term.mismatch_label_keys, api::LabelSelectorOperator::kNotIn);
  return selector;
}

util::Result<AffinityTerm> ParseTerm(const api::Pod& pod,
                                     const api::PodAffinityTerm& term) {
  AffinityTerm out;
  util::Result<api::Selector> selector =
      (term.label_selector || !term.match_label_keys.empty() ||
       !term.mismatch_label_keys.empty())
          ? [&] {
              api::LabelSelector effective = EffectiveSelector(pod, term);
              return api::Selector::FromLabelSelector(&effective);
            }()
          : api::Selector::FromLabelSelector(nullptr);
  if (!selector.ok()) return selector.error();
  out.selector = std::move(*selector);
  auto ns_selector = api::Selector::FromLabelSelector(
      term.namespace_selector ? &*term.namespace_selector : nullptr);
  if (!ns_selector.ok()) return ns_selector.error();
  out.namespace_selector = std::move(*ns_selector);
  // No namespaces and no namespace selector: the pod's own namespace.
  if (term.namespaces.empty() && !term.namespace_selector) {
    out.namespaces.push_back(pod.metadata.ns);
  } else {
    out.namespaces = term.namespaces;
  }
  out.topology_key = term.topology_key;
  return out;
}

}  // namespace

bool AffinityTerm::Matches(std::string_view ns, const api::StringMap& labels,
                           const api::StringMap& namespace_labels) const {
  bool in_namespace =
      std::find(namespaces.begin(), namespaces.end(), ns) != namespaces.end() ||
      namespace_selector.Matches(namespace_labels);
  return in_namespace && selector.Matches(labels);
}

bool AffinityTerm::Matches(const PodInfo& pod,
                           const api::StringMap& namespace_labels) const {
  return Matches(pod.ns(), pod.labels(), namespace_labels);
}

PodResource ComputePodResource(const api::Pod& pod,
                               const api::ResourceFeatures& features) {
  api::PodResourcesOptions options = api::PodResourcesOptionsFor(features);
  const api::ResourceList requests = api::PodRequests(pod, options);
  PodResource r;
  r.requests = Resource::FromList(requests);

  // The non-zero defaults stand in for a container's missing cpu or memory
  // request. With pod-level requests set, only for a resource neither the
  // pod nor any container names: the pod-level value already says what the
  // pod holds (getNonMissingContainerRequests).
  const bool pod_level =
      features.pod_level_resources && api::IsPodLevelRequestsSet(pod);
  if (!pod_level) {
    options.non_missing_container_requests = api::NonZeroDefaultRequests();
  } else {
    if (!requests.Contains(api::kResourceCpu)) {
      options.non_missing_container_requests.Set(
          api::kResourceCpu,
          api::Quantity::FromMilli(api::kDefaultMilliCpuRequest));
    }
    if (!requests.Contains(api::kResourceMemory)) {
      options.non_missing_container_requests.Set(
          api::kResourceMemory,
          api::Quantity::FromValue(api::kDefaultMemoryRequest));
    }
  }
  const api::ResourceList non_zero =
      options.non_missing_container_requests.empty()
          ? requests
          : api::PodRequests(pod, options);
  if (const api::Quantity* cpu = non_zero.Find(api::kResourceCpu)) {
    r.non_zero_milli_cpu = cpu->MilliValue();
  }
  if (const api::Quantity* mem = non_zero.Find(api::kResourceMemory)) {
    r.non_zero_memory = mem->Value();
  }
  return r;
}

api::ResourceFeatures ResourceFeaturesOf(const config::FeatureGates& gates) {
  using config::Feature;
  return {.in_place_pod_vertical_scaling =
              gates.Enabled(Feature::kInPlacePodVerticalScaling),
          .pod_level_resources = gates.Enabled(Feature::kPodLevelResources),
          .in_place_pod_level_resources_vertical_scaling =
              gates.Enabled(Feature::kInPlacePodLevelResourcesVerticalScaling)};
}

namespace {

std::shared_ptr<const PodInfo::AffinityTerms> ParseAffinity(const api::Pod& p) {
  const api::Affinity* affinity = p.spec.affinity.get();
  if (affinity == nullptr ||
      (!affinity->pod_affinity && !affinity->pod_anti_affinity)) {
    return nullptr;
  }
  auto terms = std::make_shared<PodInfo::AffinityTerms>();
  std::string& error = terms->parse_error;
  auto parse_required = [&](const std::vector<api::PodAffinityTerm>& in,
                            std::vector<AffinityTerm>& out, const char* what) {
    for (const auto& t : in) {
      auto parsed = ParseTerm(p, t);
      if (!parsed.ok()) {
        if (error.empty())
          error = std::string(what) + ": " + parsed.error().message();
        out.clear();
        return;
      }
      out.push_back(std::move(*parsed));
    }
  };
  auto parse_preferred =
      [&](const std::vector<api::WeightedPodAffinityTerm>& in,
          std::vector<WeightedAffinityTerm>& out, const char* what) {
        for (const auto& t : in) {
          auto parsed = ParseTerm(p, t.pod_affinity_term);
          if (!parsed.ok()) {
            if (error.empty())
              error = std::string(what) + ": " + parsed.error().message();
            out.clear();
            return;
          }
          out.push_back({std::move(*parsed), t.weight});
        }
      };
  if (affinity->pod_affinity) {
    parse_required(affinity->pod_affinity->required, terms->required_affinity,
                   "requiredAffinityTerms");
    parse_preferred(affinity->pod_affinity->preferred,
                    terms->preferred_affinity, "preferredAffinityTerms");
  }
  if (affinity->pod_anti_affinity) {
    parse_required(affinity->pod_anti_affinity->required,
                   terms->required_anti_affinity, "requiredAntiAffinityTerms");
    parse_preferred(affinity->pod_anti_affinity->preferred,
                    terms->preferred_anti_affinity,
                    "preferredAntiAffinityTerms");
  }
  return terms;
}

// The labels inside the pod object, sharing its ownership: no copy.
std::shared_ptr<const api::StringMap> LabelsOf(
    const std::shared_ptr<const api::Pod>& pod) {
  return std::shared_ptr<const api::StringMap>(pod, &pod->metadata.labels);
}

std::shared_ptr<const api::StringMap> NoLabels() {
  static const auto* const kNone = new std::shared_ptr<const api::StringMap>(
      std::make_shared<const api::StringMap>());
  return *kNone;
}

}  // namespace

void PodInfo::SetFacts(const api::Pod& pod) {
  const api::ObjectMeta& meta = pod.metadata;
  name_ = meta.name;
  ns_ = meta.ns;
  uid_ = meta.uid;
  resource_version_ = meta.resource_version;
  start_time_ = pod.status.start_time;
  node_name_ = pod.spec.node_name;
  priority_ = pod.spec.priority.value_or(0);
  has_priority_ = pod.spec.priority.has_value();
  const api::Affinity* a = pod.spec.affinity.get();
  with_affinity_ = a != nullptr && (a->pod_affinity || a->pod_anti_affinity);
  with_required_anti_affinity_ = a != nullptr && a->pod_anti_affinity &&
                                 !a->pod_anti_affinity->required.empty();
  Rare rare;
  rare.deletion_timestamp = meta.deletion_timestamp;
  for (const api::PodCondition& c : pod.status.conditions) {
    // The first one counts, as preemption reads the list.
    if (c.type == api::kPodDisruptionTarget && !rare.disruption_target) {
      rare.disruption_target = c;
    }
  }
  for (const api::ContainerPort* port : HostPortsOf(pod)) {
    rare.host_ports.push_back(*port);
  }
  rare.host_ports.shrink_to_fit();
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.persistent_volume_claim) {
      rare.claim_names.push_back(v.persistent_volume_claim->claim_name);
    }
  }
  rare.claim_names.shrink_to_fit();
  for (const api::Volume& v : pod.spec.volumes) {
    const api::InTreeVolumeSources& t = v.in_tree;
    const bool in_tree = t.gce_persistent_disk || t.aws_elastic_block_store ||
                         t.rbd || t.iscsi || t.cinder || t.azure_disk ||
                         t.azure_file || t.vsphere_volume || t.portworx_volume;
    if (v.persistent_volume_claim || v.ephemeral || in_tree) {
      rare.storage_volumes.push_back(v);
    }
  }
  if (rare.deletion_timestamp || rare.disruption_target ||
      !rare.host_ports.empty() || !rare.claim_names.empty() ||
      !rare.storage_volumes.empty()) {
    rare_ = api::Box<Rare>(std::move(rare));
  } else {
    rare_.reset();
  }
}

const std::vector<api::Volume>& PodInfo::storage_volumes() const {
  static const std::vector<api::Volume> kNone;
  return rare_ ? rare_->storage_volumes : kNone;
}

const std::vector<api::ContainerPort>& PodInfo::NoHostPorts() {
  static const std::vector<api::ContainerPort> kNone;
  return kNone;
}

const std::vector<std::string>& PodInfo::NoClaimNames() {
  static const std::vector<std::string> kNone;
  return kNone;
}

PodInfoPtr PodInfo::Create(std::shared_ptr<const api::Pod> pod,
                           const api::ResourceFeatures& features) {
  auto info = std::make_shared<PodInfo>();
  info->SetFacts(*pod);
  info->resource_ = ComputePodResource(*pod, features);
  info->affinity_ = ParseAffinity(*pod);
  info->labels_ = LabelsOf(pod);
  info->pod_ = std::move(pod);
  return info;
}

PodInfoPtr PodInfo::CreateBound(const api::Pod& pod, LabelSets* label_sets,
                                const api::ResourceFeatures& features) {
  auto info = std::make_shared<PodInfo>();
  info->SetFacts(pod);
  if (pod.metadata.labels.empty()) {
    info->labels_ = NoLabels();
  } else if (label_sets != nullptr) {
    info->labels_ = label_sets->Intern(pod.metadata.labels);
  } else {
    info->labels_ = std::make_shared<const api::StringMap>(pod.metadata.labels);
  }
  info->resource_ = ComputePodResource(pod, features);
  info->affinity_ = ParseAffinity(pod);
  return info;
}

PodInfoPtr PodInfo::WithPod(std::shared_ptr<const api::Pod> pod) const {
  auto info = std::make_shared<PodInfo>();
  info->SetFacts(*pod);
  info->resource_ = resource_;
  info->affinity_ = affinity_;
  info->labels_ = LabelsOf(pod);
  info->pod_ = std::move(pod);
  return info;
}

const api::Pod& PodInfo::pod() const {
  if (pod_ == nullptr) {
    // A programming error: a bound pod's object is not kept (see the
    // header). Failing loudly beats reading an empty object.
    std::fprintf(stderr, "PodInfo::pod() on bound pod %s/%s\n", ns_.c_str(),
                 name_.c_str());
    std::abort();
  }
  return *pod_;
}

api::Pod PodInfo::ToPod() const {
  if (pod_ != nullptr) return *pod_;
  api::Pod pod;
  pod.metadata.name = name_;
  pod.metadata.ns = ns_;
  pod.metadata.uid = uid_;
  pod.metadata.resource_version = resource_version_;
  pod.metadata.labels = *labels_;
  pod.status.start_time = start_time_;
  if (rare_) pod.metadata.deletion_timestamp = rare_->deletion_timestamp;
  pod.spec.node_name = node_name_;
  if (has_priority_) pod.spec.priority = priority_;
  if (const api::PodCondition* c = disruption_target()) {
    pod.status.conditions.push_back(*c);
  }
  return pod;
}

const PodInfo::AffinityTerms& PodInfo::affinity() const {
  static const AffinityTerms kNone;
  return affinity_ ? *affinity_ : kNone;
}

const std::string& PodInfo::parse_error() const {
  return affinity().parse_error;
}

}  // namespace ksched::framework
