#include "pkg/config/feature_gates.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <regex>
#include <utility>

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

// kube v1.36.3, pkg/features/kube_features.go: the histories are
// defaultVersionedKubernetesFeatureGates (from line 1240), the dependencies
// defaultKubernetesFeatureGateDependencies (from line 2386).
// feature_gates_test.cc checks every entry against that file's lines.
// CSIMigrationPortworx left kube's table in v1.36; its history stays here for
// the versions ksched still emulates.
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
       {{V(32), false, Stage::kAlpha},
        {V(34), true, Stage::kBeta},
        {V(36), true, Stage::kGA, true}},
       {kDynamicResourceAllocation}},
      {kDRAConsumableCapacity,
       "DRAConsumableCapacity",
       {{V(34), false, Stage::kAlpha}, {V(36), true, Stage::kBeta}},
       {kDynamicResourceAllocation}},
      {kDRADeviceBindingConditions,
       "DRADeviceBindingConditions",
       {{V(34), false, Stage::kAlpha}, {V(36), true, Stage::kBeta}},
       {kDynamicResourceAllocation, kDRAResourceClaimDeviceStatus}},
      {kDRADeviceTaintRules,
       "DRADeviceTaintRules",
       {{V(35), false, Stage::kAlpha}, {V(36), false, Stage::kBeta}},
       {kDRADeviceTaints}},
      {kDRADeviceTaints,
       "DRADeviceTaints",
       {{V(33), false, Stage::kAlpha}, {V(36), true, Stage::kBeta}},
       {kDynamicResourceAllocation}},
      {kDRAExtendedResource,
       "DRAExtendedResource",
       {{V(34), false, Stage::kAlpha}, {V(36), true, Stage::kBeta}},
       {kDynamicResourceAllocation}},
      {kDRAListTypeAttributes,
       "DRAListTypeAttributes",
       {{V(36), false, Stage::kAlpha}},
       {kDynamicResourceAllocation}},
      {kDRANodeAllocatableResources,
       "DRANodeAllocatableResources",
       {{V(36), false, Stage::kAlpha}},
       {kDynamicResourceAllocation}},
      {kDRAPartitionableDevices,
       "DRAPartitionableDevices",
       {{V(33), false, Stage::kAlpha}, {V(36), true, Stage::kBeta}},
       {kDynamicResourceAllocation}},
      {kDRAPrioritizedList,
       "DRAPrioritizedList",
       {{V(33), false, Stage::kAlpha},
        {V(34), true, Stage::kBeta},
        {V(36), true, Stage::kGA}},
       {kDynamicResourceAllocation}},
      {kDRAResourceClaimDeviceStatus,
       "DRAResourceClaimDeviceStatus",
       {{V(32), false, Stage::kAlpha}, {V(33), true, Stage::kBeta}},
       {}},
      {kDRASchedulerFilterTimeout,
       "DRASchedulerFilterTimeout",
       {{V(34), true, Stage::kBeta}},
       {kDynamicResourceAllocation}},
      {kDRAWorkloadResourceClaims,
       "DRAWorkloadResourceClaims",
       {{V(36), false, Stage::kAlpha}},
       {kDynamicResourceAllocation, kGenericWorkload}},
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
       {{V(35), false, Stage::kAlpha}, {V(36), true, Stage::kBeta}},
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
       {{V(35), false, Stage::kAlpha}, {V(36), true, Stage::kBeta}},
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
      {kPodObservedGenerationTracking,
       "PodObservedGenerationTracking",
       {{V(33), false, Stage::kAlpha},
        {V(34), true, Stage::kBeta},
        {V(35), true, Stage::kGA, true}},
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
      {kTopologyAwareWorkloadScheduling,
       "TopologyAwareWorkloadScheduling",
       {{V(36), false, Stage::kAlpha}},
       {kGenericWorkload}},
      {kVolumeAttributesClass,
       "VolumeAttributesClass",
       {{V(29), false, Stage::kAlpha},
        {V(31), false, Stage::kBeta},
        {V(34), true, Stage::kGA},
        {V(36), true, Stage::kGA, true}},
       {}},
      {kVolumeLimitScaling,
       "VolumeLimitScaling",
       {{V(35), false, Stage::kAlpha}},
       {}},
      {kWorkloadAwarePreemption,
       "WorkloadAwarePreemption",
       {{V(36), false, Stage::kAlpha}},
       {kGangScheduling}},
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

// strings.TrimSpace, for the ASCII blanks.
std::string_view Trim(std::string_view s) {
  constexpr std::string_view kBlanks = " \t\n\v\f\r";
  const size_t begin = s.find_first_not_of(kBlanks);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kBlanks) - begin + 1);
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

// A version as apimachinery's version.Parse reads it: semantic
// ("1.33.0", "1.33.0-rc.1") when it can be, else generic (two or more
// numbers, then anything, ignored).
struct ParsedVersion {
  std::vector<uint64_t> components;
  std::string pre_release;
  std::string build_metadata;
  uint64_t Patch() const { return components.size() > 2 ? components[2] : 0; }
  std::string String() const {
    std::string out;
    for (size_t i = 0; i < components.size(); ++i) {
      out += (i == 0 ? "" : ".") + std::to_string(components[i]);
    }
    if (!pre_release.empty()) out += "-" + pre_release;
    if (!build_metadata.empty()) out += "+" + build_metadata;
    return out;
  }
};

util::Result<ParsedVersion> ParseVersionAs(const std::string& text,
                                           bool semantic) {
  // Leading blanks and a "v" are allowed; the numbers are the longest run
  // of dot-separated digits; whatever follows is the "extra".
  static const std::regex* const kVersion =
      new std::regex(R"(^\s*v?([0-9]+(?:\.[0-9]+)*)([\s\S]*)$)");
  static const std::regex* const kExtra =
      new std::regex(R"(^(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?)"
                     R"((?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?\s*$)");
  const std::string quoted = "\"" + text + "\"";
  std::smatch m;
  if (!std::regex_match(text, m, *kVersion)) {
    return util::Error("could not parse " + quoted + " as version");
  }
  const std::string numbers = m[1].str();
  const std::string extra = m[2].str();
  std::vector<std::string> parts;
  for (size_t from = 0;;) {
    const size_t dot = numbers.find('.', from);
    parts.push_back(numbers.substr(from, dot - from));
    if (dot == std::string::npos) break;
    from = dot + 1;
  }
  if ((semantic && parts.size() != 3) || (!semantic && parts.size() < 2)) {
    return util::Error("illegal version string " + quoted);
  }
  ParsedVersion v;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    if ((i == 0 || semantic) && part.size() > 1 && part.front() == '0') {
      return util::Error("illegal zero-prefixed version component \"" + part +
                         "\" in " + quoted);
    }
    uint64_t value = 0;
    auto [end, ec] =
        std::from_chars(part.data(), part.data() + part.size(), value);
    if (ec != std::errc() || end != part.data() + part.size()) {
      return util::Error("illegal non-numeric version component \"" + part +
                         "\" in " + quoted + ": strconv.ParseUint: parsing \"" +
                         part + "\": value out of range");
    }
    v.components.push_back(value);
  }
  if (semantic && !extra.empty()) {
    std::smatch e;
    if (!std::regex_match(extra, e, *kExtra)) {
      return util::Error("could not parse pre-release/metadata (" + extra +
                         ") in version " + quoted);
    }
    v.pre_release = e[1].str();
    v.build_metadata = e[2].str();
    for (size_t from = 0; !v.pre_release.empty();) {
      const size_t dot = v.pre_release.find('.', from);
      const std::string id = v.pre_release.substr(from, dot - from);
      const bool numeric = !id.empty() && id.find_first_not_of("0123456789") ==
                                              std::string::npos;
      if (numeric && id.size() > 1 && id.front() == '0') {
        return util::Error("illegal zero-prefixed version component \"" + id +
                           "\" in " + quoted);
      }
      if (dot == std::string::npos) break;
      from = dot + 1;
    }
  }
  return v;
}

// version.Parse: semantic first, and the generic reading's error.
util::Result<ParsedVersion> ParseVersion(const std::string& text) {
  auto semantic = ParseVersionAs(text, true);
  if (semantic.ok()) return semantic;
  return ParseVersionAs(text, false);
}

// The items of a comma-separated flag value, as Go's strings.Split (and
// pflag's StringSlice, for values without quotes) cut them.
std::vector<std::string_view> SplitCommas(std::string_view value) {
  std::vector<std::string_view> items;
  for (size_t from = 0;;) {
    const size_t comma = value.find(',', from);
    items.push_back(value.substr(from, comma - from));
    if (comma == std::string_view::npos) break;
    from = comma + 1;
  }
  return items;
}

// utilerrors.NewAggregate's message.
std::string Aggregate(const std::vector<std::string>& errors) {
  if (errors.size() == 1) return errors.front();
  std::string joined;
  for (const std::string& e : errors) {
    joined += (joined.empty() ? "" : ", ") + e;
  }
  return "[" + joined + "]";
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
  KeepUnbuiltOff();
}

void FeatureGates::KeepUnbuiltOff() {
  not_in_effect_.clear();
  for (size_t i = 0; i < kFeatureCount; ++i) {
    const auto feature = static_cast<Feature>(i);
    if (Built(feature) || !enabled_[i]) continue;
    enabled_[i] = false;
    not_in_effect_.push_back(feature);
  }
}

KubeVersion MinCompatibilityVersion(KubeVersion emulated) {
  const KubeVersion back{emulated.major, emulated.minor - 1};
  return std::max(back, kEmulationFloor);
}

const std::vector<Feature>& FeatureDependencies(Feature feature) {
  return EntryOf(feature).depends_on;
}

std::vector<std::string> KnownFeatures(KubeVersion version) {
  std::vector<std::string> known = {
      "kube:AllAlpha=true|false (ALPHA - default=false)",
      "kube:AllBeta=true|false (BETA - default=false)"};
  for (const FeatureEntry& e : Entries()) {
    const FeatureSpec spec = SpecAt(e.feature, version);
    if (spec.stage != Stage::kAlpha && spec.stage != Stage::kBeta) continue;
    known.push_back("kube:" + std::string(e.name) + "=true|false (" +
                    std::string(StageName(spec.stage)) +
                    " - default=" + BoolText(spec.default_on) + ")");
  }
  std::sort(known.begin(), known.end());
  return known;
}

util::Result<KubeVersion> ParseEmulatedVersion(std::string_view value) {
  // component -> version, in the order given.
  std::vector<std::pair<std::string, ParsedVersion>> versions;
  if (!value.empty()) {
    for (std::string_view item : SplitCommas(value)) {
      std::string component = "kube";
      std::string text(item);
      if (const size_t eq = item.find('='); eq != std::string_view::npos) {
        component = std::string(Trim(item.substr(0, eq)));
        text = std::string(Trim(item.substr(eq + 1)));
      }
      auto parsed = ParseVersion(text);
      if (!parsed.ok()) return parsed.error();
      if (parsed->Patch() != 0) {
        return util::Error("patch version not allowed, got: " + component +
                           "=" + parsed->String());
      }
      for (const auto& [c, v] : versions) {
        if (c == component) {
          return util::Error("duplicate version flag, " + c + "=" + v.String() +
                             " and " + component + "=" + parsed->String());
        }
      }
      versions.emplace_back(std::move(component), std::move(*parsed));
    }
  }
  KubeVersion emulated = kBinaryVersion;
  for (const auto& [component, v] : versions) {
    if (component != "kube") {
      return util::Error("component not registered: " + component);
    }
    // Only the major and minor count; the range check sees them alone.
    const auto narrow = [](uint64_t n) {
      return static_cast<int>(std::min<uint64_t>(n, 1u << 30));
    };
    emulated = {narrow(v.components[0]), narrow(v.components[1])};
    if (emulated < kEmulationFloor || emulated > kBinaryVersion) {
      return util::Error(
          "emulation version " + std::to_string(v.components[0]) + "." +
          std::to_string(v.components[1]) + " is not between [" +
          kEmulationFloor.String() + ", " + kBinaryVersion.String() + ".0]");
    }
  }
  return emulated;
}

util::Result<FeatureGates> FeatureGates::Parse(
    std::string_view emulated_version, std::string_view feature_gates,
    std::vector<std::string>* warnings) {
  auto emulated = ParseEmulatedVersion(emulated_version);
  if (!emulated.ok()) return emulated.error();
  FeatureGates gates(*emulated);
  auto warn = [&](std::string text) {
    if (warnings != nullptr) warnings->push_back(std::move(text));
  };

  // kube's --feature-gates takes "component:Name=value" pairs, where the
  // component is kube or left out (but not both ways at once).
  std::vector<std::string_view> items;
  bool bare = false;
  bool prefixed = false;
  for (std::string_view pair : SplitCommas(feature_gates)) {
    if (pair.empty()) continue;
    std::string_view item = Trim(pair);
    if (const size_t colon = pair.find(':'); colon != std::string_view::npos) {
      const std::string_view component = Trim(pair.substr(0, colon));
      if (component != "kube" && !component.empty()) {
        return util::Error("component not registered: " +
                           std::string(component));
      }
      item = Trim(pair.substr(colon + 1));
      (component.empty() ? bare : prefixed) = true;
    } else {
      bare = true;
    }
    items.push_back(item);
  }
  if (bare && prefixed) {
    return util::Error(
        "set kube feature gates with default empty prefix or kube: prefix "
        "consistently, do not mix use");
  }

  // Name -> value, the last one given winning, in first-given order.
  std::vector<std::pair<std::string, bool>> given;
  for (std::string_view item : items) {
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    const std::string name(Trim(item.substr(0, eq)));
    if (eq == std::string_view::npos) {
      return util::Error("missing bool value for " + name);
    }
    const std::string raw(Trim(item.substr(eq + 1)));
    bool on = false;
    if (!ParseBool(raw, &on)) {
      return util::Error("invalid value of " + name + "=" + raw +
                         ", err: strconv.ParseBool: parsing \"" + raw +
                         "\": invalid syntax");
    }
    auto it = std::find_if(given.begin(), given.end(),
                           [&](const auto& g) { return g.first == name; });
    if (it == given.end()) {
      given.emplace_back(name, on);
    } else {
      it->second = on;
    }
  }

  // Explicit gates first; AllAlpha and AllBeta then fill the gates of their
  // stage that were not named, as kube's special gates do.
  std::array<std::optional<bool>, kFeatureCount> explicit_gates{};
  std::optional<bool> all_alpha;
  std::optional<bool> all_beta;
  std::vector<std::string> errors;
  for (const auto& [name, on] : given) {
    if (name == "AllAlpha" || name == "AllBeta") {
      (name == "AllAlpha" ? all_alpha : all_beta) = on;
      gates.overrides_.push_back(name + "=" + BoolText(on));
      continue;
    }
    const std::optional<Feature> feature = FeatureByName(name);
    if (!feature) {
      warn("unrecognized feature gate: " + name);
      continue;
    }
    const FeatureSpec spec = SpecAt(*feature, *emulated);
    if (spec.locked && spec.default_on != on) {
      errors.push_back("cannot set feature gate " + name + " to " +
                       BoolText(on) + ", feature is locked to " +
                       BoolText(spec.default_on));
      continue;
    }
    if (spec.stage == Stage::kPreAlpha) {
      errors.push_back("cannot set feature gate " + name + " to " +
                       BoolText(on) +
                       ", feature is PreAlpha at emulated version " +
                       emulated->String() + ", min compatibility version " +
                       MinCompatibilityVersion(*emulated).String());
      continue;
    }
    // Off is what ksched does anyway; on would promise behaviour it lacks.
    if (on && !Built(*feature)) {
      errors.push_back("cannot set feature gate " + name +
                       " to true, ksched does not implement it yet");
      continue;
    }
    if (spec.stage == Stage::kGA) {
      warn("Setting GA feature gate " + name + "=" + BoolText(on) +
           ". It will be removed in a future release.");
    } else if (spec.stage == Stage::kDeprecated) {
      warn("Setting deprecated feature gate " + name + "=" + BoolText(on) +
           ". It will be removed in a future release.");
    }
    explicit_gates[static_cast<size_t>(*feature)] = on;
    gates.overrides_.push_back(name + "=" + BoolText(on));
  }
  if (!errors.empty()) return util::Error(Aggregate(errors));

  // The defaults again, this time with kube's view of the unbuilt gates, so
  // that AllAlpha=false, say, takes them out of not_in_effect.
  for (size_t i = 0; i < kFeatureCount; ++i) {
    const auto feature = static_cast<Feature>(i);
    gates.Set(feature, SpecAt(feature, *emulated).default_on);
    if (explicit_gates[i]) {
      gates.Set(feature, *explicit_gates[i]);
      continue;
    }
    const Stage stage = SpecAt(feature, *emulated).stage;
    if (stage == Stage::kAlpha && all_alpha) gates.Set(feature, *all_alpha);
    if (stage == Stage::kBeta && all_beta) gates.Set(feature, *all_beta);
  }

  // An enabled gate whose dependencies are off is refused, as kube does;
  // every such gate is named.
  for (const FeatureEntry& e : Entries()) {
    if (!gates.Enabled(e.feature)) continue;
    std::string disabled;
    for (Feature dep : e.depends_on) {
      if (gates.Enabled(dep)) continue;
      disabled += (disabled.empty() ? "" : " ") + std::string(FeatureName(dep));
    }
    if (!disabled.empty()) {
      errors.push_back(std::string(e.name) +
                       " is enabled, but depends on features that are "
                       "disabled: [" +
                       disabled + "]");
    }
  }
  if (!errors.empty()) return util::Error(Aggregate(errors));
  gates.KeepUnbuiltOff();
  return gates;
}

namespace {

// Gates kube-scheduler v1.36 reads whose behaviour ksched does not have yet.
// Remove a gate here when its feature lands.
constexpr Feature kNotBuilt[] = {
    kDRADeviceTaintRules,
    kDRAListTypeAttributes,
    kDRANodeAllocatableResources,
    kDRAWorkloadResourceClaims,
    kGangScheduling,
    kGenericWorkload,
    kSchedulerAsyncAPICalls,
    kStorageCapacityScoring,
    kTaintTolerationComparisonOperators,
    kTopologyAwareWorkloadScheduling,
    kVolumeLimitScaling,
    kWorkloadAwarePreemption,
};

}  // namespace

bool Built(Feature feature) {
  return std::find(std::begin(kNotBuilt), std::end(kNotBuilt), feature) ==
         std::end(kNotBuilt);
}

}  // namespace ksched::config
