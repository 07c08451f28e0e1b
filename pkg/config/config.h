// Loading ksched's configuration: a KubeSchedulerConfiguration file
// (kubescheduler.config.k8s.io/v1, YAML or JSON) read exactly as
// kube-scheduler v1.32 reads it: strict decoding, then defaulting (with
// ksched's own identity, see defaults.h), then validation; errors name the
// field in kube-scheduler's words.
//
//   config::LoadOptions options{.known_plugins = registry.Names()};
//   auto cfg = config::LoadConfigFile("/etc/ksched/config.yaml", options);
//   if (!cfg.ok()) { log(cfg.error().message()); return 1; }
//   for (const auto& field : cfg->not_acted_on) warn(field);
//
// Where loading differs from kube-scheduler's, on purpose:
//   - ksched's identity defaults (defaults.h);
//   - more than one YAML document is an error (kube-scheduler reads the
//     first and ignores the rest);
//   - a negative plugin weight is an error (kube-scheduler scores with it);
//   - NodeResourcesFit args are validated here, with their path
//     (kube-scheduler checks them only when it builds the plugin);
//   - a duplicated schedulerName is reported with the name, not the path of
//     the earlier profile;
//   - LoadOptions::known_plugins, and files over 16 MiB are refused;
//   - YAML scalars are typed by YAML 1.2 (kube-scheduler's YAML 1.1 also
//     reads yes/no/on/off as booleans), and durations are kept in
//     milliseconds.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/config/defaults.h"
#include "pkg/config/feature_gates.h"
#include "pkg/config/types.h"
#include "pkg/util/result.h"

namespace ksched::config {

// A configuration file larger than this is refused unread.
inline constexpr size_t kMaxConfigFileBytes = size_t{16} << 20;  // 16 MiB

struct LoadOptions {
  // When non-empty, every plugin the file names (enabled or disabled at any
  // extension point or multiPoint, "*" aside, and in pluginConfig) must be
  // one of these.
  std::vector<std::string> known_plugins;
  // Defaults and validation follow these gates (kube-scheduler's
  // --feature-gates and --emulated-version).
  FeatureGates gates;
};

// Decodes, defaults and validates one configuration document.
util::Result<KubeSchedulerConfiguration> ParseConfig(
    std::string_view text, const LoadOptions& options = {});

// ParseConfig on a file's contents; errors name the file.
util::Result<KubeSchedulerConfiguration> LoadConfigFile(
    const std::string& path, const LoadOptions& options = {});

// The configuration ksched runs with when given no file: an empty v1
// configuration, defaulted.
KubeSchedulerConfiguration DefaultConfig(
    const FeatureGates& gates = FeatureGates());

}  // namespace ksched::config
