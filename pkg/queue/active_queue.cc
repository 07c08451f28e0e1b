#include "pkg/queue/active_queue.h"

namespace ksched::queue {

QueuedPodInfoPtr ActiveQueue::Pop() {
  while (QueuedPodInfoPtr info = heap_.Pop()) {
    if (StartCycle(info)) return info;
  }
  return nullptr;
}

bool ActiveQueue::StartCycle(const QueuedPodInfoPtr& info) {
  const std::string& uid = info->pod().metadata.uid;
  // Overwriting the entry would leak the old one's list position; kube
  // drops the duplicate and moves on to the next pod.
  if (in_flight_pods_.count(uid) != 0) return false;
  ++info->attempts;
  in_flight_pods_.emplace(
      uid, in_flight_.insert(in_flight_.end(), Entry{uid, nullptr}));
  ++scheduling_cycle_;
  // The next attempt starts afresh; AddUnschedulableIfNotPresent brings
  // the new rejectors.
  info->unschedulable_plugins.clear();
  info->pending_plugins.clear();
  info->gating_plugin.clear();
  return true;
}

void ActiveQueue::Done(const std::string& uid) {
  auto it = in_flight_pods_.find(uid);
  if (it == in_flight_pods_.end()) return;
  in_flight_.erase(it->second);
  in_flight_pods_.erase(it);
  // Events before the first remaining pod matter to nobody any more.
  while (!in_flight_.empty() && in_flight_.front().event != nullptr) {
    in_flight_.pop_front();
  }
}

bool ActiveQueue::AddEventsIfPodInFlight(
    const std::string& uid, const std::vector<framework::ClusterEvent>& events,
    const OwnedEventObjects& objects) {
  if (in_flight_pods_.count(uid) == 0) return false;
  for (const framework::ClusterEvent& e : events) {
    AddEvent(std::make_shared<const InFlightEvent>(InFlightEvent{e, objects}));
  }
  return true;
}

void ActiveQueue::AddEvent(std::shared_ptr<const InFlightEvent> event) {
  in_flight_.push_back(Entry{std::string(), std::move(event)});
}

std::optional<std::vector<std::shared_ptr<const InFlightEvent>>>
ActiveQueue::EventsSince(const std::string& uid) const {
  auto it = in_flight_pods_.find(uid);
  if (it == in_flight_pods_.end()) return std::nullopt;
  std::vector<std::shared_ptr<const InFlightEvent>> out;
  for (auto e = std::next(it->second); e != in_flight_.end(); ++e) {
    if (e->event != nullptr) out.push_back(e->event);
  }
  return out;
}

}  // namespace ksched::queue
