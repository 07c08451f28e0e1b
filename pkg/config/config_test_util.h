// Helpers shared by the configuration tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "pkg/config/config.h"

namespace ksched::config::test_util {

inline constexpr char kHeader[] =
    "apiVersion: kubescheduler.config.k8s.io/v1\n"
    "kind: KubeSchedulerConfiguration\n";

// Parses kHeader + body; fails the test (and returns the defaults) when the
// configuration is refused.
inline KubeSchedulerConfiguration MustParse(const std::string& body,
                                            const LoadOptions& options = {}) {
  auto config = ParseConfig(std::string(kHeader) + body, options);
  EXPECT_TRUE(config.ok()) << config.error().message();
  return config.ok() ? *config : KubeSchedulerConfiguration{};
}

// The error for kHeader + body, or "<accepted>".
inline std::string ErrorFor(const std::string& body,
                            const LoadOptions& options = {}) {
  auto config = ParseConfig(std::string(kHeader) + body, options);
  return config.ok() ? "<accepted>" : config.error().message();
}

template <typename T>
const T* Args(const Profile& profile, std::string_view plugin) {
  return dynamic_cast<const T*>(profile.ArgsFor(plugin));
}

}  // namespace ksched::config::test_util
