// What the resource.k8s.io validation files share (kube-apiserver v1.36's
// pkg/apis/resource/validation): the limits of the API, its name rules,
// the size and uniqueness checks of its lists, and the pieces DeviceClass,
// ResourceClaim and ResourceSlice have in common (selectors, opaque
// configuration, tolerations and taints).
//
// DeclarativeValidation does not decide anything for these kinds in
// v1.36: their strategies run it without WithDeclarativeEnforcement, so
// only the handwritten rules and their messages reach the client.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/validation/internal.h"

namespace ksched::cel::dra {
class Selector;
}  // namespace ksched::cel::dra

namespace ksched::validation::internal::dra {

// Limits of resource.k8s.io (pkg/apis/resource/types.go).
inline constexpr size_t kDeviceRequestsMaxSize = 32;
inline constexpr size_t kDeviceConstraintsMaxSize = 32;
inline constexpr size_t kDeviceConfigMaxSize = 32;
inline constexpr size_t kDeviceSelectorsMaxSize = 32;
inline constexpr size_t kFirstAvailableDeviceRequestMaxSize = 8;
inline constexpr size_t kOpaqueParametersMaxLength = 10 * 1024;

// The size check of kube's validateSlice and validateSet: a list longer
// than `max_size` is reported as TooMany and its items are not looked at
// (true is returned then).
bool TooManyItems(const Json* list, size_t max_size, const FieldPath& path,
                  FieldErrors* errs);

// The uniqueness check of validateSet: each item whose key an earlier
// item had is a Duplicate at its own index. `keys` holds one key per item
// of the list, in order.
void ReportDuplicates(const std::vector<std::string>& keys,
                      const FieldPath& path, FieldErrors* errs);

// The text of each element of an array, "" for one that is not a scalar,
// so that indexes stay those of the document.
std::vector<std::string> ItemTexts(const Json* list);

// encoding/json's rendering of a []string as a field error's value: null
// when the list is absent, else its items.
std::string StringListJson(const Json* list);

// ---- Names.

// corevalidation.ValidateDNS1123Label: one Invalid per message.
void ValidateDns1123Label(std::string_view value, const FieldPath& path,
                          FieldErrors* errs);
// corevalidation.ValidateDNS1123Subdomain.
void ValidateDns1123Subdomain(std::string_view value, const FieldPath& path,
                              FieldErrors* errs);
// A node name (ValidateNodeName: a DNS subdomain), one Invalid per message.
void ValidateNodeName(std::string_view name, const FieldPath& path,
                      FieldErrors* errs);
// corevalidation.ValidateCSIDriverName, which drivers reuse: required, at
// most 63 bytes, a DNS subdomain in any case.
void ValidateDriverName(std::string_view name, const FieldPath& path,
                        FieldErrors* errs);
// validatePoolName: required, at most 253 bytes, each '/'-separated part a
// DNS subdomain.
void ValidatePoolName(std::string_view name, const FieldPath& path,
                      FieldErrors* errs);
// validateQualifiedName: a C identifier of at most 32 bytes, optionally
// behind a driver-name domain and a '/'. Errors name `path` itself, not a
// key under it.
void ValidateQualifiedName(std::string_view name, const FieldPath& path,
                           FieldErrors* errs);
// validateFullyQualifiedName: a qualified name that has its domain.
void ValidateFullyQualifiedName(std::string_view name, const FieldPath& path,
                                FieldErrors* errs);
// validateLabelValue: one Invalid per message.
void ValidateLabelValue(std::string_view value, const FieldPath& path,
                        FieldErrors* errs);
// kube's truncateIfTooLong for map keys in field paths: a key longer than
// max_length (at least 16) keeps its start and end around "...".
std::string TruncateKey(std::string_view key, size_t max_length);

// ---- What several kinds hold.

// validateSelectorSlice: at most 32 selectors, each with a CEL expression
// that compiles (device_selector_validation.cc).
void ValidateDeviceSelectors(const Json* selectors, const FieldPath& path,
                             FieldErrors* errs);
// The static cost check of validateCELSelector, for a selector that
// compiled: kube refuses one whose estimated worst-case cost exceeds
// CELSelectorExpressionMaxCost (cel::dra::kSelectorMaxCost) with
//
//   Forbidden(expression_path, "too complex, exceeds cost limit")
//
// (Selector::estimated_max_cost, pkg/cel's estimator).
FieldErrors SelectorCostErrors(const cel::dra::Selector& selector,
                               const FieldPath& expression_path);
// validateDeviceConfiguration: `config` (a class's or a claim's config
// entry) must have its opaque driver configuration.
void ValidateDeviceConfiguration(const Json& config, const FieldPath& path,
                                 FieldErrors* errs);
// validateDeviceToleration, after the API's defaulting of an empty
// operator to Equal.
void ValidateDeviceToleration(const Json& toleration, const FieldPath& path,
                              FieldErrors* errs);
// validateDeviceTaint on create.
void ValidateDeviceTaint(const Json& taint, const FieldPath& path,
                         FieldErrors* errs);

// ---- Slices (resource_slice_validation.cc, slice_device_validation.cc,
// device_capacity_validation.cc).

// How kube lists the node selection fields set: "{`nodeName`, `allNodes`}".
std::string SetFieldsText(const std::vector<std::string>& fields);
// validateDevice: one device of a slice.
void ValidateDevice(const Json& device, bool per_device_node_selection,
                    const FieldPath& path, FieldErrors* errs);
// The counters of a counter set or of a device's consumption: required, at
// most 32, each name a DNS label (reported at `path` itself).
void ValidateCounters(const Json* counters, const FieldPath& path,
                      FieldErrors* errs);
// A device capacity's value: zero when absent.
api::Quantity CapacityValue(const Json& capacity);
// validateRequestPolicy: the policy of a capacity of `max` that several
// allocations share.
void ValidateRequestPolicy(const api::Quantity& max, const Json& policy,
                           const FieldPath& path, FieldErrors* errs);

// ---- Claims (resource_claim_validation.cc).

// validateResourceClaimSpec: the requests, constraints and config of
// `spec` (a claim's spec, or a template's spec.spec).
void ValidateResourceClaimSpec(const Json& spec, const FieldPath& path,
                               FieldErrors* errs);

}  // namespace ksched::validation::internal::dra
