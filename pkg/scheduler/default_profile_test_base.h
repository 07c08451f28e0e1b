// A test fixture with ksched's built-in profile (kube-scheduler's default
// plugins) built over a two-worker parallelizer and a fake clock, for the
// tests that drive the algorithm without the whole scheduler.
#pragma once

#include <gtest/gtest.h>

#include "pkg/config/config.h"
#include "pkg/framework/parallelizer.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/profile.h"
#include "pkg/util/fake_clock.h"

namespace ksched::scheduler::test {

class DefaultProfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    framework::Framework::Options o;
    o.parallelizer = &parallelizer_;
    o.clock = &clock_;
    auto profiles = BuildProfiles(Config(), registry_, o);
    ASSERT_TRUE(profiles.ok()) << profiles.error().message();
    profiles_ = std::move(*profiles);
    fwk_ = profiles_.begin()->second.get();
  }

  // The configuration the profile is built from.
  virtual config::KubeSchedulerConfiguration Config() const {
    return config::DefaultConfig();
  }

  framework::Registry registry_ = plugins::NewInTreeRegistry();
  framework::Parallelizer parallelizer_{2};
  util::FakeClock clock_;
  ProfileMap profiles_;
  framework::Framework* fwk_ = nullptr;
};

}  // namespace ksched::scheduler::test
