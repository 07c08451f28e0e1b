// KschedProcess: the real ksched binary as a child process, its stderr
// kept in a file for the test to read.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace ksched::testing {

class KschedProcess {
 public:
  // Runs `binary` (ksched unless given) with `args`. When it cannot be
  // started, started() is false, error() says why, and the log holds the
  // same line, so that a test's log tail names the cause.
  KschedProcess(const std::vector<std::string>& args,
                const std::string& log_path,
                const std::string& binary = KSCHED_BINARY)
      : log_path_(log_path) {
    std::vector<std::string> argv = {binary};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> raw;
    for (std::string& a : argv) raw.push_back(a.data());
    raw.push_back(nullptr);
    // posix_spawn, not fork: the parent may be a large process (a test API
    // server holding a big cluster), and fork would copy its page tables
    // and can be refused for want of memory. posix_spawn also reports a
    // failed exec (a missing binary) as its result, which a forked child
    // could only tell through its exit code.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    // Nothing else of this process: an inherited listening socket (the
    // test API server's) would keep its port taken, and its connections
    // unanswered, after the server stops.
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    pid_t pid = -1;
    const int error =
        posix_spawnp(&pid, raw[0], &actions, nullptr, raw.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) {
      error_ = "[test] cannot start " + binary + " (log " + log_path +
               "): " + std::strerror(error);
      std::ofstream(log_path_, std::ios::app) << error_ << "\n";
      return;
    }
    pid_ = pid;
  }
  // Sends SIGTERM and waits up to `limit`; the exit code, or -1 if it had
  // to be killed.
  int Terminate(std::chrono::seconds limit = std::chrono::seconds(20)) {
    if (!started()) return -1;
    kill(pid_, SIGTERM);
    const int code = Wait(limit);
    if (!exited_) DumpStacks(limit);
    return code;
  }

  // Appends every thread's stack to the log, when gdb is installed: what a
  // ksched that did not stop was waiting for.
  void DumpStacks(std::chrono::seconds waited) const {
    std::ofstream(log_path_, std::ios::app)
        << "\n[test] ksched did not stop within " << waited.count()
        << " s of SIGTERM; its threads:\n";
    const std::string command = "command -v gdb >/dev/null && gdb -p " +
                                std::to_string(pid_) +
                                " -batch -ex 'thread apply all bt' >> '" +
                                log_path_ + "' 2>&1 < /dev/null";
    (void)std::system(command.c_str());
  }

  // Waits up to `limit` for the process to end by itself; the exit code,
  // or -1 if it was killed or is still running.
  int Wait(std::chrono::seconds limit) {
    // waitpid(-1) would reap any child of this process.
    if (!started()) return -1;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        Reaped(status);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }

  // -1 when it could not be started.
  pid_t pid() const { return pid_; }
  bool started() const { return pid_ > 0; }
  // Why it could not be started; empty when it was.
  const std::string& error() const { return error_; }

  // SIGKILL, as a crash or an OOM kill would end it.
  void Kill() {
    if (pid_ <= 0 || exited_) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    exited_ = true;
  }

  bool Running() {
    if (!started() || exited_) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) Reaped(status);
    return !exited_;
  }

  // How the process ended, once Wait or Running saw it end ("exited with
  // code 1", "was killed by signal 9"); empty before.
  const std::string& ending() const { return ending_; }

  // The process's resident-set high-water mark (VmHWM) in KiB, read while
  // it runs; -1 once it has exited. (getrusage's ru_maxrss of a child
  // would count the pages it shared with this process before exec.)
  long PeakRssKiB() const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
    }
    return -1;
  }

  std::string Log() const { return ReadLog(log_path_); }

  // For failure messages: the end of the log, where what went wrong is
  // written, from a line start, naming the file that holds all of it.
  std::string Tail(size_t bytes = 8000) const {
    return LogTail(log_path_, bytes);
  }

  static std::string ReadLog(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static std::string LogTail(const std::string& path, size_t bytes = 8000) {
    const std::string log = ReadLog(path);
    if (log.size() <= bytes) {
      return "\n--- " + path + " (" + std::to_string(log.size()) +
             " bytes) ---\n" + log;
    }
    size_t from = log.size() - bytes;
    if (size_t nl = log.find('\n', from); nl != std::string::npos) {
      from = nl + 1;
    }
    return "\n--- last " + std::to_string(log.size() - from) + " of " +
           std::to_string(log.size()) + " bytes of " + path + " ---\n" +
           log.substr(from);
  }
  const std::string& log_path() const { return log_path_; }

 private:
  // Records how the process ended; a signal is also noted in the log,
  // where a crash or an OOM kill would otherwise leave no trace.
  void Reaped(int status) {
    exited_ = true;
    if (WIFSIGNALED(status)) {
      ending_ = "was killed by signal " + std::to_string(WTERMSIG(status));
      std::ofstream(log_path_, std::ios::app)
          << "\n[test] ksched " << ending_ << "\n";
    } else {
      ending_ = "exited with code " + std::to_string(WEXITSTATUS(status));
    }
  }

  std::string log_path_;
  std::string error_;
  std::string ending_;
  pid_t pid_ = -1;
  bool exited_ = false;
};

// Polls `done` every 20 ms until it holds or `limit` passes.
template <typename Fn>
bool WaitUntil(Fn done, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

}  // namespace ksched::testing
