#include "pkg/util/free_cpu.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace ksched::util {
namespace {

using std::chrono::microseconds;

class ProcStatFreeCpuTest : public ::testing::Test {
 protected:
  void Write(const std::string& cpu_line) {
    std::ofstream(path_) << cpu_line << "\ncpu0 1 2 3 4\nintr 5\n";
  }
  // refresh 0: every call reads the file.
  ProcStatFreeCpu Probe() {
    return ProcStatFreeCpu(path_, std::chrono::milliseconds(0),
                           [this] { return self_; });
  }
  // One file per test and process: ctest runs the tests in parallel.
  const std::string path_ =
      (std::filesystem::path(::testing::TempDir()) /
       ("free_cpu_stat_" +
        std::string(
            ::testing::UnitTest::GetInstance()->current_test_info()->name()) +
        "_" + std::to_string(getpid())))
          .string();
  const double cpus_ =
      static_cast<double>(std::max(1u, std::thread::hardware_concurrency()));
  const double hz_ = static_cast<double>(sysconf(_SC_CLK_TCK));
  microseconds self_{0};
};

TEST_F(ProcStatFreeCpuTest, OthersBusyTimeIsWhatIsNotFree) {
  ProcStatFreeCpu probe = Probe();
  Write("cpu  100 0 100 800 0 0 0 0 0 0");
  EXPECT_EQ(probe.FreeCores(), 0) << "one read says nothing yet";
  // 400 more ticks, 100 of them idle or iowait: others kept three
  // quarters of every CPU busy.
  Write("cpu  250 0 250 850 50 0 0 0 0 0");
  EXPECT_DOUBLE_EQ(probe.FreeCores(), 0.25 * cpus_);
  // Idle since.
  Write("cpu  250 0 250 1250 50 0 0 0 0 0");
  EXPECT_DOUBLE_EQ(probe.FreeCores(), cpus_);
}

TEST_F(ProcStatFreeCpuTest, ThisProcesssOwnUseIsNotCountedAsBusy) {
  ProcStatFreeCpu probe = Probe();
  Write("cpu  100 0 100 800 0 0 0 0");
  probe.FreeCores();
  // 400 ticks, none idle; this process ran on half the CPUs meanwhile.
  Write("cpu  500 0 100 800 0 0 0 0");
  const double seconds = 400 / cpus_ / hz_;
  self_ += microseconds(static_cast<int64_t>(seconds * cpus_ / 2 * 1e6));
  EXPECT_NEAR(probe.FreeCores(), cpus_ / 2, 1e-6);
}

TEST_F(ProcStatFreeCpuTest, ReadsAtMostOncePerRefresh) {
  ProcStatFreeCpu probe(path_, std::chrono::hours(1),
                        [] { return microseconds(0); });
  Write("cpu  100 0 100 800 0 0 0 0 0 0");
  EXPECT_EQ(probe.FreeCores(), 0);
  Write("cpu  100 0 100 1800 0 0 0 0 0 0");
  EXPECT_EQ(probe.FreeCores(), 0) << "the file was read again too soon";
}

TEST_F(ProcStatFreeCpuTest, UnreadableOrMalformedMeansBusy) {
  ProcStatFreeCpu missing(path_ + "-missing", std::chrono::milliseconds(0));
  EXPECT_EQ(missing.FreeCores(), 0);
  EXPECT_EQ(missing.FreeCores(), 0);

  ProcStatFreeCpu probe = Probe();
  Write("cpu  100 0 100 800 0 0 0 0");
  probe.FreeCores();
  Write("cpu  100 0 100 1800 0 0 0 0");
  EXPECT_DOUBLE_EQ(probe.FreeCores(), cpus_);
  Write("garbage");
  EXPECT_EQ(probe.FreeCores(), 0);
}

TEST_F(ProcStatFreeCpuTest, CountersThatWentBackwardsStartAFreshBaseline) {
  ProcStatFreeCpu probe = Probe();
  Write("cpu  100 0 100 800 0 0 0 0");
  probe.FreeCores();
  Write("cpu  300 0 100 1000 0 0 0 0");
  EXPECT_DOUBLE_EQ(probe.FreeCores(), 0.5 * cpus_);
  // A reset is not a negative share: the last answer stands.
  Write("cpu  10 0 10 10 0 0 0 0");
  EXPECT_DOUBLE_EQ(probe.FreeCores(), 0.5 * cpus_);
  // And later reads count from the new baseline.
  Write("cpu  10 0 10 110 0 0 0 0");
  EXPECT_DOUBLE_EQ(probe.FreeCores(), cpus_);
}

TEST(ProcStatFreeCpuLiveTest, ReadsTheRealFileWithinRange) {
  ProcStatFreeCpu probe("/proc/stat", std::chrono::milliseconds(0));
  probe.FreeCores();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const double free = probe.FreeCores();
  EXPECT_GE(free, 0);
  EXPECT_LE(free, std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace
}  // namespace ksched::util
