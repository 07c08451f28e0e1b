#include "pkg/plugins/defaultbinder/default_binder.h"

#include <gtest/gtest.h>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::plugins {
namespace {

TEST(DefaultBinderTest, BindsThroughTheHandlesBinder) {
  testing::FakeHandle handle;
  auto plugin = NewDefaultBinder(nullptr, handle);
  ASSERT_TRUE(plugin.ok());
  auto* binder = dynamic_cast<framework::BindPlugin*>(plugin->get());
  ASSERT_NE(binder, nullptr);
  framework::CycleState state;
  auto pod = testing::PodBuilder("web").Namespace("shop").Info();
  framework::Status s = binder->Bind(state, *pod, "node-1");
  EXPECT_TRUE(s.IsSuccess()) << s.Message();
  ASSERT_EQ(handle.recording_binder.bound.size(), 1u);
  EXPECT_EQ(handle.recording_binder.bound[0].first, "shop/web");
  EXPECT_EQ(handle.recording_binder.bound[0].second, "node-1");
}

TEST(DefaultBinderTest, BinderFailureIsAnError) {
  testing::FakeHandle handle;
  handle.recording_binder.result = framework::Status::Unschedulable(
      "pod web is already assigned to node \"node-2\"");
  auto plugin = NewDefaultBinder(nullptr, handle);
  ASSERT_TRUE(plugin.ok());
  auto* binder = dynamic_cast<framework::BindPlugin*>(plugin->get());
  framework::CycleState state;
  framework::Status s =
      binder->Bind(state, *testing::PodBuilder("web").Info(), "node-1");
  EXPECT_EQ(s.code(), framework::Code::kError);
  EXPECT_EQ(s.Message(), "pod web is already assigned to node \"node-2\"");
}

}  // namespace
}  // namespace ksched::plugins
