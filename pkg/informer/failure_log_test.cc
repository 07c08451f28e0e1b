#include "pkg/informer/failure_log.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ksched::informer {
namespace {

// Lines as written, "W " or "I<v> " and the message.
class RecordingLogger final : public util::Logger {
 public:
  explicit RecordingLogger(int verbosity) : verbosity_(verbosity) {}
  bool Enabled(int v) const override { return v <= verbosity_; }
  void Log(util::Severity severity, int v, std::string_view message) override {
    lines.push_back((severity == util::Severity::kWarning
                         ? std::string("W ")
                         : "I" + std::to_string(v) + " ") +
                    std::string(message));
  }
  std::vector<std::string> lines;

 private:
  int verbosity_;
};

TEST(FailureLogTest, AnOutageIsOneWarningThenQuietUntilItEnds) {
  RecordingLogger log(0);
  FailureLog failures(log);
  const std::string refused =
      "GET https://10.0.0.1:6443/api/v1/pods?limit=500: connect to "
      "10.0.0.1:6443: connection refused";
  failures.Failed("pods", "list", refused);
  failures.Failed("nodes", "list", "GET ...: connection refused");
  failures.Failed("pods", "list", refused);
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_EQ(log.lines[0],
            "W informer pods: list failed: " + refused +
                " (retrying with backoff; further failures are logged at "
                "--v 2 until the API server answers)");
  failures.Succeeded("nodes");
  ASSERT_EQ(log.lines.size(), 2u);
  EXPECT_EQ(log.lines[1],
            "I0 informer nodes: the API server answers again, after 3 failed "
            "list or watch attempts");
  // Answers without an outage say nothing; the next outage warns again.
  failures.Succeeded("pods");
  EXPECT_EQ(log.lines.size(), 2u);
  failures.Failed("pods", "watch", "broke off");
  ASSERT_EQ(log.lines.size(), 3u);
  EXPECT_EQ(log.lines[2].rfind("W informer pods: watch failed: broke off", 0),
            0u);
}

TEST(FailureLogTest, LaterFailuresShowAtVerbosityTwo) {
  RecordingLogger log(2);
  FailureLog failures(log);
  failures.Failed("pods", "list", "a");
  failures.Failed("pods", "list", "b");
  ASSERT_EQ(log.lines.size(), 2u);
  EXPECT_EQ(log.lines[1], "I2 informer pods: list failed: b");
}

}  // namespace
}  // namespace ksched::informer
