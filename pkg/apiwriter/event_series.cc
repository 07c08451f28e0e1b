#include "pkg/apiwriter/event_series.h"

#include <algorithm>

namespace ksched::apiwriter {

EventSeries::Key EventSeries::KeyOf(const api::Event& e) {
  return {e.regarding.kind, e.regarding.ns,
          e.regarding.name, e.regarding.uid,
          e.reason,         e.action,
          e.type,           e.reporting_controller};
}

std::optional<EventWrite> EventSeries::Observe(const api::Event& event,
                                               api::Timestamp now) {
  const Key key = KeyOf(event);
  auto it = entries_.find(key);
  if (it != entries_.end() &&
      now - it->second.last_seen < options_.series_window) {
    Entry& entry = it->second;
    entry.last_seen = now;
    if (entry.event.series) {
      ++entry.event.series->count;
      entry.event.series->last_observed_time.value = now;
      return std::nullopt;
    }
    entry.event.series = api::EventSeries{.count = 2};
    entry.event.series->last_observed_time.value = now;
    entry.written_count = 2;
    return EventWrite{EventWrite::Kind::kUpdateSeries, entry.event};
  }
  if (it == entries_.end() && entries_.size() >= options_.max_tracked) {
    auto oldest = std::min_element(
        entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
          return a.second.last_seen < b.second.last_seen;
        });
    entries_.erase(oldest);
  }
  Entry& entry = entries_[key];
  entry.event = event;
  entry.event.series.reset();
  entry.last_seen = now;
  entry.written_count = 1;
  return EventWrite{EventWrite::Kind::kCreate, entry.event};
}

std::vector<EventWrite> EventSeries::Heartbeat(api::Timestamp now) {
  std::vector<EventWrite> due;
  if (last_heartbeat_ == api::Timestamp{}) last_heartbeat_ = now;
  const bool beat = now - last_heartbeat_ >= options_.heartbeat;
  if (beat) last_heartbeat_ = now;
  // The walk below visits minutes of events; the writer calls this after
  // every batch, often one event. A 6-minute window does not need a pass
  // more than once a second.
  if (!beat && now < next_sweep_) return due;
  next_sweep_ = now + kSweepInterval;
  for (auto it = entries_.begin(); it != entries_.end();) {
    Entry& entry = it->second;
    if (beat && entry.event.series &&
        entry.event.series->count > entry.written_count) {
      entry.written_count = entry.event.series->count;
      due.push_back({EventWrite::Kind::kUpdateSeries, entry.event});
    }
    if (now - entry.last_seen >= options_.series_window) {
      // A grown series is written before it is forgotten.
      if (entry.event.series &&
          entry.event.series->count > entry.written_count) {
        due.push_back({EventWrite::Kind::kUpdateSeries, entry.event});
      }
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  return due;
}

}  // namespace ksched::apiwriter
