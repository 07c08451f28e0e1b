#include "pkg/simulator/snapshot.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "pkg/api/codec.h"

namespace ksched::simulator {
namespace {

template <typename T>
void WriteAll(const std::vector<T>& objects,
              rapidjson::Writer<rapidjson::StringBuffer>& w) {
  for (const T& object : objects) api::WriteJson(object, w);
}

}  // namespace

std::string SnapshotJson(const Cluster& c) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("apiVersion");
  w.String("v1");
  w.Key("kind");
  w.String("List");
  w.Key("items");
  w.StartArray();
  WriteAll(c.namespaces, w);
  WriteAll(c.priority_classes, w);
  WriteAll(c.storage_classes, w);
  WriteAll(c.csi_drivers, w);
  WriteAll(c.nodes, w);
  WriteAll(c.csi_nodes, w);
  WriteAll(c.persistent_volumes, w);
  WriteAll(c.persistent_volume_claims, w);
  WriteAll(c.volume_attachments, w);
  WriteAll(c.pod_disruption_budgets, w);
  WriteAll(c.pod_groups, w);
  WriteAll(c.device_classes, w);
  WriteAll(c.resource_slices, w);
  WriteAll(c.resource_claim_templates, w);
  WriteAll(c.resource_claims, w);
  // Workloads in the order they were read: their pods are planned in it.
  for (const WorkloadRef& ref : WorkloadsInFileOrder(c)) {
    switch (ref.kind) {
      case WorkloadRef::Kind::kDeployment:
        api::WriteJson(c.deployments[ref.index], w);
        break;
      case WorkloadRef::Kind::kReplicaSet:
        api::WriteJson(c.replica_sets[ref.index], w);
        break;
      case WorkloadRef::Kind::kStatefulSet:
        api::WriteJson(c.stateful_sets[ref.index], w);
        break;
      case WorkloadRef::Kind::kDaemonSet:
        api::WriteJson(c.daemon_sets[ref.index], w);
        break;
      case WorkloadRef::Kind::kJob:
        api::WriteJson(c.jobs[ref.index], w);
        break;
      case WorkloadRef::Kind::kCronJob:
        api::WriteJson(c.cron_jobs[ref.index], w);
        break;
    }
  }
  WriteAll(c.pods, w);
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

util::Status WriteSnapshot(const Cluster& cluster, const std::string& path) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      return util::Error("cannot write snapshot " + path + ": " +
                         std::strerror(errno));
    }
    out << SnapshotJson(cluster);
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      return util::Error("cannot write snapshot " + path);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(tmp.c_str());
    return util::Error("cannot write snapshot " + path + ": " +
                       std::strerror(error));
  }
  return util::Status();
}

}  // namespace ksched::simulator
