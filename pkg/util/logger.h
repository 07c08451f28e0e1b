// Logger seam: components log through an injected Logger, so tests can
// read what was said and the binary chooses the format and verbosity.
#pragma once

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::util {

enum class Severity { kInfo, kWarning, kError };

class Logger {
 public:
  virtual ~Logger() = default;
  // Whether info messages at `verbosity` are written (as klog's V(n)).
  virtual bool Enabled(int verbosity) const = 0;
  // `verbosity` is the V level of an info message (0 for the others).
  virtual void Log(Severity severity, int verbosity,
                   std::string_view message) = 0;

  void Info(int verbosity, std::string_view message) {
    if (Enabled(verbosity)) Log(Severity::kInfo, verbosity, message);
  }
  void Warning(std::string_view message) {
    Log(Severity::kWarning, 0, message);
  }
  void Error(std::string_view message) { Log(Severity::kError, 0, message); }
};

// klog's text header ("I1122 10:23:45.123456] message") on stderr, one
// write per line so lines of concurrent threads never interleave.
class StderrLogger final : public Logger {
 public:
  explicit StderrLogger(int verbosity) : verbosity_(verbosity) {}
  bool Enabled(int verbosity) const override { return verbosity <= verbosity_; }
  void Log(Severity severity, int, std::string_view message) override {
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                            now.time_since_epoch())
                            .count() %
                        1000000;
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char header[40];
    const char letter = severity == Severity::kInfo      ? 'I'
                        : severity == Severity::kWarning ? 'W'
                                                         : 'E';
    std::snprintf(header, sizeof(header), "%c%02d%02d %02d:%02d:%02d.%06lld] ",
                  letter, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                  tm.tm_sec, static_cast<long long>(micros));
    std::string line = header;
    line.append(message);
    line += '\n';
    std::lock_guard<std::mutex> lock(mu_);
    std::fwrite(line.data(), 1, line.size(), stderr);
  }

 private:
  int verbosity_;
  std::mutex mu_;
};

// Keeps every line, for tests.
class RecordingLogger final : public Logger {
 public:
  bool Enabled(int) const override { return true; }
  void Log(Severity severity, int, std::string_view message) override {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.push_back({severity, std::string(message)});
  }
  struct Line {
    Severity severity;
    std::string message;
  };
  std::vector<Line> lines() const {
    std::lock_guard<std::mutex> lock(mu_);
    return lines_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Line> lines_;
};

}  // namespace ksched::util
