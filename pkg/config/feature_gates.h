// Feature gates as kube-scheduler v1.36 has them: every gate carries its
// default and stage per Kubernetes version (kube's versioned feature specs),
// --emulated-version picks the version whose defaults apply, and
// --feature-gates overrides single gates ("Name=true,Other=false").
//
// Only gates change with the emulated version. Behaviour kube changed
// without a gate follows the binary (v1.36), as kube-scheduler's does.
//
// A gate whose behaviour ksched has not built is kept off: turning it on by
// flag is an error, and when kube would have it on (by default or through
// AllAlpha/AllBeta) FeatureGates says so (not_in_effect), so that nothing
// kube would do is silently skipped.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/result.h"

namespace ksched::config {

// The gates kube-scheduler v1.36 reads (its plugins' feature.Features and the
// queue, loop and configuration defaults), in kube's name order.
enum class Feature : int {
  kCSIMigrationPortworx,
  kDRAAdminAccess,
  kDRAConsumableCapacity,
  kDRADeviceBindingConditions,
  kDRADeviceTaintRules,
  kDRADeviceTaints,
  kDRAExtendedResource,
  kDRAListTypeAttributes,
  kDRANodeAllocatableResources,
  kDRAPartitionableDevices,
  kDRAPrioritizedList,
  kDRAResourceClaimDeviceStatus,
  kDRASchedulerFilterTimeout,
  kDRAWorkloadResourceClaims,
  kDynamicResourceAllocation,
  kGangScheduling,
  kGenericWorkload,
  kInPlacePodLevelResourcesVerticalScaling,
  kInPlacePodVerticalScaling,
  kMatchLabelKeysInPodAffinity,
  kMatchLabelKeysInPodTopologySpread,
  kNodeDeclaredFeatures,
  kNodeInclusionPolicyInPodTopologySpread,
  kNominatedNodeNameForExpectation,
  kOpportunisticBatching,
  kPodLevelResources,
  kPodObservedGenerationTracking,
  kPodSchedulingReadiness,
  kSchedulerAsyncAPICalls,
  kSchedulerAsyncPreemption,
  kSchedulerPopFromBackoffQ,
  kSchedulerQueueingHints,
  kSidecarContainers,
  kStorageCapacityScoring,
  kTaintTolerationComparisonOperators,
  kTopologyAwareWorkloadScheduling,
  kVolumeAttributesClass,
  kVolumeLimitScaling,
  kWorkloadAwarePreemption,
};
inline constexpr size_t kFeatureCount =
    static_cast<size_t>(Feature::kWorkloadAwarePreemption) + 1;

// A Kubernetes minor version, as --emulated-version takes it.
struct KubeVersion {
  int major = 1;
  int minor = 36;
  friend auto operator<=>(const KubeVersion&, const KubeVersion&) = default;
  std::string String() const;  // "1.36"
};

// The version ksched decides as, and the oldest it can emulate. kube's
// binaries emulate three minors back, so v1.36's stop at 1.33; ksched keeps
// 1.32, which its v1.35 reference emulated, for clusters still there.
inline constexpr KubeVersion kBinaryVersion{1, 36};
inline constexpr KubeVersion kEmulationFloor{1, 32};

// The minimum compatibility version kube pairs with an emulated version:
// one minor back, but never below the floor. It appears in kube's message
// for a gate set before it existed.
KubeVersion MinCompatibilityVersion(KubeVersion emulated);

// A gate's maturity, as kube prints it.
enum class Stage { kPreAlpha, kAlpha, kBeta, kGA, kDeprecated };
std::string_view StageName(Stage stage);  // "ALPHA", "BETA", ...

// One entry of a gate's history: from `since` on, this default and stage.
struct FeatureSpec {
  KubeVersion since;
  bool default_on = false;
  Stage stage = Stage::kAlpha;
  bool locked = false;  // LockToDefault
};

std::string_view FeatureName(Feature feature);
// The gate's history, oldest first, as kube v1.36's kube_features.go has it.
const std::vector<FeatureSpec>& FeatureHistory(Feature feature);
// The gates that must be on whenever this one is.
const std::vector<Feature>& FeatureDependencies(Feature feature);
// The spec in force at `version`; a gate younger than `version` is
// pre-alpha and off.
FeatureSpec SpecAt(Feature feature, KubeVersion version);

// --feature-gates' list of gates in kube's help format, sorted, at
// `version`: "kube:Name=true|false (BETA - default=true)" for every alpha
// and beta gate, AllAlpha and AllBeta included (GA, deprecated and
// pre-alpha gates are not offered, as kube leaves them out).
std::vector<std::string> KnownFeatures(KubeVersion version = kBinaryVersion);

class FeatureGates {
 public:
  // kube-scheduler v1.36's defaults (less the gates ksched has not built).
  FeatureGates() : FeatureGates(kBinaryVersion) {}
  // The defaults of `emulated` (not checked against the floor; Parse does),
  // less the gates ksched has not built.
  explicit FeatureGates(KubeVersion emulated);

  // --emulated-version (see ParseEmulatedVersion) and --feature-gates
  // ("Name=true,kube:Other=false"; several flags joined with commas),
  // checked and worded as kube's. A gate ksched does not know is not an
  // error, as in kube v1.36: it lands in `warnings` ("unrecognized feature
  // gate: Foo"), as does setting a GA gate; `warnings` is filled even when
  // an error follows, as kube logs them as it meets them.
  static util::Result<FeatureGates> Parse(std::string_view emulated_version,
                                          std::string_view feature_gates,
                                          std::vector<std::string>* warnings);

  bool Enabled(Feature feature) const {
    return enabled_[static_cast<size_t>(feature)];
  }
  // For tests and for callers that derive one gate from another.
  void Set(Feature feature, bool on) {
    enabled_[static_cast<size_t>(feature)] = on;
  }
  KubeVersion emulated_version() const { return emulated_; }
  // The gates kube would have on here (by default or through AllAlpha or
  // AllBeta) that ksched keeps off because it has not built their
  // behaviour, in enum order.
  const std::vector<Feature>& not_in_effect() const { return not_in_effect_; }
  // Gates set by --feature-gates, as "Name=true", in the order given.
  const std::vector<std::string>& overrides() const { return overrides_; }

 private:
  KubeVersion emulated_;
  // Turns off the gates ksched has not built, noting those that were on.
  void KeepUnbuiltOff();

  std::array<bool, kFeatureCount> enabled_{};
  std::vector<std::string> overrides_;
  std::vector<Feature> not_in_effect_;
};

// Parses --emulated-version as kube does: comma-separated items, each a
// version ("1.33", "v1.33", "1.33.0") or "component=version", where kube
// is the only component; then checks it lies in [kEmulationFloor,
// kBinaryVersion]. The errors are kube's words ("patch version not
// allowed, got: kube=1.33.1", "emulation version 1.31 is not between
// [1.32, 1.36.0]", "component not registered: wardle"). An empty value is
// the binary's version.
util::Result<KubeVersion> ParseEmulatedVersion(std::string_view value);

// Whether ksched has built the behaviour of this gate. The one list of the
// gates it has not, in feature_gates.cc, shrinks as the features land.
bool Built(Feature feature);

}  // namespace ksched::config
