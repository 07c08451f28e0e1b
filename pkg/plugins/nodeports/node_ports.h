// NodePorts: a pod's host ports must be free on the node, 0.0.0.0 clashing
// with every address.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/names.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

inline constexpr std::string_view kNodePortsErrReason =
    "node(s) didn't have free ports for the requested pod ports";

class NodePorts final : public framework::SignPlugin,
                        public framework::PreFilterPlugin,
                        public framework::FilterPlugin,
                        public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return names::kNodePorts; }
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;
  // Answers from the pod and the node alone.
  bool NodeLocal() const override { return true; }
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;
  // Skip for pods without host ports.
  framework::Status PreFilter(framework::CycleState& state,
                              const framework::PodInfo& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Errs only when its PreFilter state is missing.
  bool FilterErrorsAreCycleWide() const override { return true; }
};

// Whether none of `pod`'s host ports is taken on `node` (nodeports.Fits).
bool NodePortsFit(const api::Pod& pod, const framework::NodeInfo& node);

util::Result<std::unique_ptr<framework::Plugin>> NewNodePorts(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins
