// What the validation files share: reading the JSON as the decoder would,
// rendering bad values as Go prints them, and the checks several kinds
// reuse (object metadata, labels, selectors, resources, pod specs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/quantity.h"
#include "pkg/config/field_errors.h"
#include "pkg/util/json.h"

namespace ksched::validation::internal {

using Json = rapidjson::Value;
using config::FieldError;
using config::FieldErrors;
using config::FieldPath;

// ---- Reading (json_values.cc). `null` counts as absent; a value of an
// unexpected type reads as absent too, its type error having been reported
// when the object was decoded.

// The member, when `obj` is an object that has it and it is not null.
const Json* Field(const Json& obj, std::string_view name);
const Json* ObjectField(const Json& obj, std::string_view name);
const Json* ArrayField(const Json& obj, std::string_view name);
// A scalar as the lenient decoder reads a string: strings as they are,
// numbers and booleans as their text.
std::optional<std::string> ScalarText(const Json& v);
// ScalarText of a member; "" when absent.
std::string StringField(const Json& obj, std::string_view name);
// The scalars of an array member, as text; other elements are skipped.
std::vector<std::string> ScalarList(const Json& obj, std::string_view name);
// An integer from a JSON integer or a decimal string.
std::optional<int64_t> IntValue(const Json& v);
// An integer member: nullopt when absent, or present but unreadable (then
// `present` says so).
std::optional<int64_t> IntField(const Json& obj, std::string_view name,
                                bool* present = nullptr);
bool BoolField(const Json& obj, std::string_view name);
// A quantity from a string or a number's literal text, as the API server
// holds it once defaulted: rounded up to whole milli-units, away from zero.
std::optional<api::Quantity> QuantityValue(const Json& v);

// ---- Rendering bad values as field.Error prints them.

// encoding/json's string form: Go's field errors print named string types
// (ResourceName, TaintEffect, ...) and pointers this way, not with %q.
std::string JsonQuote(std::string_view s);

// ---- Resource lists, in document order.
struct Resource {
  std::string name;
  api::Quantity quantity;
};
using ResourceList = std::vector<Resource>;
ResourceList ReadResourceList(const Json* list);
const Resource* FindResource(const ResourceList& list, std::string_view name);

// ---- Label selectors (meta_validation.cc).
struct SelectorRequirement {
  std::string key;
  std::string op;
  std::vector<std::string> values;
};
struct LabelSelector {
  std::vector<std::pair<std::string, std::string>> match_labels;
  std::vector<SelectorRequirement> match_expressions;
};
// nullopt when absent (a nil selector).
std::optional<LabelSelector> ReadLabelSelector(const Json* selector);
// metav1 LabelSelector as encoding/json writes it.
std::string LabelSelectorJson(const LabelSelector& selector);

// metav1validation.ValidateLabelSelector.
void ValidateLabelSelector(const LabelSelector& selector, const FieldPath& path,
                           bool allow_invalid_values, FieldErrors* errs);
// metav1validation.ValidateLabelName: a qualified name.
void ValidateLabelName(std::string_view key, const FieldPath& path,
                       FieldErrors* errs);
// A label value's errors as one Invalid at `path`, the messages joined
// with ';' (as taints' and tolerations' values report them).
void ValidateJoinedLabelValue(const std::string& value, const FieldPath& path,
                              FieldErrors* errs);
// metav1validation.ValidateLabels over a labels object.
void ValidateLabels(const Json* labels, const FieldPath& path,
                    FieldErrors* errs);
// apimachinery ValidateAnnotations: keys and total size.
void ValidateAnnotations(const Json* annotations, const FieldPath& path,
                         FieldErrors* errs);

// The rule an object's name follows.
enum class NameRule {
  kDnsSubdomain,
  kDnsLabel,
  // What the API server asks of every object's name after the kind's own
  // checks: no '/' or '%', not "." or "..".
  kPathSegment,
};
std::vector<std::string> NameErrors(NameRule rule, std::string_view name,
                                    bool prefix);
// ValidateObjectMeta on create: generateName, name, namespace (when set;
// the request supplies it otherwise), labels and annotations.
void ValidateObjectMeta(const Json& obj, NameRule rule, bool namespaced,
                        FieldErrors* errs);

// ---- Resources (resource_validation.cc).
enum class ResourceNameRule { kContainer, kPodLevel };
bool IsHugePageResourceName(std::string_view name);
// ValidateResourceQuantityValue: non-negative, whole for integer resources.
void ValidateResourceQuantityValue(std::string_view name,
                                   const api::Quantity& quantity,
                                   const FieldPath& path, FieldErrors* errs);
// validateResourceRequirements.
void ValidateResourceRequirements(const ResourceList& limits,
                                  const ResourceList& requests,
                                  ResourceNameRule rule, const FieldPath& path,
                                  FieldErrors* errs);

// ---- Pod specs (pod_validation.cc, affinity_validation.cc).
struct PodSpecContext {
  // A Pod being created, not a template: its defaulting and the pod
  // strategy's create-time changes apply.
  bool is_pod = false;
  // The pod's labels (is_pod only): matchLabelKeys and mismatchLabelKeys
  // take their values from them.
  const Json* pod_labels = nullptr;
  // The pod's annotations (is_pod only): a static pod may not claim
  // resources.
  const Json* pod_annotations = nullptr;
  // Volumes a StatefulSet's volumeClaimTemplates replace, left unchecked.
  std::vector<std::string> replaced_volumes;
};
void ValidatePodSpec(const Json& spec, const FieldPath& path,
                     const PodSpecContext& ctx, FieldErrors* errs);
// ValidatePodTemplateSpec: template labels and annotations, then the spec.
void ValidatePodTemplateSpec(const Json& tmpl, const FieldPath& path,
                             const PodSpecContext& ctx, FieldErrors* errs);
// validateTaintEffect for a set effect: NoSchedule, PreferNoSchedule or
// NoExecute.
void ValidateTaintEffect(std::string_view effect, const FieldPath& path,
                         FieldErrors* errs);
void ValidateAffinity(const Json& affinity, const FieldPath& path,
                      const PodSpecContext& ctx, FieldErrors* errs);
// ValidateNodeSelector with label values checked: at least one term, each
// term's requirements valid.
void ValidateNodeSelector(const Json& selector, const FieldPath& path,
                          FieldErrors* errs);
// What the pod strategy appends to a selector for matchLabelKeys (In) and
// mismatchLabelKeys (NotIn) on create.
void MergeLabelKeys(const Json& term, std::string_view keys_field,
                    std::string_view op, const Json* pod_labels,
                    LabelSelector* selector);
// ValidateMatchLabelKeysAndMismatchLabelKeys.
void ValidateMatchLabelKeys(const FieldPath& path, const Json& term,
                            bool with_mismatch,
                            const std::optional<LabelSelector>& selector,
                            FieldErrors* errs);

}  // namespace ksched::validation::internal
