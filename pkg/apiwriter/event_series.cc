#include "pkg/apiwriter/event_series.h"

#include <algorithm>

namespace ksched::apiwriter {

EventSeries::Key EventSeries::KeyOf(const api::Event& e) {
  Key key;
  for (const std::string* field :
       {&e.regarding.kind, &e.regarding.ns, &e.regarding.name, &e.regarding.uid,
        &e.reason, &e.action, &e.type, &e.reporting_controller}) {
    key += *field;
    key += '\0';
  }
  return key;
}

EventWrite EventSeries::SeriesUpdate(const Entry& entry) {
  EventWrite write{.kind = EventWrite::Kind::kUpdateSeries};
  write.event.metadata.ns = entry.ns;
  write.event.metadata.name = entry.name;
  write.event.reason = entry.reason;
  write.event.series = entry.series;
  return write;
}

std::optional<EventWrite> EventSeries::Observe(const api::Event& event,
                                               api::Timestamp now) {
  const Key key = KeyOf(event);
  auto it = entries_.find(key);
  if (it != entries_.end() &&
      now - it->second.last_seen < options_.series_window) {
    Entry& entry = it->second;
    entry.last_seen = now;
    if (entry.series) {
      ++entry.series->count;
      entry.series->last_observed_time.value = now;
      return std::nullopt;
    }
    entry.series = api::EventSeries{.count = 2};
    entry.series->last_observed_time.value = now;
    entry.written_count = 2;
    return SeriesUpdate(entry);
  }
  if (it == entries_.end() && entries_.size() >= options_.max_tracked) {
    auto oldest = std::min_element(
        entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
          return a.second.last_seen < b.second.last_seen;
        });
    entries_.erase(oldest);
  }
  Entry& entry = entries_[key];
  entry = Entry{.ns = event.metadata.ns,
                .name = event.metadata.name,
                .reason = event.reason,
                .last_seen = now};
  EventWrite write{.kind = EventWrite::Kind::kCreate, .event = event};
  write.event.series.reset();
  return write;
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
    if (beat && entry.series && entry.series->count > entry.written_count) {
      entry.written_count = entry.series->count;
      due.push_back(SeriesUpdate(entry));
    }
    if (now - entry.last_seen >= options_.series_window) {
      // A grown series is written before it is forgotten.
      if (entry.series && entry.series->count > entry.written_count) {
        due.push_back(SeriesUpdate(entry));
      }
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  return due;
}

}  // namespace ksched::apiwriter
