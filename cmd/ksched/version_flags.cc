#include "cmd/ksched/version_flags.h"

namespace ksched::cmd {
namespace {

std::string Joined(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : ",") + v;
  return out;
}

// "kube:DynamicResourceAllocation=true|false (GA - default=false at 1.32,
// 1.33)" for each gate that is GA at the binary's version and off by
// default at an older version it can emulate.
std::vector<std::string> GatesOffInOlderVersions() {
  std::vector<std::string> lines;
  for (size_t i = 0; i < config::kFeatureCount; ++i) {
    const auto f = static_cast<config::Feature>(i);
    if (config::SpecAt(f, config::kBinaryVersion).stage != config::Stage::kGA) {
      continue;
    }
    std::vector<std::string> off;
    for (config::KubeVersion v = config::kEmulationFloor;
         v < config::kBinaryVersion; ++v.minor) {
      if (!config::SpecAt(f, v).default_on) off.push_back(v.String());
    }
    if (off.empty()) continue;
    std::string versions;
    for (const std::string& v : off) {
      versions += (versions.empty() ? "" : ", ") + v;
    }
    lines.push_back("kube:" + std::string(config::FeatureName(f)) +
                    "=true|false (GA - default=false at " + versions + ")");
  }
  return lines;
}

}  // namespace

void VersionFlags::Register(util::FlagSet& flags) {
  const std::string binary = config::kBinaryVersion.String();
  const std::string floor = config::kEmulationFloor.String();
  flags.StringList(
      "emulated-version", &emulated_version_,
      "ksched decides as kube-scheduler v" + binary +
          "; with this it decides as an older one, back to v" + floor +
          ": the feature gates take that version's defaults and stages, "
          "while what kube changed without a gate stays v" +
          binary +
          "'s. As kube takes it: 1.33 or kube=1.33 (major.minor only). "
          "Versions: kube=" +
          floor + ".." + binary + " (default " + binary + ")");
  std::string gates_help =
      "Feature gates: Name=true|false pairs, comma-separated, each "
      "optionally written kube:Name=... (repeatable). A gate ksched does not "
      "know is warned about and ignored, as kube-scheduler does. The gates "
      "with their defaults at v" +
      binary + ":";
  // One per line, indented under the help column by the usage printer.
  for (const std::string& line : config::KnownFeatures()) {
    gates_help += "\n" + line;
  }
  // kube's list leaves GA gates out; those an older --emulated-version
  // turns off are listed too, as a file may need them turned back on.
  const std::vector<std::string> older = GatesOffInOlderVersions();
  if (!older.empty()) {
    gates_help += "\nGA at v" + binary +
                  ", but off by default at an older --emulated-version:";
    for (const std::string& line : older) gates_help += "\n" + line;
  }
  flags.StringList("feature-gates", &feature_gates_, gates_help);
}

util::Result<config::FeatureGates> VersionFlags::Gates(
    std::vector<std::string>* warnings) const {
  const std::string emulated = Joined(emulated_version_);
  if (auto version = config::ParseEmulatedVersion(emulated); !version.ok()) {
    return util::Error("--emulated-version: " + version.error().message());
  }
  auto gates =
      config::FeatureGates::Parse(emulated, Joined(feature_gates_), warnings);
  if (!gates.ok()) {
    return util::Error("--feature-gates: " + gates.error().message());
  }
  return gates;
}

std::string DecidesAs(const config::FeatureGates& gates) {
  std::string line =
      "ksched decides as kube-scheduler v" + config::kBinaryVersion.String();
  if (gates.emulated_version() != config::kBinaryVersion) {
    const std::string emulated = gates.emulated_version().String();
    line += " emulating v" + emulated + " (feature gates at their v" +
            emulated + " defaults)";
  }
  if (!gates.overrides().empty()) {
    line += "; --feature-gates " + Joined(gates.overrides());
  }
  return line;
}

std::optional<std::string> NotInEffectNote(const config::FeatureGates& gates) {
  if (gates.not_in_effect().empty()) return std::nullopt;
  std::string names;
  for (config::Feature f : gates.not_in_effect()) {
    names += (names.empty() ? "" : ", ") + std::string(config::FeatureName(f));
  }
  return "not yet in effect: " + names + " (kube-scheduler v" +
         config::kBinaryVersion.String() + " has them on" +
         (gates.emulated_version() != config::kBinaryVersion
              ? " emulating v" + gates.emulated_version().String()
              : std::string()) +
         "; ksched does not implement them yet and keeps them off)";
}

}  // namespace ksched::cmd
