// Servers started, stopped and destroyed while watches are open, in
// quick succession: nothing is left behind and every server answers.
#include <gtest/gtest.h>

#include <thread>

#include "test/apiserver/apiserver_test_util.h"

namespace ksched::testing {
namespace {

class LifecycleTest : public ApiServerTest {};

TEST_F(LifecycleTest, DestroyedWithWatchesOpen) {
  for (int i = 0; i < 15; ++i) {
    StartServer({});
    auto a = OpenWatch("/api/v1/pods?watch=true");
    auto b = OpenWatch("/api/v1/pods?watch=true&labelSelector=x%3Dy");
    WaitForWatches(2);
    server_->Create("/api/v1/namespaces/default/pods", PodJson("p"));
    ASSERT_EQ(ReadEvents(*a, 1).size(), 1u);
    if (i % 2 == 1) server_->DropWatches();
    server_.reset();
    std::string line;
    EXPECT_NE(a->ReadLine(&line, std::chrono::seconds(5)),
              HttpsConnection::LineStatus::kTimeout);
  }
}

TEST_F(LifecycleTest, DestroyedAfterClientsLeft) {
  for (int i = 0; i < 15; ++i) {
    StartServer({});
    {
      auto a = OpenWatch("/api/v1/pods?watch=true");
      WaitForWatches(1);
      server_->Create("/api/v1/namespaces/default/pods", PodJson("p"));
      ASSERT_EQ(ReadEvents(*a, 1).size(), 1u);
    }
    server_.reset();
  }
}

TEST_F(LifecycleTest, RestartedWithWatchesOpen) {
  for (int i = 0; i < 10; ++i) {
    auto watch = OpenWatch("/api/v1/nodes?watch=true");
    WaitForWatches(1);
    server_->Restart();
    std::string line;
    EXPECT_EQ(watch->ReadLine(&line, std::chrono::seconds(5)),
              HttpsConnection::LineStatus::kCut);
    EXPECT_EQ(Call("GET", "/api/v1/nodes").code, 200);
  }
}

}  // namespace
}  // namespace ksched::testing
