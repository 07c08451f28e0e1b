// EventSeries: how repeated events are folded, as client-go's events.k8s.io
// broadcaster does, so that a pod failing to schedule every second writes a
// handful of Events, not one per attempt:
//   - the first occurrence is created;
//   - the second turns it into a series (count 2), written at once;
//   - later ones only count; a heartbeat writes each grown series every
//     30 minutes;
//   - a series unseen for 6 minutes ends: the next occurrence starts anew.
// Occurrences are alike when they agree on what they regard, reason,
// action, type and reporting controller (the note may differ).
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/objects.h"
#include "pkg/api/time.h"

namespace ksched::apiwriter {

struct EventSeriesOptions {
  std::chrono::minutes series_window{6};
  std::chrono::minutes heartbeat{30};
  // Bounds memory when many objects have events: the oldest are forgotten.
  size_t max_tracked = 10000;
};

// A write to make: create `event`, or update the series of the event
// already created under its name.
struct EventWrite {
  enum class Kind { kCreate, kUpdateSeries };
  Kind kind = Kind::kCreate;
  api::Event event;
};

class EventSeries {
 public:
  explicit EventSeries(EventSeriesOptions options = {}) : options_(options) {}

  std::optional<EventWrite> Observe(const api::Event& event,
                                    api::Timestamp now);
  // Series that grew since they were last written, when the heartbeat is
  // due; also ends the series that went quiet.
  std::vector<EventWrite> Heartbeat(api::Timestamp now);
  size_t tracked() const { return entries_.size(); }

 private:
  // The eight fields occurrences agree on, each ended by a NUL (which no
  // name, kind or reason holds): one allocation an event, not eight.
  using Key = std::string;
  // What a series update needs of the event written first: where it is,
  // the series, and the reason for the log. Every pod bound leaves one of
  // these for the series window; the whole Event was four times the size.
  struct Entry {
    std::string ns;
    std::string name;
    std::string reason;
    std::optional<api::EventSeries> series;
    api::Timestamp last_seen;
    int32_t written_count = 1;
  };
  static Key KeyOf(const api::Event& event);
  static EventWrite SeriesUpdate(const Entry& entry);

  EventSeriesOptions options_;
  std::map<Key, Entry> entries_;
  api::Timestamp last_heartbeat_{};
  api::Timestamp next_sweep_{};
  static constexpr std::chrono::seconds kSweepInterval{1};
};

}  // namespace ksched::apiwriter
