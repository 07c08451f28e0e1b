// The smaller objects ksched writes or reads: Binding, Event
// (events.k8s.io/v1), Lease (coordination.k8s.io/v1), metav1.Status and
// List kinds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/meta.h"
#include "pkg/api/node.h"
#include "pkg/api/pod.h"

namespace ksched::api {

// core/v1 Binding, POSTed to pods/<name>/binding.
struct Binding {
  ObjectMeta metadata;
  ObjectReference target;
  friend bool operator==(const Binding&, const Binding&) = default;
};

struct EventSeries {
  int32_t count = 0;
  MicroTime last_observed_time;
  friend bool operator==(const EventSeries&, const EventSeries&) = default;
};

// events.k8s.io/v1 Event.
struct Event {
  ObjectMeta metadata;
  MicroTime event_time;
  std::optional<EventSeries> series;
  std::string reporting_controller;
  std::string reporting_instance;
  std::string action;
  std::string reason;
  ObjectReference regarding;
  std::optional<ObjectReference> related;
  std::string note;
  std::string type;  // Normal, Warning
  friend bool operator==(const Event&, const Event&) = default;
};

struct LeaseSpec {
  std::optional<std::string> holder_identity;
  std::optional<int32_t> lease_duration_seconds;
  std::optional<MicroTime> acquire_time;
  std::optional<MicroTime> renew_time;
  std::optional<int32_t> lease_transitions;
  friend bool operator==(const LeaseSpec&, const LeaseSpec&) = default;
};

// coordination.k8s.io/v1 Lease.
struct Lease {
  ObjectMeta metadata;
  LeaseSpec spec;
  friend bool operator==(const Lease&, const Lease&) = default;
};

struct StatusCause {
  std::string reason;
  std::string message;
  std::string field;
  friend bool operator==(const StatusCause&, const StatusCause&) = default;
};

struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;
  std::string uid;
  std::vector<StatusCause> causes;
  int32_t retry_after_seconds = 0;
  friend bool operator==(const StatusDetails&, const StatusDetails&) = default;
};

// metav1.Status: the API server's answer to a failed request (and to a
// successful Binding POST).
struct Status {
  ListMeta metadata;
  std::string status;  // "Success" or "Failure"
  std::string message;
  std::string reason;  // NotFound, Conflict, Expired, ...
  std::optional<StatusDetails> details;
  int32_t code = 0;
  friend bool operator==(const Status&, const Status&) = default;
};

// scheduling.k8s.io/v1 PriorityClass: what a pod's priorityClassName
// resolves to at admission.
struct PriorityClass {
  ObjectMeta metadata;
  int32_t value = 0;
  bool global_default = false;
  std::optional<PreemptionPolicy> preemption_policy;
  std::string description;
  friend bool operator==(const PriorityClass&, const PriorityClass&) = default;
};

// core/v1 Namespace: its labels feed namespaceSelector.
struct Namespace {
  ObjectMeta metadata;
  friend bool operator==(const Namespace&, const Namespace&) = default;
};

template <typename T>
struct List {
  ListMeta metadata;
  std::vector<T> items;
  friend bool operator==(const List&, const List&) = default;
};

using PodList = List<Pod>;
using NodeList = List<Node>;

}  // namespace ksched::api
