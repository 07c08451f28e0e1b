#include "pkg/queue/pod_heap.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/framework/testing/wrappers.h"

namespace ksched::queue {
namespace {

QueuedPodInfoPtr Queued(const std::string& name, int32_t priority) {
  auto info = std::make_shared<framework::QueuedPodInfo>();
  info->pod_info = testing::PodBuilder(name).Priority(priority).Info();
  return info;
}

bool HigherPriority(const framework::QueuedPodInfo& a,
                    const framework::QueuedPodInfo& b) {
  return a.pod().spec.priority.value_or(0) > b.pod().spec.priority.value_or(0);
}

std::vector<std::string> Drain(PodHeap& heap) {
  std::vector<std::string> out;
  while (QueuedPodInfoPtr p = heap.Pop()) out.push_back(p->pod().metadata.name);
  return out;
}

TEST(PodHeapTest, PopsInOrder) {
  PodHeap heap(HigherPriority);
  for (int i = 0; i < 10; ++i) {
    heap.AddOrUpdate(Queued("p" + std::to_string(i), (i * 7) % 10));
  }
  EXPECT_EQ(heap.size(), 10u);
  EXPECT_EQ(heap.Peek()->pod().metadata.name, "p7");  // priority 9
  std::vector<int32_t> priorities;
  while (QueuedPodInfoPtr p = heap.Pop()) {
    priorities.push_back(*p->pod().spec.priority);
  }
  EXPECT_EQ(priorities, (std::vector<int32_t>{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_TRUE(heap.empty());
  EXPECT_EQ(heap.Pop(), nullptr);
  EXPECT_EQ(heap.Peek(), nullptr);
}

TEST(PodHeapTest, UpdateReordersAndDeleteKeepsOrder) {
  PodHeap heap(HigherPriority);
  heap.AddOrUpdate(Queued("a", 1));
  heap.AddOrUpdate(Queued("b", 2));
  heap.AddOrUpdate(Queued("c", 3));
  heap.AddOrUpdate(Queued("d", 4));
  // Same key: replaced, not duplicated, and moved to its new place.
  heap.AddOrUpdate(Queued("a", 10));
  EXPECT_EQ(heap.size(), 4u);
  EXPECT_EQ(heap.Peek()->pod().metadata.name, "a");
  EXPECT_EQ(*heap.Get("default/a")->pod().spec.priority, 10);
  ASSERT_NE(heap.Delete("default/c"), nullptr);
  EXPECT_EQ(heap.Delete("default/c"), nullptr);
  EXPECT_FALSE(heap.Has("default/c"));
  EXPECT_EQ(Drain(heap), (std::vector<std::string>{"a", "d", "b"}));
}

}  // namespace
}  // namespace ksched::queue
