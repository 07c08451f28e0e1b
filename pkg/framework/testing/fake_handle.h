// A Handle for plugin tests: a snapshot the test fills, a parallelizer (one
// thread unless asked for more), a fake clock, namespace labels from a map, and
// a binder that records what it was asked to bind.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "pkg/framework/handle.h"
#include "pkg/util/fake_clock.h"

namespace ksched::testing {

class RecordingBinder final : public framework::Binder {
 public:
  framework::Status Bind(const api::Pod& pod,
                         const std::string& node) override {
    bound.emplace_back(pod.metadata.ns + "/" + pod.metadata.name, node);
    return result;
  }
  std::vector<std::pair<std::string, std::string>> bound;
  framework::Status result;  // what Bind returns
};

class FakeHandle final : public framework::Handle {
 public:
  FakeHandle() : parallelizer_(1) {}
  explicit FakeHandle(std::vector<framework::NodeInfoPtr> nodes,
                      int parallelism = 1)
      : parallelizer_(parallelism) {
    snapshot_.Reset(std::move(nodes));
  }

  const framework::Snapshot& snapshot() const override { return snapshot_; }
  framework::Parallelizer& parallelizer() override { return parallelizer_; }
  const util::Clock& clock() const override { return clock_; }
  const api::StringMap* NamespaceLabels(std::string_view ns) const override {
    auto it = namespace_labels.find(std::string(ns));
    return it == namespace_labels.end() ? nullptr : &it->second;
  }
  framework::Binder* binder() override { return &recording_binder; }
  const framework::ClusterObjects& objects() const override { return objects_; }
  framework::ClusterWriter* writer() override { return writer_; }
  framework::PodNominator* nominator() override { return nominator_; }
  framework::WaitingPods& waiting_pods() override { return waiting_pods_; }
  framework::PodsInPreBind& pods_in_prebind() override {
    return pods_in_prebind_;
  }
  const framework::PodGroupMembers* pod_group_members() const override {
    return &pod_group_members_;
  }
  // Plugins under test that need these run inside a real Framework.
  framework::Status RunFilterPluginsWithNominatedPods(
      const framework::CycleState&, const framework::PodInfo&,
      const framework::NodeInfo&) override {
    return framework::Status::Error("FakeHandle runs no filter plugins");
  }
  framework::Status RunPreFilterExtensionAddPod(
      framework::CycleState&, const framework::PodInfo&,
      const framework::PodInfoPtr&, const framework::NodeInfo&) const override {
    return framework::Status::Error("FakeHandle runs no PreFilter extensions");
  }
  framework::Status RunPreFilterExtensionRemovePod(
      framework::CycleState&, const framework::PodInfo&,
      const framework::PodInfoPtr&, const framework::NodeInfo&) const override {
    return framework::Status::Error("FakeHandle runs no PreFilter extensions");
  }

  const config::FeatureGates& features() const override { return features_; }
  dra::DraManager* dra_manager() override { return dra_manager_; }

  // For tests that fill the snapshot from a cache::Cache, as the
  // scheduler does.
  framework::Snapshot& mutable_snapshot() { return snapshot_; }

  void SetNodes(std::vector<framework::NodeInfoPtr> nodes) {
    snapshot_.Reset(std::move(nodes));
  }

  std::map<std::string, api::StringMap> namespace_labels;
  RecordingBinder recording_binder;
  util::FakeClock clock_;
  framework::InMemoryClusterObjects objects_;
  framework::ClusterWriter* writer_ = nullptr;
  framework::PodNominator* nominator_ = nullptr;
  dra::DraManager* dra_manager_ = nullptr;
  framework::WaitingPods waiting_pods_;
  framework::PodsInPreBind pods_in_prebind_;
  framework::PodGroupMembers pod_group_members_;
  // The gates plugins built on this handle read: v1.35's unless a test
  // sets others (FeatureGates(KubeVersion{1, 32}) for v1.32's).
  config::FeatureGates features_;

 private:
  framework::Snapshot snapshot_;
  framework::Parallelizer parallelizer_;
};

}  // namespace ksched::testing
