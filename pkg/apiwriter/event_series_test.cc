#include "pkg/apiwriter/event_series.h"

#include <gtest/gtest.h>

namespace ksched::apiwriter {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

api::Event Failed(const std::string& pod, const std::string& note) {
  api::Event e;
  e.metadata.name = pod + ".1";
  e.metadata.ns = "default";
  e.reason = "FailedScheduling";
  e.action = "Scheduling";
  e.type = "Warning";
  e.reporting_controller = "ksched";
  e.regarding.kind = "Pod";
  e.regarding.ns = "default";
  e.regarding.name = pod;
  e.regarding.uid = pod + "-uid";
  e.note = note;
  return e;
}

const api::Timestamp kStart{std::chrono::hours(1000)};

TEST(EventSeriesTest, FirstCreatesSecondStartsASeriesLaterOnesOnlyCount) {
  EventSeries series;
  auto first = series.Observe(Failed("p", "a"), kStart);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->kind, EventWrite::Kind::kCreate);
  EXPECT_FALSE(first->event.series);

  // The note may change: still the same series, under the first name.
  auto second = series.Observe(Failed("p", "b"), kStart + seconds(1));
  ASSERT_TRUE(second);
  EXPECT_EQ(second->kind, EventWrite::Kind::kUpdateSeries);
  EXPECT_EQ(second->event.metadata.name, "p.1");
  ASSERT_TRUE(second->event.series);
  EXPECT_EQ(second->event.series->count, 2);

  for (int i = 2; i < 100; ++i) {
    EXPECT_FALSE(series.Observe(Failed("p", "c"), kStart + seconds(i)));
  }
  EXPECT_EQ(series.tracked(), 1u);
}

TEST(EventSeriesTest, HeartbeatWritesGrownSeriesEveryThirtyMinutes) {
  EventSeries series;
  (void)series.Observe(Failed("p", "a"), kStart);
  (void)series.Observe(Failed("p", "a"), kStart + seconds(1));
  EXPECT_TRUE(series.Heartbeat(kStart + seconds(2)).empty());
  api::Timestamp t = kStart + seconds(2);
  // An occurrence every minute keeps the series alive past 30 minutes.
  for (int i = 0; i < 31; ++i) {
    t += minutes(1);
    EXPECT_FALSE(series.Observe(Failed("p", "a"), t));
    auto due = series.Heartbeat(t);
    if (i < 29) {
      EXPECT_TRUE(due.empty()) << i;
    }
    if (i == 29) {
      ASSERT_EQ(due.size(), 1u);
      EXPECT_EQ(due[0].kind, EventWrite::Kind::kUpdateSeries);
      EXPECT_EQ(due[0].event.series->count, 32);
    }
  }
}

TEST(EventSeriesTest, QuietSeriesEndsAndTheNextOccurrenceIsNew) {
  EventSeries series;
  (void)series.Observe(Failed("p", "a"), kStart);
  (void)series.Observe(Failed("p", "a"), kStart + seconds(1));
  (void)series.Observe(Failed("p", "a"), kStart + seconds(2));
  // Ending it writes the count it grew to.
  auto due = series.Heartbeat(kStart + minutes(7));
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].event.series->count, 3);
  EXPECT_EQ(series.tracked(), 0u);
  auto again = series.Observe(Failed("p", "a"), kStart + minutes(8));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->kind, EventWrite::Kind::kCreate);
}

TEST(EventSeriesTest, DifferentPodsOrReasonsAreSeparateAndMemoryIsBounded) {
  EventSeries series({.max_tracked = 3});
  EXPECT_TRUE(series.Observe(Failed("a", ""), kStart));
  EXPECT_TRUE(series.Observe(Failed("b", ""), kStart + seconds(1)));
  api::Event scheduled = Failed("a", "");
  scheduled.reason = "Scheduled";
  EXPECT_EQ(series.Observe(scheduled, kStart + seconds(2))->kind,
            EventWrite::Kind::kCreate);
  EXPECT_TRUE(series.Observe(Failed("c", ""), kStart + seconds(3)));
  EXPECT_EQ(series.tracked(), 3u);
  // "a"'s FailedScheduling was the oldest and was forgotten.
  EXPECT_EQ(series.Observe(Failed("a", ""), kStart + seconds(4))->kind,
            EventWrite::Kind::kCreate);
}

TEST(EventSeriesTest, ForgettingIsCheckedAtMostOnceASecond) {
  EventSeries series;
  (void)series.Observe(Failed("p", "a"), kStart);
  EXPECT_TRUE(series.Heartbeat(kStart).empty());
  // Just before the window closes: a pass, which keeps it.
  const api::Timestamp closing = kStart + minutes(6);
  (void)series.Heartbeat(closing - std::chrono::milliseconds(500));
  EXPECT_EQ(series.tracked(), 1u);
  // Closed, but within a second of the last pass: no pass yet.
  (void)series.Heartbeat(closing);
  EXPECT_EQ(series.tracked(), 1u);
  // The next pass forgets it.
  (void)series.Heartbeat(closing + std::chrono::milliseconds(500));
  EXPECT_EQ(series.tracked(), 0u);
}

}  // namespace
}  // namespace ksched::apiwriter
