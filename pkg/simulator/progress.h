// One updating line on a terminal for long `ksched simulate` runs: what is
// being done, how far along it is, how fast and how long is left. It is
// rewritten in place and erased when done, so what the run prints
// afterwards is what it prints without it.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

#include "pkg/util/clock.h"

namespace ksched::simulator {

class ProgressLine {
 public:
  struct Options {
    // Nothing is shown before this much time has passed since the line was
    // made: a quick run prints nothing at all.
    util::Clock::Duration delay = std::chrono::seconds(2);
    // Within one phase, at most one update per interval: a terminal
    // redrawn more often only flickers.
    util::Clock::Duration interval = std::chrono::milliseconds(200);
    // The terminal's width (0: unknown): a longer line would wrap, and "\r"
    // only returns to the start of its last row.
    int columns = 0;
  };

  ProgressLine(std::ostream& out, const util::Clock& clock, Options options);
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine() { Erase(); }

  // Parsing a file: `bytes` of `total` read (total 0: size unknown).
  void Loading(uint64_t bytes, uint64_t total);
  // Reading a cluster from its API server: objects listed so far.
  void Listing(uint64_t objects);
  // A simulation run begins; `label` ("trying 12 more nodes") tells the
  // runs of a search apart, "" when there is one run.
  void BeginRun(std::string label);
  // The run's pending pods: `tried` of `total` had a scheduling cycle.
  void Scheduling(int tried, int total);
  // Takes the line off the terminal, if shown, before anything else is
  // written there; the next update shows it again.
  void Erase();

 private:
  enum class Phase { kNone, kLoading, kListing, kPreparing, kScheduling };

  // Whether an update of `phase` is shown now: not before the delay, and
  // within a phase not sooner than the interval after the last one.
  bool Due(Phase phase, util::Clock::TimePoint now) const;
  void Write(Phase phase, std::string text, util::Clock::TimePoint now);
  std::string Prefix() const;

  std::ostream& out_;
  const util::Clock& clock_;
  Options options_;
  util::Clock::TimePoint start_;
  util::Clock::TimePoint last_write_;
  Phase shown_phase_ = Phase::kNone;  // kNone: nothing on the terminal
  std::string shown_label_;
  std::string label_;
  // When the run's first pods were tried, for its rate.
  util::Clock::TimePoint scheduling_start_;
  bool scheduling_started_ = false;
};

// Whether `fd` is a terminal a progress line belongs on: not a file or a
// pipe, and not TERM=dumb (an editor's shell, which shows "\r" and escape
// sequences as they are).
bool IsProgressTerminal(int fd);
// The terminal's width in columns, 0 when unknown.
int TerminalColumns(int fd);
// Options for `fd`. KSCHED_PROGRESS_AFTER_MS in the environment replaces
// the 2 s delay; it is for tests only, which cannot wait 2 s for a line
// from a run that takes milliseconds.
ProgressLine::Options ProgressOptionsFor(int fd);

// "12,345": counts, as the line shows them.
std::string WithThousands(int64_t n);

}  // namespace ksched::simulator
