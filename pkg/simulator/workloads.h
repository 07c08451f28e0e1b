// Expands the workloads of a cluster file (Deployment, ReplicaSet,
// StatefulSet, DaemonSet, Job and, when asked, CronJob) into the pods their
// controllers would create, so `simulate` answers "will this fit" for the
// manifests users have rather than for hand-written pods.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pkg/simulator/cluster.h"
#include "pkg/util/result.h"

namespace ksched::simulator {

// One workload and the pods that are its replicas: those already in the
// cluster (matched by owner reference) first, then those created.
struct WorkloadPods {
  std::string kind;  // "Deployment", ...
  std::string ns;
  std::string name;
  int desired = 0;   // replicas the controller wants (DaemonSet: nodes)
  int existing = 0;  // of them already in the cluster
  std::vector<std::string> pods;  // namespace/name
};

struct ExpandOptions {
  // Random name suffixes come from this seed (and the workload's name), so
  // a run is reproducible and one workload's names do not depend on others.
  uint64_t seed = 1;
  // Expand each CronJob's job template as one Job would run now.
  bool cron_jobs = false;
  // "Now" for a CronJob's Job name (<cronjob>-<minutes since the epoch>);
  // 0: the clock.
  int64_t now_unix_seconds = 0;
};

// Adds the pods (and StatefulSet volume claims) the controllers would
// create to `cluster`, with admission's priorities, and returns each
// workload's pods. Errors: a Deployment, ReplicaSet, StatefulSet or
// DaemonSet whose selector does not match its template's labels (the API
// server refuses those), a negative replica count.
util::Result<std::vector<WorkloadPods>> ExpandWorkloads(
    Cluster& cluster, const ExpandOptions& options);

// rand.SafeEncodeString's alphabet: no vowels, no look-alike characters,
// as every generated Kubernetes name suffix uses.
inline constexpr std::string_view kNameAlphabet = "bcdfghjklmnpqrstvwxz2456789";

// The pod-template-hash / controller-revision-hash of a template: FNV-32a
// of its JSON, encoded as the controllers encode theirs. The shape of
// kube's ("5d8f7c9b4"), not its value: kube hashes Go's in-memory dump of
// the template.
std::string TemplateHash(const api::PodTemplateSpec& pod_template,
                         std::string_view salt = "");

}  // namespace ksched::simulator
