// The real ksched binary's extender listener under hostile clients, on raw
// TCP sockets: slow-loris headers, bodies over the limit (Content-Length
// and chunked), truncated bodies, and a thousand connections at once.
// Throughout, a well-behaved client keeps POSTing a real filter request
// and must get its 200 within a bound, and ksched's resident memory must
// stay under a ceiling; afterwards ksched still answers and has let go of
// the connections that ended.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/client/testing/loopback.h"
#include "pkg/extender/testing/fixtures.h"
#include "test/apiserver/test_objects.h"
#include "test/integration/cluster_test_base.h"

namespace ksched::testing {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

// The body limit ksched runs with here (--extender-max-body-bytes).
constexpr size_t kMaxBody = 1 << 20;

// A TCP connection to 127.0.0.1, closed when destroyed.
class Socket {
 public:
  Socket() = default;
  explicit Socket(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) {
      error_ = errno;
      return;
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      error_ = errno;
      Close();
    }
  }
  ~Socket() { Close(); }
  Socket(Socket&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Socket& operator=(Socket&& other) noexcept {
    if (this != &other) {
      Close();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  bool ok() const { return fd_ >= 0; }
  // Why it is not.
  std::string error() const { return std::strerror(error_); }
  int fd() const { return fd_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  // Sends all of `data` (blocking); false once the peer is gone.
  bool Send(std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  // What arrives until the peer closes or `deadline`; nullopt on timeout.
  std::optional<std::string> ReadToEnd(Clock::time_point deadline) {
    std::string got;
    char buf[16384];
    while (true) {
      const auto left =
          std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) return got;
      got.append(buf, static_cast<size_t>(n));
    }
  }

 private:
  int fd_ = -1;
  int error_ = 0;
};

// "HTTP/1.1 413 ..." -> 413; 0 when it is not a status line.
int StatusOf(std::string_view response) {
  if (response.rfind("HTTP/1.", 0) != 0 || response.size() < 12) return 0;
  return std::atoi(std::string(response.substr(9, 3)).c_str());
}

// Streams a body to the extender until it answers or `budget` bytes or
// time are spent, reading whatever it sends back as it goes. The answer's
// status code (0 if none came) and the body bytes that got through.
struct Upload {
  int status = 0;
  size_t sent = 0;
};
Upload StreamOverLimit(int port, bool chunked, size_t budget,
                       milliseconds limit) {
  Upload result;
  Socket s(port);
  if (!s.ok()) return result;
  std::string head =
      "POST /filter HTTP/1.1\r\nHost: ksched\r\n"
      "Content-Type: application/json\r\n";
  head += chunked ? "Transfer-Encoding: chunked\r\n\r\n"
                  : "Content-Length: 10737418240\r\n\r\n";  // 10 GiB
  if (!s.Send(head)) return result;
  ::fcntl(s.fd(), F_SETFL, O_NONBLOCK);
  const std::string data(64 * 1024, 'x');
  char hex[16];
  std::snprintf(hex, sizeof(hex), "%zx\r\n", data.size());
  const std::string piece = chunked ? std::string(hex) + data + "\r\n" : data;
  std::string answer;
  size_t offset = 0;  // into `piece`
  bool writable = true;
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    pollfd p{s.fd(),
             static_cast<short>(
                 POLLIN | (writable && result.sent < budget ? POLLOUT : 0)),
             0};
    if (::poll(&p, 1, 50) <= 0) continue;
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      char buf[4096];
      const ssize_t n = ::recv(s.fd(), buf, sizeof(buf), 0);
      if (n > 0) answer.append(buf, static_cast<size_t>(n));
      if (answer.find("\r\n") != std::string::npos || n <= 0) break;
    }
    if (p.revents & POLLOUT) {
      const ssize_t n = ::send(s.fd(), piece.data() + offset,
                               piece.size() - offset, MSG_NOSIGNAL);
      if (n < 0 && errno != EAGAIN) writable = false;
      if (n > 0) {
        result.sent += static_cast<size_t>(n);
        offset = (offset + static_cast<size_t>(n)) % piece.size();
      }
    }
  }
  result.status = StatusOf(answer);
  return result;
}

// VmRSS (KiB) and the open descriptors of process `pid`.
long RssKiB(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}
long OpenFds(pid_t pid) {
  std::error_code ec;
  long n = 0;
  for (auto it = std::filesystem::directory_iterator(
           "/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n;
}

// The ksched child of this process (KschedProcess keeps its pid to
// itself).
pid_t KschedPid() {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string pid, comm, state;
    long ppid = 0;
    stat >> pid >> comm >> state >> ppid;
    if (ppid == getpid() && comm == "(ksched)") return std::stoi(name);
  }
  return -1;
}

class ExtenderHostileTest : public ClusterTestBase {
 protected:
  void SetUp() override {
    ClusterTestBase::SetUp();
    // This process holds both ends' worth of attackers.
    ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved_limit_), 0);
    rlimit raised = saved_limit_;
    raised.rlim_cur = raised.rlim_max;
    setrlimit(RLIMIT_NOFILE, &raised);
  }
  void TearDown() override {
    ClusterTestBase::TearDown();
    setrlimit(RLIMIT_NOFILE, &saved_limit_);
  }

  // ksched with the extender on, started under the customary soft limit
  // of 1024 open files, as a container runtime sets it.
  void StartWithExtender() {
    CreateExtenderFixtureCluster();
    port_ = client::testing::FreePort();
    rlimit low{};
    getrlimit(RLIMIT_NOFILE, &low);
    const rlimit mine = low;
    low.rlim_cur = std::min<rlim_t>(1024, low.rlim_max);
    setrlimit(RLIMIT_NOFILE, &low);
    // In the sanitizer build, AddressSanitizer holds up to 256 MiB of freed
    // memory in quarantine before reusing it, which would read as growth;
    // a small quarantine keeps the bound meaningful there (other builds
    // ignore the variable).
    setenv("ASAN_OPTIONS", "quarantine_size_mb=4", 1);
    StartKsched({"--extender-bind-address=127.0.0.1:" + std::to_string(port_),
                 "--extender-max-body-bytes=" + std::to_string(kMaxBody)});
    setrlimit(RLIMIT_NOFILE, &mine);
    unsetenv("ASAN_OPTIONS");
    ASSERT_TRUE(WaitUntil(
        [&] {
          return ksched_->Log().find("extender API on") != std::string::npos;
        },
        seconds(30)))
        << ksched_->Tail();
    pid_ = KschedPid();
    ASSERT_GT(pid_, 0);
  }

  // For a failure message: whether ksched still runs, and its log.
  std::string KschedState() {
    return std::string("\nksched ") +
           (ksched_->Running() ? "is running" : "has exited") + "; its log:\n" +
           ksched_->Log();
  }

  // One well-behaved POST /filter on a connection of its own: whether it
  // got the right 200, and how long it took.
  struct Probe {
    bool ok = false;
    double seconds = 0;
    std::string error;
  };
  Probe GoodFilter() {
    static const std::string body =
        extender::testing::Fixture("filter_args_node_names.json");
    Probe probe;
    const auto start = Clock::now();
    Socket s(port_);
    if (!s.ok()) {
      probe.error = "cannot connect";
      return probe;
    }
    s.Send(
        "POST /filter HTTP/1.1\r\nHost: ksched\r\nConnection: close\r\n"
        "Content-Type: application/json\r\nContent-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body);
    auto answer = s.ReadToEnd(start + seconds(10));
    probe.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (!answer) {
      probe.error = "no answer in 10 s";
      return probe;
    }
    const size_t split = answer->find("\r\n\r\n");
    if (StatusOf(*answer) != 200 || split == std::string::npos) {
      probe.error = answer->substr(0, 200);
      return probe;
    }
    auto doc = api::ParseJson(answer->substr(split + 4));
    probe.ok = doc.ok() && (*doc)["NodeNames"].IsArray() &&
               (*doc)["NodeNames"].Size() == 1 &&
               std::string((*doc)["NodeNames"][0].GetString()) == "node-1";
    if (!probe.ok) probe.error = answer->substr(split + 4, 200);
    return probe;
  }

  rlimit saved_limit_{};
  int port_ = 0;
  pid_t pid_ = -1;
};

TEST_F(ExtenderHostileTest, KeepsAnsweringWellBehavedClients) {
  const auto test_start = Clock::now();
  StartWithExtender();
  for (int i = 0; i < 20; ++i) {
    Probe p = GoodFilter();
    ASSERT_TRUE(p.ok) << p.error << ksched_->Tail();
  }
  const long baseline_rss = RssKiB(pid_);
  const long baseline_fds = OpenFds(pid_);

  // The well-behaved client and the memory watch, all along.
  std::atomic<bool> stop{false};
  std::atomic<bool> loris_stop{false};
  std::thread prober, watcher, loris_driver;
  // An ASSERT below returns early: the threads stop first.
  struct JoinAll {
    std::function<void()> join;
    ~JoinAll() { join(); }
  } join_all{[&] {
    stop = loris_stop = true;
    for (std::thread* t : {&prober, &watcher, &loris_driver}) {
      if (t->joinable()) t->join();
    }
  }};
  std::mutex mu;
  std::vector<double> latencies;
  std::vector<std::string> failures;
  std::atomic<long> peak_rss{baseline_rss};
  std::atomic<long> peak_fds{baseline_fds};
  prober = std::thread([&] {
    while (!stop) {
      Probe p = GoodFilter();
      {
        std::lock_guard lock(mu);
        latencies.push_back(p.seconds);
        if (!p.ok) failures.push_back(p.error);
      }
      std::this_thread::sleep_for(milliseconds(100));
    }
  });
  watcher = std::thread([&] {
    while (!stop) {
      peak_rss = std::max(peak_rss.load(), RssKiB(pid_));
      peak_fds = std::max(peak_fds.load(), OpenFds(pid_));
      std::this_thread::sleep_for(milliseconds(50));
    }
  });

  // Slow-loris: 300 connections sending their headers a byte a second,
  // never reaching the blank line.
  constexpr int kLoris = 300;
  std::vector<Socket> loris;
  for (int i = 0; i < kLoris; ++i) {
    loris.emplace_back(port_);
    ASSERT_TRUE(loris.back().ok())
        << i << ": " << loris.back().error() << KschedState();
  }
  const std::string slow_head =
      "POST /filter HTTP/1.1\r\nHost: ksched\r\nX-Slow: " +
      std::string(1000, 'a');
  loris_driver = std::thread([&] {
    for (size_t at = 0; !loris_stop && at < slow_head.size(); ++at) {
      for (Socket& s : loris) {
        ::send(s.fd(), slow_head.data() + at, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      }
      for (int i = 0; i < 10 && !loris_stop; ++i) {
        std::this_thread::sleep_for(milliseconds(100));
      }
    }
  });

  // Bodies over the limit: a Content-Length of 10 GiB, and a chunked body
  // that goes on past the limit, 4 of each at once. Each stops at 48 MiB
  // so that a listener that buffers it all shows without taking the
  // machine down.
  constexpr int kOver = 4;
  constexpr size_t kBudget = 48u << 20;
  std::vector<Upload> uploads(2 * kOver);
  {
    std::vector<std::thread> senders;
    for (int i = 0; i < 2 * kOver; ++i) {
      senders.emplace_back([&, i] {
        uploads[i] = StreamOverLimit(port_, i % 2 == 1, kBudget, seconds(3));
      });
    }
    for (std::thread& t : senders) t.join();
  }
  int answered_413 = 0;
  size_t max_sent = 0;
  for (const Upload& u : uploads) {
    answered_413 += u.status == 413;
    max_sent = std::max(max_sent, u.sent);
  }

  // Truncated bodies: a Content-Length of 100,000 and 1,000 bytes sent,
  // then 50 close and 50 hold the connection open, silent.
  constexpr int kTruncated = 50;
  const std::string truncated_head =
      "POST /filter HTTP/1.1\r\nHost: ksched\r\n"
      "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n" +
      std::string(1000, '{');
  std::vector<Socket> silent;
  for (int i = 0; i < 2 * kTruncated; ++i) {
    Socket s(port_);
    ASSERT_TRUE(s.ok()) << i << ": " << s.error() << KschedState();
    s.Send(truncated_head);
    if (i % 2 == 0) silent.push_back(std::move(s));
  }

  // 1,000 connections open at once, half idle and half mid-request.
  constexpr int kCrowd = 1000;
  std::vector<Socket> crowd;
  for (int i = 0; i < kCrowd; ++i) {
    crowd.emplace_back(port_);
    ASSERT_TRUE(crowd.back().ok())
        << i << ": " << crowd.back().error() << KschedState();
    if (i % 2 == 1) crowd.back().Send("POST /filter HTTP/1.1\r\nHost: k");
  }
  std::this_thread::sleep_for(seconds(3));
  const long fds_under_attack = OpenFds(pid_);
  const int held = kLoris + kTruncated + kCrowd;

  // The attack ends.
  loris_stop = true;
  loris_driver.join();
  loris.clear();
  silent.clear();
  crowd.clear();
  std::this_thread::sleep_for(seconds(1));
  stop = true;
  prober.join();
  watcher.join();

  // ksched is healthy, answers, and has let go of every connection.
  EXPECT_TRUE(ksched_->Running()) << ksched_->Tail();
  for (int i = 0; i < 5; ++i) {
    Probe p = GoodFilter();
    EXPECT_TRUE(p.ok) << p.error;
    EXPECT_LT(p.seconds, 2.0);
  }
  EXPECT_TRUE(
      WaitUntil([&] { return OpenFds(pid_) <= baseline_fds + 5; }, seconds(5)))
      << "open descriptors: " << OpenFds(pid_) << ", at the start "
      << baseline_fds;

  std::vector<double> sorted = latencies;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_FALSE(sorted.empty());
  const double median = sorted[sorted.size() / 2];
  const double worst = sorted.back();
  std::printf(
      "[hostile] baseline RSS %ld KiB, peak RSS %ld KiB (+%ld KiB); "
      "fds: baseline %ld, under attack %ld, peak %ld, after %ld; "
      "connections held %d; well-behaved requests %zu, failed %zu, "
      "latency median %.1f ms, max %.1f ms; 413s %d of %d (max body bytes "
      "sent %zu); wall %.1f s\n",
      baseline_rss, peak_rss.load(), peak_rss.load() - baseline_rss,
      baseline_fds, fds_under_attack, peak_fds.load(), OpenFds(pid_), held,
      latencies.size(), failures.size(), median * 1000, worst * 1000,
      answered_413, 2 * kOver, max_sent,
      std::chrono::duration<double>(Clock::now() - test_start).count());

  EXPECT_TRUE(failures.empty())
      << failures.size() << " failed, first: " << failures.front();
  EXPECT_LT(worst, 2.0) << "the slowest well-behaved request";
  EXPECT_LT(peak_rss.load(), baseline_rss + 64 * 1024)
      << "ksched's resident memory grew under the attack";
  EXPECT_EQ(answered_413, 2 * kOver) << "bodies over the limit get 413";
  EXPECT_LT(max_sent, kBudget) << "ksched read a body over the limit to "
                                  "its end before answering";
  EXPECT_GE(fds_under_attack, held) << "the attackers' connections are held";
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

}  // namespace
}  // namespace ksched::testing
