#include "pkg/simulator/progress.h"

#include <gtest/gtest.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

#include "pkg/util/fake_clock.h"

namespace ksched::simulator {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// A line as the terminal receives it.
std::string Line(const std::string& text) { return "\r" + text + "\x1b[K"; }
const char kErase[] = "\r\x1b[K";

class ProgressLineTest : public ::testing::Test {
 protected:
  // What was written since the last call.
  std::string Written() {
    std::string s = out_.str();
    out_.str("");
    return s;
  }

  std::ostringstream out_;
  util::FakeClock clock_;
  ProgressLine line_{out_, clock_, {}};
};

TEST_F(ProgressLineTest, NothingBeforeTwoSeconds) {
  line_.Loading(1'000'000, 50'000'000);
  clock_.Advance(milliseconds(1999));
  line_.Loading(20'000'000, 50'000'000);
  line_.BeginRun("");
  line_.Scheduling(0, 100);
  line_.Erase();
  EXPECT_EQ(Written(), "");
  clock_.Advance(milliseconds(1));
  line_.Scheduling(10, 100);
  EXPECT_EQ(Written(), Line("scheduling 10 of 100 pods"));
}

TEST_F(ProgressLineTest, QuickRunPrintsNothingAtAll) {
  {
    ProgressLine quick(out_, clock_, {});
    quick.Loading(1, 2);
    quick.Scheduling(1, 2);
  }  // destroyed before 2 s: nothing to erase either
  EXPECT_EQ(Written(), "");
}

TEST_F(ProgressLineTest, LoadingInMegabytes) {
  clock_.Advance(seconds(2));
  line_.Loading(45'300'000, 136'000'000);
  EXPECT_EQ(Written(), Line("loading 45 MB of 136 MB"));
  clock_.Advance(seconds(1));
  line_.Loading(2'500'000, 0);  // size unknown
  EXPECT_EQ(Written(), Line("loading 2.5 MB"));
}

TEST_F(ProgressLineTest, ListingCountsObjects) {
  clock_.Advance(seconds(3));
  line_.Listing(12'000);
  EXPECT_EQ(Written(), Line("listing the cluster: 12,000 objects"));
}

TEST_F(ProgressLineTest, SchedulingRateAndTimeLeft) {
  clock_.Advance(seconds(2));
  line_.BeginRun("");
  EXPECT_EQ(Written(), Line("preparing the simulation"));
  line_.Scheduling(0, 20'000);
  EXPECT_EQ(Written(), Line("scheduling 0 of 20,000 pods"));
  // Under a second in: no rate yet.
  clock_.Advance(milliseconds(500));
  line_.Scheduling(1'500, 20'000);
  EXPECT_EQ(Written(), Line("scheduling 1,500 of 20,000 pods"));
  // 12,000 pods in 4 s: 3,000 pods/s, 8,000 left take 2.7 s.
  clock_.Advance(milliseconds(3500));
  line_.Scheduling(12'000, 20'000);
  EXPECT_EQ(Written(),
            Line("scheduling 12,000 of 20,000 pods, 3,000 pods/s, 3 s left"));
  // Every pod tried (some retry): nothing left to estimate.
  clock_.Advance(seconds(4));
  line_.Scheduling(20'000, 20'000);
  EXPECT_EQ(Written(), Line("scheduling 20,000 of 20,000 pods, 2,500 pods/s"));
}

TEST_F(ProgressLineTest, SlowRunsInMinutesAndHours) {
  clock_.Advance(seconds(2));
  line_.Scheduling(0, 100'000);
  clock_.Advance(seconds(10));
  line_.Scheduling(50, 1'350);  // 5 pods/s, 260 s left
  EXPECT_EQ(Written(),
            Line("scheduling 0 of 100,000 pods") +
                Line("scheduling 50 of 1,350 pods, 5.0 pods/s, 4 min 20 s "
                     "left"));
  clock_.Advance(seconds(10));
  line_.Scheduling(100, 100'000);  // 5 pods/s, 19,980 s left
  EXPECT_EQ(Written(),
            Line("scheduling 100 of 100,000 pods, 5.0 pods/s, 5 h 33 min "
                 "left"));
}

TEST_F(ProgressLineTest, RunsOfASearchAreLabelled) {
  clock_.Advance(seconds(2));
  line_.BeginRun("trying 12 more nodes");
  line_.Scheduling(0, 40);
  EXPECT_EQ(Written(),
            Line("trying 12 more nodes: preparing the simulation") +
                Line("trying 12 more nodes: scheduling 0 of 40 pods"));
  // The next run starts its rate afresh.
  clock_.Advance(seconds(5));
  line_.BeginRun("trying 6 more nodes");
  line_.Scheduling(0, 40);
  clock_.Advance(seconds(2));
  line_.Scheduling(20, 40);
  EXPECT_EQ(Written(),
            Line("trying 6 more nodes: preparing the simulation") +
                Line("trying 6 more nodes: scheduling 0 of 40 pods") +
                Line("trying 6 more nodes: scheduling 20 of 40 pods, "
                     "10 pods/s, 2 s left"));
}

TEST_F(ProgressLineTest, AtMostOneWritePerInterval) {
  clock_.Advance(seconds(2));
  line_.Scheduling(0, 1'000'000);
  ASSERT_EQ(Written(), Line("scheduling 0 of 1,000,000 pods"));
  // Updates every 10 ms for 2 s: one write per 200 ms.
  int writes = 0;
  for (int i = 1; i <= 200; ++i) {
    clock_.Advance(milliseconds(10));
    line_.Scheduling(i, 1'000'000);
    const std::string w = Written();
    writes += static_cast<int>(std::count(w.begin(), w.end(), '\r'));
    if (i % 20 != 0) {
      EXPECT_EQ(w, "") << "after " << i * 10 << " ms";
    }
  }
  EXPECT_EQ(writes, 10);
}

TEST_F(ProgressLineTest, NewPhaseShownAtOnce) {
  clock_.Advance(seconds(2));
  line_.Loading(1'000'000, 2'000'000);
  clock_.Advance(milliseconds(10));
  line_.Loading(2'000'000, 2'000'000);  // the same phase: too soon
  line_.BeginRun("");                   // a new one: at once
  EXPECT_EQ(Written(), Line("loading 1.0 MB of 2.0 MB") +
                           Line("preparing the simulation"));
}

TEST_F(ProgressLineTest, ErasedAtTheEnd) {
  clock_.Advance(seconds(2));
  line_.Loading(1'000'000, 2'000'000);
  line_.Erase();
  EXPECT_EQ(Written(), Line("loading 1.0 MB of 2.0 MB") + kErase);
  line_.Erase();  // nothing shown: nothing to erase
  EXPECT_EQ(Written(), "");
  // Shown again at the next update, however soon.
  line_.BeginRun("");
  line_.Erase();
  line_.BeginRun("");
  EXPECT_EQ(Written(), Line("preparing the simulation") + kErase +
                           Line("preparing the simulation"));
  std::optional<ProgressLine> other(std::in_place, out_, clock_,
                                    ProgressLine::Options{.delay = {}});
  other->Listing(3);
  other.reset();
  EXPECT_EQ(Written(), Line("listing the cluster: 3 objects") + kErase);
}

TEST_F(ProgressLineTest, CutToTheTerminalsWidth) {
  ProgressLine narrow(out_, clock_, {.delay = {}, .columns = 20});
  narrow.Scheduling(12'000, 20'000);
  EXPECT_EQ(Written(), Line("scheduling 12,000 o"));
}

TEST(WithThousandsTest, GroupsDigits) {
  EXPECT_EQ(WithThousands(0), "0");
  EXPECT_EQ(WithThousands(999), "999");
  EXPECT_EQ(WithThousands(1000), "1,000");
  EXPECT_EQ(WithThousands(1234567), "1,234,567");
  EXPECT_EQ(WithThousands(-20000), "-20,000");
}

// Sets an environment variable for the test's duration.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value == nullptr) {
      unsetenv(name);
    } else {
      setenv(name, value, 1);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(ProgressTerminalTest, OnlyOnATerminalThatIsNotDumb) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  int controller = -1, terminal = -1;
  winsize size{.ws_row = 24, .ws_col = 100};
  ASSERT_EQ(openpty(&controller, &terminal, nullptr, nullptr, &size), 0);
  {
    ScopedEnv term("TERM", "xterm-256color");
    EXPECT_TRUE(IsProgressTerminal(terminal));
    EXPECT_FALSE(IsProgressTerminal(pipe_fds[1]));
    EXPECT_EQ(TerminalColumns(terminal), 100);
    EXPECT_EQ(TerminalColumns(pipe_fds[1]), 0);
  }
  {
    ScopedEnv term("TERM", "dumb");
    EXPECT_FALSE(IsProgressTerminal(terminal));
  }
  {
    ScopedEnv term("TERM", nullptr);
    EXPECT_TRUE(IsProgressTerminal(terminal));
  }
  for (int fd : {pipe_fds[0], pipe_fds[1], controller, terminal}) close(fd);
}

TEST(ProgressTerminalTest, DelayFromTheTestHook) {
  {
    ScopedEnv after("KSCHED_PROGRESS_AFTER_MS", nullptr);
    EXPECT_EQ(ProgressOptionsFor(-1).delay, seconds(2));
  }
  {
    ScopedEnv after("KSCHED_PROGRESS_AFTER_MS", "0");
    EXPECT_EQ(ProgressOptionsFor(-1).delay, milliseconds(0));
  }
  {
    ScopedEnv after("KSCHED_PROGRESS_AFTER_MS", "soon");
    EXPECT_EQ(ProgressOptionsFor(-1).delay, seconds(2));
  }
}

}  // namespace
}  // namespace ksched::simulator
