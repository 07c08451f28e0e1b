#include "pkg/config/feature_gates.h"

#include <charconv>
#include <map>
#include <optional>

namespace ksched::config {

namespace {

using enum Feature;

constexpr KubeVersion V(int minor) { return {1, minor}; }

struct FeatureEntry {
  Feature feature;
  std::string_view name;
  std::vector<FeatureSpec> history;
  std::vector<Feature> depends_on;
};

// kube v1.35.6, pkg/features/kube_features.go: the histories are
// defaultVersionedKubernetesFeatureGates (from line 1123), the dependencies
// defaultKubernetesFeatureGateDependencies (from line 2166).
// feature_gates_test.cc checks every entry against that file's lines.
const std::vector<FeatureEntry>& Entries() {
  static const auto* const kEntries = new std::vector<FeatureEntry>{
      {kCSIMigrationPortworx,
       "CSIMigrationPortworx",
       {{V(23), false, Stage::kAlpha},
        {V(25), false, Stage::kBeta},
        {V(31), true, Stage::kBeta},
        {V(33), true, Stage::kGA, true}},
       {}},
      {kDRAAdminAccess,
       "DRAAdminAccess",
       {{V(32), false, Stage::kAlpha}, {V(34), true, Stage::kBeta}},
       {kDynamicResourceAllocation}},
      {kDRAConsumableCapacity,
       "DRAConsumableCapacity",
       {{V(34), false, Stage::kAlpha}},
       {kDynamicResourceAllocation}},
      {kDRADeviceBindingConditions,
       "DRADeviceBindingConditions",
       {{V(34), false, Stage::kAlpha}},
       {kDynamicResourceAllocation, kDRAResourceClaimDeviceStatus}},
      {kDRADeviceTaintRules,
       "DRADeviceTaintRules",
       {{V(35), false, Stage::kAlpha}},
       {kDRADeviceTaints}},
      {kDRADeviceTaints,
       "DRADeviceTaints",
       {{V(33), false, Stage::kAlpha}},
       {kDynamicResourceAllocation}},
      {kDRAExtendedResource,
       "DRAExtendedResource",
       {{V(34), false, Stage::kAlpha}},
       {kDynamicResourceAllocation}},
      {kDRAPartitionableDevices,
       "DRAPartitionableDevices",
       {{V(33), false, Stage::kAlpha}},
       {kDynamicResourceAllocation}},
      {kDRAPrioritizedList,
       "DRAPrioritizedList",
       {{V(33), false, Stage::kAlpha}, {V(34), true, Stage::kBeta}},
       {kDynamicResourceAllocation}},
      {kDRAResourceClaimDeviceStatus,
       "DRAResourceClaimDeviceStatus",
       {{V(32), false, Stage::kAlpha}, {V(33), true, Stage::kBeta}},
       {}},
      {kDRASchedulerFilterTimeout,
       "DRASchedulerFilterTimeout",
       {{V(34), true, Stage::kBeta}},
       {kDynamicResourceAllocation}},
      {kDynamicResourceAllocation,
       "DynamicResourceAllocation",
       {{V(26), false, Stage::kAlpha},
        {V(32), false, Stage::kBeta},
        {V(34), true, Stage::kGA},
        {V(35), true, Stage::kGA, true}},
       {}},
      {kGangScheduling,
       "GangScheduling",
       {{V(35), false, Stage::kAlpha}},
       {kGenericWorkload}},
      {kGenericWorkload,
       "GenericWorkload",
       {{V(35), false, Stage::kAlpha}},
       {}},
      {kInPlacePodLevelResourcesVerticalScaling,
       "InPlacePodLevelResourcesVerticalScaling",
       {{V(35), false, Stage::kAlpha}},
       {kInPlacePodVerticalScaling, kPodLevelResources, kNodeDeclaredFeatures}},
      {kInPlacePodVerticalScaling,
       "InPlacePodVerticalScaling",
       {{V(27), false, Stage::kAlpha},
        {V(33), true, Stage::kBeta},
        {V(35), true, Stage::kGA, true}},
       {}},
      {kMatchLabelKeysInPodAffinity,
       "MatchLabelKeysInPodAffinity",
       {{V(29), false, Stage::kAlpha},
        {V(31), true, Stage::kBeta},
        {V(33), true, Stage::kGA, true}},
       {}},
      {kMatchLabelKeysInPodTopologySpread,
       "MatchLabelKeysInPodTopologySpread",
       {{V(25), false, Stage::kAlpha}, {V(27), true, Stage::kBeta}},
       {}},
      {kNodeDeclaredFeatures,
       "NodeDeclaredFeatures",
       {{V(35), false, Stage::kAlpha}},
       {}},
      {kNodeInclusionPolicyInPodTopologySpread,
       "NodeInclusionPolicyInPodTopologySpread",
       {{V(25), false, Stage::kAlpha},
        {V(26), true, Stage::kBeta},
        {V(33), true, Stage::kGA, true}},
       {}},
      {kNominatedNodeNameForExpectation,
       "NominatedNodeNameForExpectation",
       {{V(34), false, Stage::kAlpha}, {V(35), true, Stage::kBeta}},
       {}},
      {kOpportunisticBatching,
       "OpportunisticBatching",
       {{V(35), true, Stage::kBeta}},
       {}},
      {kPodLevelResources,
       "PodLevelResources",
       {{V(32), false, Stage::kAlpha}, {V(34), true, Stage::kBeta}},
       {}},
      {kPodSchedulingReadiness,
       "PodSchedulingReadiness",
       {{V(26), false, Stage::kAlpha},
        {V(27), true, Stage::kBeta},
        {V(30), true, Stage::kGA, true}},
       {}},
      {kSchedulerAsyncAPICalls,
       "SchedulerAsyncAPICalls",
       {{V(34), false, Stage::kBeta}},
       {}},
      {kSchedulerAsyncPreemption,
       "SchedulerAsyncPreemption",
       {{V(32), false, Stage::kAlpha}, {V(33), true, Stage::kBeta}},
       {}},
      {kSchedulerPopFromBackoffQ,
       "SchedulerPopFromBackoffQ",
       {{V(33), true, Stage::kBeta}},
       {}},
      {kSchedulerQueueingHints,
       "SchedulerQueueingHints",
       {{V(28), false, Stage::kBeta},
        {V(32), true, Stage::kBeta},
        {V(34), true, Stage::kGA, true}},
       {}},
      {kSidecarContainers,
       "SidecarContainers",
       {{V(28), false, Stage::kAlpha},
        {V(29), true, Stage::kBeta},
        {V(33), true, Stage::kGA, true}},
       {}},
      {kStorageCapacityScoring,
       "StorageCapacityScoring",
       {{V(33), false, Stage::kAlpha}},
       {}},
      {kTaintTolerationComparisonOperators,
       "TaintTolerationComparisonOperators",
       {{V(35), false, Stage::kAlpha}},
       {}},
      {kVolumeAttributesClass,
       "VolumeAttributesClass",
       {{V(29), false, Stage::kAlpha},
        {V(31), false, Stage::kBeta},
        {V(34), true, Stage::kGA}},
       {}},
      {kVolumeLimitScaling,
       "VolumeLimitScaling",
       {{V(35), false, Stage::kAlpha}},
       {}},
  };
  return *kEntries;
}

const FeatureEntry& EntryOf(Feature feature) {
  return Entries()[static_cast<size_t>(feature)];
}

std::optional<Feature> FeatureByName(std::string_view name) {
  for (const FeatureEntry& e : Entries()) {
    if (e.name == name) return e.feature;
  }
  return std::nullopt;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// strconv.ParseBool's spellings.
bool ParseBool(std::string_view s, bool* out) {
  for (std::string_view t : {"1", "t", "T", "true", "TRUE", "True"}) {
    if (s == t) return *out = true, true;
  }
  for (std::string_view f : {"0", "f", "F", "false", "FALSE", "False"}) {
    if (s == f) return *out = false, true;
  }
  return false;
}

const char* BoolText(bool b) { return b ? "true" : "false"; }

// version.Parse of a generic version: dot-separated unsigned numbers, at
// least major.minor; only 1.x is meaningful here.
util::Result<std::vector<int>> ParseNumbers(std::string_view text) {
  std::vector<int> parts;
  std::string_view rest = text;
  while (true) {
    const size_t dot = rest.find('.');
    const std::string_view part = rest.substr(0, dot);
    int value = 0;
    auto [end, ec] =
        std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() ||
        (part.size() > 1 && part.front() == '0')) {
      return util::Error("could not parse \"" + std::string(text) +
                         "\" as version");
    }
    parts.push_back(value);
    if (dot == std::string_view::npos) break;
    rest = rest.substr(dot + 1);
  }
  if (parts.size() < 2) {
    return util::Error("could not parse \"" + std::string(text) +
                       "\" as version");
  }
  return parts;
}

}  // namespace

std::string KubeVersion::String() const {
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string_view StageName(Stage stage) {
  switch (stage) {
    case Stage::kPreAlpha:
      return "PRE-ALPHA";
    case Stage::kAlpha:
      return "ALPHA";
    case Stage::kBeta:
      return "BETA";
    case Stage::kGA:
      return "";
    case Stage::kDeprecated:
      return "DEPRECATED";
  }
  return "";
}

std::string_view FeatureName(Feature feature) { return EntryOf(feature).name; }

const std::vector<FeatureSpec>& FeatureHistory(Feature feature) {
  return EntryOf(feature).history;
}

FeatureSpec SpecAt(Feature feature, KubeVersion version) {
  const std::vector<FeatureSpec>& history = FeatureHistory(feature);
  for (auto it = history.rbegin(); it != history.rend(); ++it) {
    if (it->since <= version) return *it;
  }
  return {{0, 0}, false, Stage::kPreAlpha, false};
}

FeatureGates::FeatureGates(KubeVersion emulated) : emulated_(emulated) {
  for (size_t i = 0; i < kFeatureCount; ++i) {
    enabled_[i] = SpecAt(static_cast<Feature>(i), emulated).default_on;
  }
}

util::Result<KubeVersion> ParseEmulatedVersion(std::string_view value) {
  std::string_view component = "kube";
  std::string_view text = Trim(value);
  if (const size_t eq = text.find('='); eq != std::string_view::npos) {
    component = Trim(text.substr(0, eq));
    text = Trim(text.substr(eq + 1));
  }
  if (component != "kube") {
    return util::Error("component not registered: " + std::string(component));
  }
  auto numbers = ParseNumbers(text);
  if (!numbers.ok()) return numbers.error();
  if (numbers->size() > 2 && (*numbers)[2] != 0) {
    return util::Error("patch version not allowed, got: kube=" +
                       std::string(text));
  }
  const KubeVersion version{(*numbers)[0], (*numbers)[1]};
  if (version < kEmulationFloor || version > kBinaryVersion) {
    return util::Error("emulation version " + version.String() +
                       " is not between [" + kEmulationFloor.String() + ", " +
                       kBinaryVersion.String() + ".0]");
  }
  return version;
}

util::Result<FeatureGates> FeatureGates::Parse(
    std::string_view emulated_version, std::string_view feature_gates,
    std::vector<std::string>* warnings) {
  KubeVersion emulated = kBinaryVersion;
  if (!Trim(emulated_version).empty()) {
    auto parsed = ParseEmulatedVersion(emulated_version);
    if (!parsed.ok()) return parsed.error();
    emulated = *parsed;
  }
  FeatureGates gates(emulated);
  auto warn = [&](std::string text) {
    if (warnings != nullptr) warnings->push_back(std::move(text));
  };

  // Explicit gates first; AllAlpha and AllBeta then fill the gates of their
  // stage that were not named, as kube's special gates do.
  std::map<Feature, bool> explicit_gates;
  std::optional<bool> all_alpha;
  std::optional<bool> all_beta;
  std::vector<std::string> errors;
  std::string_view rest = feature_gates;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view item = Trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view()
                                           : rest.substr(comma + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return util::Error("missing bool value for " + std::string(item));
    }
    std::string_view name = Trim(item.substr(0, eq));
    // kube's --feature-gates takes an optional "kube:" component prefix.
    if (name.starts_with("kube:")) name.remove_prefix(5);
    const std::string_view raw = Trim(item.substr(eq + 1));
    bool on = false;
    if (!ParseBool(raw, &on)) {
      return util::Error("invalid value of " + std::string(name) + "=" +
                         std::string(raw) +
                         ", err: strconv.ParseBool: parsing \"" +
                         std::string(raw) + "\": invalid syntax");
    }
    if (name == "AllAlpha") {
      all_alpha = on;
      continue;
    }
    if (name == "AllBeta") {
      all_beta = on;
      continue;
    }
    const std::optional<Feature> feature = FeatureByName(name);
    if (!feature) {
      warn("unrecognized feature gate: " + std::string(name));
      continue;
    }
    const FeatureSpec spec = SpecAt(*feature, emulated);
    if (spec.locked && spec.default_on != on) {
      errors.push_back("cannot set feature gate " + std::string(name) + " to " +
                       BoolText(on) + ", feature is locked to " +
                       BoolText(spec.default_on));
      continue;
    }
    if (spec.stage == Stage::kPreAlpha) {
      const KubeVersion min_compat{emulated.major, emulated.minor - 1};
      errors.push_back("cannot set feature gate " + std::string(name) + " to " +
                       BoolText(on) +
                       ", feature is PreAlpha at emulated version " +
                       emulated.String() + ", min compatibility version " +
                       min_compat.String());
      continue;
    }
    if (spec.stage == Stage::kGA) {
      warn("Setting GA feature gate " + std::string(name) + "=" + BoolText(on) +
           ". It will be removed in a future release.");
    }
    explicit_gates[*feature] = on;
    gates.overrides_.push_back(std::string(name) + "=" + BoolText(on));
  }
  if (!errors.empty()) {
    std::string joined;
    for (const std::string& e : errors) {
      joined += (joined.empty() ? "" : ", ") + e;
    }
    return util::Error(errors.size() == 1 ? joined : "[" + joined + "]");
  }

  for (const auto& [feature, on] : explicit_gates) gates.Set(feature, on);
  for (size_t i = 0; i < kFeatureCount; ++i) {
    const auto feature = static_cast<Feature>(i);
    if (explicit_gates.contains(feature)) continue;
    const Stage stage = SpecAt(feature, emulated).stage;
    if (stage == Stage::kAlpha && all_alpha) gates.Set(feature, *all_alpha);
    if (stage == Stage::kBeta && all_beta) gates.Set(feature, *all_beta);
  }

  // An enabled gate whose dependencies are off is refused, as kube does.
  for (const FeatureEntry& e : Entries()) {
    if (!gates.Enabled(e.feature)) continue;
    std::string disabled;
    for (Feature dep : e.depends_on) {
      if (gates.Enabled(dep)) continue;
      disabled += (disabled.empty() ? "" : " ") + std::string(FeatureName(dep));
    }
    if (!disabled.empty()) {
      return util::Error(std::string(e.name) +
                         " is enabled, but depends on features that are "
                         "disabled: [" +
                         disabled + "]");
    }
  }
  return gates;
}

}  // namespace ksched::config
