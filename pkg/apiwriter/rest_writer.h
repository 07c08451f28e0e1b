// RestWriter: the scheduler's writes to the API server.
//   Bind: POST a v1.Binding to pods/{name}/binding.
//   UpdatePodStatus: strategic merge patch of pods/{name}/status, tried
//     again as kube's PatchPodStatus does (see PodStatusPatchRetriable).
//   DeletePod: DELETE with the pod's UID as precondition.
//   AnnotatePersistentVolumeClaim: merge patch of the claim.
//   UpdatePodGroupStatus: merge patch of podgroups/{name}/status (a custom
//     resource takes no strategic merge patch).
//   ResourceClaims (DynamicResources): GET, PUT of the object and of its
//     status subresource (the object's resourceVersion makes a stale write
//     a 409), and kube-scheduler's strategic merge patch of the status
//     that unreserves a pod. None is retried on a conflict here: the
//     plugin reads the claim again and decides.
//   RecordEvent: events.k8s.io/v1 Events, written by a background thread
//     from a bounded queue (the scheduling loop never waits on them), folded
//     into series (see EventSeries); when the queue is full, events are
//     dropped and counted rather than slowing scheduling down. A write
//     that got no answer (server unreachable) is tried again later, up to
//     a limit, as client-go's broadcaster does; one the server refused is
//     not, since it would be refused again.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "pkg/apiwriter/event_series.h"
#include "pkg/client/rest_client.h"
#include "pkg/framework/binder.h"
#include "pkg/framework/cluster_writer.h"
#include "pkg/util/clock.h"
#include "pkg/util/logger.h"

namespace ksched::apiwriter {

struct RestWriterOptions {
  // reportingInstance of the events: "<controller>-<host>", as
  // kube-scheduler names itself.
  std::string host;
  size_t event_queue = 1000;
  EventSeriesOptions series;
  // client-go's maxTriesPerEvent and the sleep between tries.
  int event_tries = 12;
  util::Clock::Duration event_retry_interval = std::chrono::seconds(10);
};

// Whether a failed pod status patch is tried again (util.Retriable of
// kube-scheduler v1.36): the server failed or was unavailable, the
// connection was refused, or the patch conflicted (new in v1.36).
bool PodStatusPatchRetriable(const client::ApiError& e);

class RestWriter final : public framework::Binder,
                         public framework::ClusterWriter {
 public:
  RestWriter(client::RestClient& client, const util::Clock& clock,
             util::Logger& log, RestWriterOptions options);
  // Writes what is queued, then stops the event thread.
  ~RestWriter() override;

  framework::Status Bind(const api::Pod& pod, const std::string& node) override;

  framework::Status UpdatePodStatus(
      const api::Pod& pod, const framework::PodStatusUpdate& update) override;
  void RecordEvent(const api::Pod& regarding, std::string_view type,
                   std::string_view reason, std::string_view action,
                   const std::string& note) override;
  framework::Status DeletePod(const api::Pod& pod) override;
  framework::Status AnnotatePersistentVolumeClaim(
      const api::PersistentVolumeClaim& pvc, std::string_view key,
      std::string_view value) override;
  framework::Status UpdatePodGroupStatus(
      const api::PodGroup& group, const api::PodGroupStatus& status) override;
  framework::ClaimWrite GetResourceClaim(const std::string& ns,
                                         const std::string& name) override;
  framework::ClaimWrite CreateResourceClaim(
      const api::ResourceClaim& claim) override;
  framework::Status DeleteResourceClaim(
      const api::ResourceClaim& claim) override;
  framework::ClaimWrite UpdateResourceClaim(
      const api::ResourceClaim& claim) override;
  framework::ClaimWrite UpdateResourceClaimStatus(
      const api::ResourceClaim& claim) override;
  framework::Status UnreserveResourceClaim(const api::ResourceClaim& claim,
                                           std::string_view pod_uid) override;

  int64_t events_dropped() const { return events_dropped_.load(); }
  int64_t events_written() const { return events_written_.load(); }
  // Blocks until the event queue is empty (tests, shutdown).
  void FlushEvents();
  // FlushEvents for at most `bound`: false when events were left.
  bool FlushEvents(std::chrono::steady_clock::duration bound);
  // Events recorded and not sent yet: queued, left in the batch being
  // written (not the one in flight), or waiting to be tried again.
  size_t UnsentEvents() const;
  // Writes no more events: those queued, left in the batch under way, or
  // waiting for a retry are dropped (counted in events_dropped), now and
  // at destruction. For a shutdown that must not wait on the API server.
  // Returns how many were dropped.
  size_t DropUnsentEvents();

 private:
  // A write that got no answer, waiting for its next try.
  struct PendingWrite {
    EventWrite write;
    int tries;
    util::Clock::TimePoint due;
  };

  // An event as it waits in the queue: only what varies from one event to
  // the next. The api::Event (about a kilobyte, most of it fields an Event
  // of the scheduler leaves empty) is made when the writer takes the event
  // up: binding outpaces the writer, and at the peak of a run a thousand
  // and more events wait.
  struct QueuedEvent {
    // The pod the event is about.
    std::string ns;
    std::string name;
    std::string uid;
    std::string resource_version;
    std::string reporting_controller;
    std::string type;
    std::string reason;
    std::string action;
    std::string note;
    api::Timestamp event_time;
    int64_t name_nanos = 0;  // the name's suffix, as kube's recorder makes it
  };
  api::Event MakeEvent(QueuedEvent queued) const;

  void EventLoop();
  // Writes the events that are due for another try.
  void RetryDue();
  // False when the server could not be reached (worth another try).
  bool Write(const EventWrite& write);
  // Writes `write`, or queues it for a retry (counted in backlog_), or
  // drops it when the retries are full or not allowed.
  void Send(EventWrite write);

  client::RestClient& client_;
  const util::Clock& clock_;
  util::Logger& log_;
  RestWriterOptions options_;
  EventSeries series_;                // event thread only
  std::deque<PendingWrite> retries_;  // event thread only, oldest first

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable idle_cv_;
  std::deque<QueuedEvent> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  std::atomic<int64_t> events_dropped_{0};
  // The event thread's writes left in its batch plus its retries, kept
  // for UnsentEvents (the deque itself is the event thread's alone).
  std::atomic<size_t> backlog_{0};
  std::atomic<bool> dropping_{false};
  std::atomic<int64_t> events_written_{0};
  std::thread event_thread_;
};

}  // namespace ksched::apiwriter
