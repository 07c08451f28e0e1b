// The controllers' objects that `simulate` expands into the pods their
// controllers would create: apps/v1 Deployment, ReplicaSet, StatefulSet,
// DaemonSet and batch/v1 Job and CronJob. Only what the expansion reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/meta.h"
#include "pkg/api/pod.h"
#include "pkg/api/selector.h"
#include "pkg/api/storage.h"

namespace ksched::api {

struct PodTemplateSpec {
  ObjectMeta metadata;
  PodSpec spec;
  friend bool operator==(const PodTemplateSpec&,
                         const PodTemplateSpec&) = default;
};

// Deployment and ReplicaSet share the fields the expansion reads.
struct ReplicatedSpec {
  std::optional<int32_t> replicas;  // default 1
  std::optional<LabelSelector> selector;
  PodTemplateSpec pod_template;  // "template" in JSON
  friend bool operator==(const ReplicatedSpec&,
                         const ReplicatedSpec&) = default;
};

struct Deployment {
  ObjectMeta metadata;
  ReplicatedSpec spec;
  friend bool operator==(const Deployment&, const Deployment&) = default;
};

struct ReplicaSet {
  ObjectMeta metadata;
  ReplicatedSpec spec;
  friend bool operator==(const ReplicaSet&, const ReplicaSet&) = default;
};

struct StatefulSetSpec {
  std::optional<int32_t> replicas;  // default 1
  std::optional<LabelSelector> selector;
  PodTemplateSpec pod_template;
  std::vector<PersistentVolumeClaim> volume_claim_templates;
  std::string service_name;
  friend bool operator==(const StatefulSetSpec&,
                         const StatefulSetSpec&) = default;
};

struct StatefulSet {
  ObjectMeta metadata;
  StatefulSetSpec spec;
  friend bool operator==(const StatefulSet&, const StatefulSet&) = default;
};

struct DaemonSetSpec {
  std::optional<LabelSelector> selector;
  PodTemplateSpec pod_template;
  friend bool operator==(const DaemonSetSpec&, const DaemonSetSpec&) = default;
};

struct DaemonSet {
  ObjectMeta metadata;
  DaemonSetSpec spec;
  friend bool operator==(const DaemonSet&, const DaemonSet&) = default;
};

struct JobSpec {
  std::optional<int32_t> parallelism;  // default 1
  std::optional<int32_t> completions;  // default: parallelism
  std::string completion_mode;         // NonIndexed (default) or Indexed
  PodTemplateSpec pod_template;
  friend bool operator==(const JobSpec&, const JobSpec&) = default;
};

struct Job {
  ObjectMeta metadata;
  JobSpec spec;
  friend bool operator==(const Job&, const Job&) = default;
};

struct JobTemplateSpec {
  ObjectMeta metadata;
  JobSpec spec;
  friend bool operator==(const JobTemplateSpec&,
                         const JobTemplateSpec&) = default;
};

struct CronJobSpec {
  std::string schedule;
  JobTemplateSpec job_template;
  friend bool operator==(const CronJobSpec&, const CronJobSpec&) = default;
};

struct CronJob {
  ObjectMeta metadata;
  CronJobSpec spec;
  friend bool operator==(const CronJob&, const CronJob&) = default;
};

}  // namespace ksched::api
