#include "pkg/util/json_logger.h"

#include <gtest/gtest.h>

namespace ksched::util {
namespace {

TEST(JsonLoggerTest, KeyValuesBecomeFields) {
  EXPECT_EQ(
      JsonLogLine(1763805600.5, Severity::kInfo, 2,
                  "Successfully bound pod to node pod=\"default/web\" "
                  "node=\"node-1\" profile=\"ksched\""),
      R"({"ts":1763805600.5,"v":2,"msg":"Successfully bound pod to node",)"
      R"("pod":"default/web","node":"node-1","profile":"ksched"})");
}

TEST(JsonLoggerTest, QuotesInsideValuesAndPlainMessages) {
  EXPECT_EQ(
      JsonLogLine(1.0, Severity::kWarning, 0,
                  "Error scheduling pod; retrying pod=\"a/b\" err=\"pods "
                  "\"b\" not found\""),
      R"({"ts":1.0,"severity":"warning","msg":"Error scheduling pod; retrying",)"
      R"("pod":"a/b","err":"pods \"b\" not found"})");
  EXPECT_EQ(JsonLogLine(1.0, Severity::kError, 0, "leaderelection lost"),
            R"({"ts":1.0,"severity":"error","msg":"leaderelection lost"})");
  // A tail that is not only pairs stays in the message.
  EXPECT_EQ(JsonLogLine(1.0, Severity::kInfo, 0, "a x=\"1\" and more"),
            R"({"ts":1.0,"v":0,"msg":"a x=\"1\" and more"})");
  EXPECT_EQ(JsonLogLine(1.0, Severity::kInfo, 0, "caches synced: 3 nodes"),
            R"({"ts":1.0,"v":0,"msg":"caches synced: 3 nodes"})");
}

}  // namespace
}  // namespace ksched::util
