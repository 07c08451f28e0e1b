// ActiveQueue: the pods ready to be scheduled, best first, plus the record
// of pods in flight (popped, scheduling cycle not yet Done) and of the
// cluster events that arrived meanwhile (kube-scheduler's activeQueue).
//
// The in-flight record is one list: pods are appended when popped, events
// when they arrive while any pod is in flight. The events a pod may have
// missed are exactly those after its own entry. Done(pod) unlinks the pod
// and drops events no in-flight pod precedes any more, so the list stays as
// long as the oldest cycle in progress.
//
// Not thread-safe: the scheduling queue's lock guards it.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pkg/queue/events.h"
#include "pkg/queue/pod_heap.h"

namespace ksched::queue {

// A cluster event kept for the pods in flight.
struct InFlightEvent {
  framework::ClusterEvent event;
  OwnedEventObjects objects;
};

class ActiveQueue {
 public:
  explicit ActiveQueue(LessFn less) : heap_(std::move(less)) {}

  PodHeap& heap() { return heap_; }
  const PodHeap& heap() const { return heap_; }

  // Pops the best pod, counts the attempt, starts its scheduling cycle and
  // clears the plugins that rejected it last time. A pod already in flight
  // (tracked twice by mistake) is discarded. Null when empty.
  QueuedPodInfoPtr Pop();
  // As Pop, for a pod taken from elsewhere (backoffQ when activeQ is empty);
  // false, and nothing started, when the pod is already in flight.
  bool StartCycle(const QueuedPodInfoPtr& info);
  int64_t scheduling_cycle() const { return scheduling_cycle_; }

  bool IsInFlight(const std::string& uid) const {
    return in_flight_pods_.count(uid) != 0;
  }
  // Ends `uid`'s cycle (no-op when not in flight).
  void Done(const std::string& uid);
  // Records `event` for `uid` if it is in flight; false otherwise.
  bool AddEventsIfPodInFlight(
      const std::string& uid,
      const std::vector<framework::ClusterEvent>& events,
      const OwnedEventObjects& objects);
  bool AnyInFlight() const { return !in_flight_pods_.empty(); }
  void AddEvent(std::shared_ptr<const InFlightEvent> event);
  // The events that arrived since `uid` was popped; nullopt when `uid` is
  // not in flight.
  std::optional<std::vector<std::shared_ptr<const InFlightEvent>>> EventsSince(
      const std::string& uid) const;

  size_t in_flight_pods() const { return in_flight_pods_.size(); }
  size_t in_flight_entries() const { return in_flight_.size(); }

 private:
  // A popped pod's UID, or an event (then `uid` is empty).
  struct Entry {
    std::string uid;
    std::shared_ptr<const InFlightEvent> event;
  };

  PodHeap heap_;
  int64_t scheduling_cycle_ = 0;
  std::list<Entry> in_flight_;
  std::unordered_map<std::string, std::list<Entry>::iterator> in_flight_pods_;
};

}  // namespace ksched::queue
