// ImageLocality: favours nodes that already hold the pod's container images,
// weighing each image by its size and by how widely it has spread (so one
// node holding a popular image does not attract every pod).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/names.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

class ImageLocality final : public framework::SignPlugin,
                            public framework::ScorePlugin {
 public:
  explicit ImageLocality(framework::Handle& handle) : handle_(handle) {}

  std::string_view Name() const override { return names::kImageLocality; }
  bool SignPod(const api::Pod& pod, api::Pod& into) const override;
  // Answers from the pod, the node and how many nodes there are.
  bool NodeLocal() const override { return true; }
  // Already in [0, kMaxNodeScore]: no NormalizeScore.
  framework::Status Score(const framework::CycleState& state,
                          const framework::PodInfo& pod,
                          const framework::NodeInfo& node,
                          int64_t* score) const override;

 private:
  // For the number of nodes in the cycle's snapshot.
  framework::Handle& handle_;
};

// The name under which a node reports `image`: a reference without a tag
// (nothing after the last '/' has a ':') gets ":latest". Digests ("@sha256:")
// already carry a ':' and stay as they are.
std::string NormalizedImageName(std::string_view image);

util::Result<std::unique_ptr<framework::Plugin>> NewImageLocality(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins
