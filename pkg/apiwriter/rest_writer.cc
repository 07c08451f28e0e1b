#include "pkg/apiwriter/rest_writer.h"

#include <cstdio>

#include "pkg/api/codec.h"
#include "pkg/apiwriter/requests.h"
#include "pkg/client/resources.h"

namespace ksched::apiwriter {
namespace {

using client::ObjectPath;
using client::ResourceOf;
using framework::Status;

constexpr const char* kStrategicMergePatch =
    "application/strategic-merge-patch+json";
constexpr const char* kMergePatch = "application/merge-patch+json";

Status Failed(const client::ApiResult& result) {
  return Status::Error(result.error->message());
}

// The claim a read or write answered, or its error as the other writes
// word it (the server's Status message) with the HTTP status.
framework::ClaimWrite ClaimAnswer(const client::ApiResult& result) {
  if (!result.ok()) {
    return framework::ClaimWrite{.code = result.error->code(),
                                 .error = result.error->message()};
  }
  util::Result<api::ResourceClaim> claim =
      api::DecodeJson<api::ResourceClaim>(result.response.body);
  if (!claim.ok()) {
    return framework::ClaimWrite{
        .code = result.response.code,
        .error =
            "decoding the ResourceClaim answered: " + claim.error().message()};
  }
  return framework::ClaimWrite{
      .claim = std::make_shared<const api::ResourceClaim>(std::move(*claim)),
      .code = result.response.code};
}

std::string SeriesPatch(const api::EventSeries& series) {
  return "{\"series\":{\"count\":" + std::to_string(series.count) +
         ",\"lastObservedTime\":\"" +
         api::FormatRfc3339Micro(series.last_observed_time.value) + "\"}}";
}

}  // namespace

RestWriter::RestWriter(client::RestClient& client, const util::Clock& clock,
                       util::Logger& log, RestWriterOptions options)
    : client_(client),
      clock_(clock),
      log_(log),
      options_(std::move(options)),
      series_(options_.series),
      event_thread_([this] { EventLoop(); }) {}

RestWriter::~RestWriter() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  event_thread_.join();
}

Status RestWriter::Bind(const api::Pod& pod, const std::string& node) {
  client::ApiResult result = client_.Do(
      {.method = "POST",
       .path = ObjectPath(ResourceOf<api::Pod>::kResource, pod.metadata.ns,
                          pod.metadata.name, "binding"),
       .body = BindingBody(pod, node),
       .content_type = "application/json"});
  return result.ok() ? Status() : Failed(result);
}

bool PodStatusPatchRetriable(const client::ApiError& e) {
  return client::IsInternalError(e) || client::IsServiceUnavailable(e) ||
         client::IsConflict(e) || client::IsConnectionRefused(e);
}

Status RestWriter::UpdatePodStatus(const api::Pod& pod,
                                   const framework::PodStatusUpdate& update) {
  const client::HttpRequest request{
      .method = "PATCH",
      .path = ObjectPath(ResourceOf<api::Pod>::kResource, pod.metadata.ns,
                         pod.metadata.name, "status"),
      .body = PodStatusPatch(update),
      .content_type = kStrategicMergePatch};
  // retry.DefaultBackoff: four tries, 10 ms before the second, five times
  // longer before each next. (Its 10 % jitter spreads many clients' retries;
  // one scheduler's few need none.)
  static const client::RestClient::RetryPolicy kPodStatusPatchRetry{
      .backoff = {.initial = std::chrono::milliseconds(10),
                  .factor = 5,
                  .max = std::chrono::seconds(1),
                  .jitter = 0,
                  .max_retries = 3},
      .retriable = PodStatusPatchRetriable};
  client::ApiResult result = client_.Do(request, kPodStatusPatchRetry);
  return result.ok() ? Status() : Failed(result);
}

Status RestWriter::DeletePod(const api::Pod& pod) {
  client::ApiResult result =
      client_.Do({.method = "DELETE",
                  .path = ObjectPath(ResourceOf<api::Pod>::kResource,
                                     pod.metadata.ns, pod.metadata.name),
                  .body = DeleteWithUidBody(pod.metadata.uid),
                  .content_type = "application/json"});
  // Already gone is what was wanted.
  if (!result.ok() && client::IsNotFound(*result.error)) return Status();
  return result.ok() ? Status() : Failed(result);
}

Status RestWriter::AnnotatePersistentVolumeClaim(
    const api::PersistentVolumeClaim& pvc, std::string_view key,
    std::string_view value) {
  client::ApiResult result = client_.Do(
      {.method = "PATCH",
       .path = ObjectPath(ResourceOf<api::PersistentVolumeClaim>::kResource,
                          pvc.metadata.ns, pvc.metadata.name),
       .body = AnnotationPatch(key, value),
       .content_type = kMergePatch});
  return result.ok() ? Status() : Failed(result);
}

Status RestWriter::UpdatePodGroupStatus(const api::PodGroup& group,
                                        const api::PodGroupStatus& status) {
  client::ApiResult result = client_.Do(
      {.method = "PATCH",
       .path = ObjectPath(ResourceOf<api::PodGroup>::kResource,
                          group.metadata.ns, group.metadata.name, "status"),
       .body = PodGroupStatusPatch(status),
       .content_type = kMergePatch});
  return result.ok() ? Status() : Failed(result);
}

framework::ClaimWrite RestWriter::GetResourceClaim(const std::string& ns,
                                                   const std::string& name) {
  return ClaimAnswer(
      client_.Do({.method = "GET",
                  .path = ObjectPath(ResourceOf<api::ResourceClaim>::kResource,
                                     ns, name)}));
}

framework::ClaimWrite RestWriter::CreateResourceClaim(
    const api::ResourceClaim& claim) {
  return ClaimAnswer(client_.Do(
      {.method = "POST",
       .path = CollectionPath(ResourceOf<api::ResourceClaim>::kResource,
                              claim.metadata.ns),
       .body = api::EncodeJson(claim),
       .content_type = "application/json"}));
}

Status RestWriter::DeleteResourceClaim(const api::ResourceClaim& claim) {
  client::ApiResult result =
      client_.Do({.method = "DELETE",
                  .path = ObjectPath(ResourceOf<api::ResourceClaim>::kResource,
                                     claim.metadata.ns, claim.metadata.name)});
  if (!result.ok() && client::IsNotFound(*result.error)) return Status();
  return result.ok() ? Status() : Failed(result);
}

framework::ClaimWrite RestWriter::UpdateResourceClaim(
    const api::ResourceClaim& claim) {
  return ClaimAnswer(
      client_.Do({.method = "PUT",
                  .path = ObjectPath(ResourceOf<api::ResourceClaim>::kResource,
                                     claim.metadata.ns, claim.metadata.name),
                  .body = api::EncodeJson(claim),
                  .content_type = "application/json"}));
}

framework::ClaimWrite RestWriter::UpdateResourceClaimStatus(
    const api::ResourceClaim& claim) {
  return ClaimAnswer(client_.Do(
      {.method = "PUT",
       .path = ObjectPath(ResourceOf<api::ResourceClaim>::kResource,
                          claim.metadata.ns, claim.metadata.name, "status"),
       .body = api::EncodeJson(claim),
       .content_type = "application/json"}));
}

Status RestWriter::UnreserveResourceClaim(const api::ResourceClaim& claim,
                                          std::string_view pod_uid) {
  client::ApiResult result = client_.Do(
      {.method = "PATCH",
       .path = ObjectPath(ResourceOf<api::ResourceClaim>::kResource,
                          claim.metadata.ns, claim.metadata.name, "status"),
       .body = UnreservePatch(claim.metadata.uid, pod_uid),
       .content_type = kStrategicMergePatch});
  return result.ok() ? Status() : Failed(result);
}

void RestWriter::RecordEvent(const api::Pod& regarding, std::string_view type,
                             std::string_view reason, std::string_view action,
                             const std::string& note) {
  QueuedEvent event{
      .ns = regarding.metadata.ns,
      .name = regarding.metadata.name,
      .uid = regarding.metadata.uid,
      .resource_version = regarding.metadata.resource_version,
      .reporting_controller = regarding.spec.scheduler_name.empty()
                                  ? "default-scheduler"
                                  : regarding.spec.scheduler_name,
      .type = std::string(type),
      .reason = std::string(reason),
      .action = std::string(action),
      .note = note,
      .event_time = std::chrono::time_point_cast<std::chrono::microseconds>(
          clock_.WallNow())};
  event.name_nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                         clock_.WallNow().time_since_epoch())
                         .count();
  {
    std::lock_guard lock(mu_);
    if (queue_.size() >= options_.event_queue) {
      events_dropped_.fetch_add(1);
      return;
    }
    queue_.push_back(std::move(event));
  }
  cv_.notify_one();
}

api::Event RestWriter::MakeEvent(QueuedEvent queued) const {
  api::Event event;
  // The name kube's recorder gives: the object's, then the time in hex.
  char suffix[24];
  std::snprintf(suffix, sizeof(suffix), ".%llx",
                static_cast<unsigned long long>(queued.name_nanos));
  event.metadata.name = queued.name + suffix;
  event.metadata.ns = queued.ns;
  event.event_time.value = queued.event_time;
  event.reporting_instance = queued.reporting_controller + "-" + options_.host;
  event.reporting_controller = std::move(queued.reporting_controller);
  event.action = std::move(queued.action);
  event.reason = std::move(queued.reason);
  event.type = std::move(queued.type);
  event.note = std::move(queued.note);
  event.regarding.kind = "Pod";
  event.regarding.api_version = "v1";
  event.regarding.ns = std::move(queued.ns);
  event.regarding.name = std::move(queued.name);
  event.regarding.uid = std::move(queued.uid);
  event.regarding.resource_version = std::move(queued.resource_version);
  return event;
}

void RestWriter::FlushEvents() {
  std::unique_lock lock(mu_);
  idle_cv_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

bool RestWriter::FlushEvents(std::chrono::steady_clock::duration bound) {
  std::unique_lock lock(mu_);
  return idle_cv_.wait_for(lock, bound,
                           [this] { return queue_.empty() && !busy_; });
}

size_t RestWriter::UnsentEvents() const {
  std::lock_guard lock(mu_);
  return queue_.size() + backlog_.load();
}

size_t RestWriter::DropUnsentEvents() {
  dropping_ = true;
  size_t dropped = 0;
  {
    std::lock_guard lock(mu_);
    dropped = queue_.size() + backlog_.load();
    events_dropped_.fetch_add(static_cast<int64_t>(queue_.size()));
    queue_.clear();
    if (!busy_) idle_cv_.notify_all();
  }
  cv_.notify_all();
  return dropped;
}

void RestWriter::EventLoop() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait_for(lock, std::chrono::seconds(1),
                 [this] { return stopping_ || !queue_.empty(); });
    std::deque<QueuedEvent> batch;
    batch.swap(queue_);
    const bool stopping = stopping_;
    busy_ = true;
    lock.unlock();
    const api::Timestamp now =
        std::chrono::time_point_cast<std::chrono::microseconds>(
            clock_.WallNow());
    // Event by event, each freed once it is observed: the writer is slower
    // than binding, and a batch of thousands of events copied into a list
    // of writes was megabytes at the peak of a run.
    backlog_ = batch.size() + retries_.size();
    while (!batch.empty()) {
      const api::Event event = MakeEvent(std::move(batch.front()));
      batch.pop_front();
      --backlog_;  // observed now: written, folded into a series or dropped
      if (dropping_) {
        events_dropped_.fetch_add(1);
        continue;
      }
      if (auto write = series_.Observe(event, now)) Send(std::move(*write));
    }
    for (EventWrite& write : series_.Heartbeat(now)) {
      if (dropping_) {
        events_dropped_.fetch_add(1);
        continue;
      }
      Send(std::move(write));
    }
    if (dropping_ && !retries_.empty()) {
      events_dropped_.fetch_add(static_cast<int64_t>(retries_.size()));
      retries_.clear();
    }
    RetryDue();
    backlog_ = retries_.size();
    lock.lock();
    busy_ = false;
    if (queue_.empty()) idle_cv_.notify_all();
    if (stopping && queue_.empty()) {
      // Shutdown does not wait out an unreachable server.
      if (!retries_.empty()) {
        events_dropped_.fetch_add(static_cast<int64_t>(retries_.size()));
        log_.Warning("dropping " + std::to_string(retries_.size()) +
                     " events the API server could not be reached for");
      }
      return;
    }
  }
}

void RestWriter::RetryDue() {
  // Every entry waits the same interval, so the due ones are at the
  // front; each is tried once per call, even if the interval is zero.
  const util::Clock::TimePoint now = clock_.Now();
  size_t due = 0;
  while (due < retries_.size() && retries_[due].due <= now) ++due;
  for (size_t i = 0; i < due; ++i) {
    PendingWrite pending = std::move(retries_.front());
    retries_.pop_front();
    if (Write(pending.write)) continue;
    if (++pending.tries >= options_.event_tries) {
      events_dropped_.fetch_add(1);
      log_.Warning("giving up on event " + pending.write.event.metadata.ns +
                   "/" + pending.write.event.metadata.name + " after " +
                   std::to_string(pending.tries) + " tries");
      continue;
    }
    pending.due = now + options_.event_retry_interval;
    retries_.push_back(std::move(pending));
  }
}

void RestWriter::Send(EventWrite write) {
  if (Write(write)) return;
  if (retries_.size() >= options_.event_queue || options_.event_tries <= 1) {
    events_dropped_.fetch_add(1);
    return;
  }
  retries_.push_back(
      {std::move(write), 1, clock_.Now() + options_.event_retry_interval});
  ++backlog_;
}

bool RestWriter::Write(const EventWrite& write) {
  const client::Resource& events = ResourceOf<api::Event>::kResource;
  client::ApiResult result;
  if (write.kind == EventWrite::Kind::kCreate) {
    result = client_.Do(
        {.method = "POST",
         .path = client::CollectionPath(events, write.event.metadata.ns),
         .body = api::EncodeJson(write.event),
         .content_type = "application/json"});
  } else {
    result = client_.Do({.method = "PATCH",
                         .path = ObjectPath(events, write.event.metadata.ns,
                                            write.event.metadata.name),
                         .body = SeriesPatch(*write.event.series),
                         .content_type = kMergePatch});
  }
  if (result.ok()) {
    events_written_.fetch_add(1);
    return true;
  }
  log_.Warning("writing event " + write.event.metadata.ns + "/" +
               write.event.metadata.name + " (" + write.event.reason +
               "): " + result.error->message());
  if (client::IsConnectionError(*result.error)) return false;
  // Refused: it would be refused again.
  events_dropped_.fetch_add(1);
  return true;
}

}  // namespace ksched::apiwriter
