#include "pkg/simulator/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace ksched::simulator {
namespace {

// Megabytes of 1,000,000 bytes, as `ls --si` and download meters count.
std::string Megabytes(uint64_t bytes) {
  const double mb = static_cast<double>(bytes) / 1e6;
  char text[32];
  std::snprintf(text, sizeof(text), mb < 10 ? "%.1f MB" : "%.0f MB", mb);
  return text;
}

std::string PodsPerSecond(double rate) {
  if (rate < 10) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.1f pods/s", rate);
    return text;
  }
  return WithThousands(std::llround(rate)) + " pods/s";
}

std::string TimeLeft(double seconds) {
  const int64_t s = static_cast<int64_t>(std::ceil(seconds));
  if (s < 60) return std::to_string(s) + " s left";
  if (s < 3600) {
    return std::to_string(s / 60) + " min " + std::to_string(s % 60) +
           " s left";
  }
  return std::to_string(s / 3600) + " h " + std::to_string(s % 3600 / 60) +
         " min left";
}

}  // namespace

ProgressLine::ProgressLine(std::ostream& out, const util::Clock& clock,
                           Options options)
    : out_(out), clock_(clock), options_(options), start_(clock.Now()) {}

void ProgressLine::Loading(uint64_t bytes, uint64_t total) {
  const util::Clock::TimePoint now = clock_.Now();
  if (!Due(Phase::kLoading, now)) return;
  std::string text = "loading " + Megabytes(bytes);
  if (total > 0) text += " of " + Megabytes(total);
  Write(Phase::kLoading, std::move(text), now);
}

void ProgressLine::Listing(uint64_t objects) {
  const util::Clock::TimePoint now = clock_.Now();
  if (!Due(Phase::kListing, now)) return;
  Write(Phase::kListing,
        "listing the cluster: " + WithThousands(static_cast<int64_t>(objects)) +
            " objects",
        now);
}

void ProgressLine::BeginRun(std::string label) {
  label_ = std::move(label);
  scheduling_started_ = false;
  const util::Clock::TimePoint now = clock_.Now();
  if (!Due(Phase::kPreparing, now)) return;
  Write(Phase::kPreparing, Prefix() + "preparing the simulation", now);
}

void ProgressLine::Scheduling(int tried, int total) {
  const util::Clock::TimePoint now = clock_.Now();
  if (!scheduling_started_) {
    scheduling_start_ = now;
    scheduling_started_ = true;
  }
  if (!Due(Phase::kScheduling, now)) return;
  std::string text = Prefix() + "scheduling " + WithThousands(tried) + " of " +
                     WithThousands(total) + " pods";
  // The rate over the whole run so far: the first second's is mostly noise.
  const double elapsed =
      std::chrono::duration<double>(now - scheduling_start_).count();
  if (tried > 0 && elapsed >= 1) {
    const double rate = tried / elapsed;
    text += ", " + PodsPerSecond(rate);
    if (total > tried) text += ", " + TimeLeft((total - tried) / rate);
  }
  Write(Phase::kScheduling, std::move(text), now);
}

void ProgressLine::Erase() {
  if (shown_phase_ == Phase::kNone) return;
  out_ << "\r\x1b[K" << std::flush;
  shown_phase_ = Phase::kNone;
}

bool ProgressLine::Due(Phase phase, util::Clock::TimePoint now) const {
  if (now - start_ < options_.delay) return false;
  // A new phase (or run) is news, shown at once: the line never lingers on
  // one that is over. Counts within a phase wait for the interval.
  if (phase != shown_phase_ || label_ != shown_label_) return true;
  return now - last_write_ >= options_.interval;
}

void ProgressLine::Write(Phase phase, std::string text,
                         util::Clock::TimePoint now) {
  if (options_.columns > 0 &&
      text.size() >= static_cast<size_t>(options_.columns)) {
    // One column short of the width: a full row wraps on some terminals.
    text.resize(static_cast<size_t>(options_.columns) - 1);
  }
  // One write: std::cerr is unbuffered, and a line in pieces may show
  // half drawn.
  out_ << "\r" + text + "\x1b[K" << std::flush;
  last_write_ = now;
  shown_phase_ = phase;
  shown_label_ = label_;
}

std::string ProgressLine::Prefix() const {
  return label_.empty() ? "" : label_ + ": ";
}

bool IsProgressTerminal(int fd) {
  if (isatty(fd) == 0) return false;
  const char* term = std::getenv("TERM");
  return term == nullptr || std::strcmp(term, "dumb") != 0;
}

int TerminalColumns(int fd) {
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

ProgressLine::Options ProgressOptionsFor(int fd) {
  ProgressLine::Options options;
  options.columns = TerminalColumns(fd);
  // Test-only: see the header.
  if (const char* after = std::getenv("KSCHED_PROGRESS_AFTER_MS")) {
    char* end = nullptr;
    const long ms = std::strtol(after, &end, 10);
    if (end != after && *end == '\0' && ms >= 0) {
      options.delay = std::chrono::milliseconds(ms);
    }
  }
  return options;
}

std::string WithThousands(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

}  // namespace ksched::simulator
