// A ClusterWriter for tests: records every write and answers with a
// configurable status.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/framework/cluster_writer.h"

namespace ksched::testing {

class RecordingWriter final : public framework::ClusterWriter {
 public:
  struct StatusWrite {
    std::string pod;  // namespace/name
    framework::PodStatusUpdate update;
  };
  struct EventWrite {
    std::string pod;
    std::string type, reason, action, note;
  };
  struct Annotation {
    std::string pvc;  // namespace/name
    std::string key, value;
  };

  framework::Status UpdatePodStatus(
      const api::Pod& pod, const framework::PodStatusUpdate& update) override {
    status_writes.push_back({Key(pod), update});
    if (on_write) on_write("status", Key(pod));
    return result;
  }
  void RecordEvent(const api::Pod& regarding, std::string_view type,
                   std::string_view reason, std::string_view action,
                   const std::string& note) override {
    events.push_back({Key(regarding), std::string(type), std::string(reason),
                      std::string(action), note});
    if (on_write) on_write("event", Key(regarding));
  }
  framework::Status DeletePod(const api::Pod& pod) override {
    deleted.push_back(Key(pod));
    if (on_write) on_write("delete", Key(pod));
    return result;
  }
  framework::Status AnnotatePersistentVolumeClaim(
      const api::PersistentVolumeClaim& pvc, std::string_view key,
      std::string_view value) override {
    annotations.push_back({pvc.metadata.ns + "/" + pvc.metadata.name,
                           std::string(key), std::string(value)});
    return result;
  }
  framework::Status UpdatePodGroupStatus(
      const api::PodGroup& group, const api::PodGroupStatus& status) override {
    pod_group_statuses.emplace_back(
        group.metadata.ns + "/" + group.metadata.name, status);
    return result;
  }

  std::vector<StatusWrite> status_writes;
  std::vector<EventWrite> events;
  std::vector<std::string> deleted;
  std::vector<Annotation> annotations;
  std::vector<std::pair<std::string, api::PodGroupStatus>> pod_group_statuses;
  framework::Status result;  // what every write returns
  // Called after each pod write is recorded: "status", "event" or "delete",
  // and the pod's namespace/name.
  std::function<void(std::string_view op, const std::string& pod)> on_write;

 private:
  static std::string Key(const api::Pod& pod) {
    return pod.metadata.ns + "/" + pod.metadata.name;
  }
};

}  // namespace ksched::testing
