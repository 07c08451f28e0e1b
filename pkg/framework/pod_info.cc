#include "pkg/framework/pod_info.h"

#include <algorithm>

#include "pkg/api/pod_resources.h"
#include "pkg/api/resource_names.h"

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

bool AffinityTerm::Matches(const api::Pod& pod,
                           const api::StringMap& namespace_labels) const {
  bool in_namespace = std::find(namespaces.begin(), namespaces.end(),
                                pod.metadata.ns) != namespaces.end() ||
                      namespace_selector.Matches(namespace_labels);
  return in_namespace && selector.Matches(pod.metadata.labels);
}

PodResource ComputePodResource(const api::Pod& pod) {
  PodResource r;
  r.requests = Resource::FromList(api::PodRequests(pod, {}));
  api::ResourceList non_zero = api::PodRequests(
      pod, {.exclude_overhead = false, .non_zero_defaults = true});
  if (const api::Quantity* cpu = non_zero.Find(api::kResourceCpu)) {
    r.non_zero_milli_cpu = cpu->MilliValue();
  }
  if (const api::Quantity* mem = non_zero.Find(api::kResourceMemory)) {
    r.non_zero_memory = mem->Value();
  }
  return r;
}

PodInfoPtr PodInfo::Create(std::shared_ptr<const api::Pod> pod) {
  auto info = std::make_shared<PodInfo>();
  info->pod_ = std::move(pod);
  const api::Pod& p = *info->pod_;
  info->resource_ = ComputePodResource(p);

  const api::Affinity* affinity = p.spec.affinity.get();
  if (affinity != nullptr &&
      (affinity->pod_affinity || affinity->pod_anti_affinity)) {
    auto terms = std::make_shared<AffinityTerms>();
    std::string error;
    auto parse_required = [&](const std::vector<api::PodAffinityTerm>& in,
                              std::vector<AffinityTerm>& out,
                              const char* what) {
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
                     terms->required_anti_affinity,
                     "requiredAntiAffinityTerms");
      parse_preferred(affinity->pod_anti_affinity->preferred,
                      terms->preferred_anti_affinity,
                      "preferredAntiAffinityTerms");
    }
    info->affinity_ = std::move(terms);
    info->parse_error_ = std::move(error);
  }
  return info;
}

PodInfoPtr PodInfo::WithPod(std::shared_ptr<const api::Pod> pod) const {
  auto info = std::make_shared<PodInfo>();
  info->pod_ = std::move(pod);
  info->resource_ = resource_;
  info->affinity_ = affinity_;
  info->parse_error_ = parse_error_;
  return info;
}

const PodInfo::AffinityTerms& PodInfo::affinity() const {
  static const AffinityTerms kNone;
  return affinity_ ? *affinity_ : kNone;
}

bool PodInfo::WithAffinity() const {
  const api::Affinity* a = pod_->spec.affinity.get();
  return a != nullptr && (a->pod_affinity || a->pod_anti_affinity);
}

bool PodInfo::WithRequiredAntiAffinity() const {
  const api::Affinity* a = pod_->spec.affinity.get();
  return a != nullptr && a->pod_anti_affinity &&
         !a->pod_anti_affinity->required.empty();
}

}  // namespace ksched::framework
