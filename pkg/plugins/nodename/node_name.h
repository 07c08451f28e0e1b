// NodeName: a pod that names a node (spec.nodeName) fits only that node.
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

inline constexpr std::string_view kNodeNameErrReason =
    "node(s) didn't match the requested node name";

class NodeName final : public framework::SignPlugin,
                       public framework::FilterPlugin,
                       public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return names::kNodeName; }
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;
  // Answers from the pod and the node alone.
  bool NodeLocal() const override { return true; }
  std::vector<framework::ClusterEventWithHint> EventsToRegister()
      const override;
  framework::Status Filter(const framework::CycleState& state,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Never errs on a node with its Node.
  bool FilterErrorsAreCycleWide() const override { return true; }
};

// Whether `pod` may run on `node` as far as spec.nodeName goes (nodename.Fits).
bool NodeNameFits(const api::Pod& pod, const framework::NodeInfo& node);

util::Result<std::unique_ptr<framework::Plugin>> NewNodeName(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins
