#include "pkg/plugins/defaultbinder/default_binder.h"

namespace ksched::plugins {

framework::Status DefaultBinder::Bind(framework::CycleState& /*state*/,
                                      const framework::PodInfo& pod,
                                      const std::string& node) {
  framework::Binder* binder = handle_.binder();
  if (binder == nullptr) {
    return framework::Status::Error("no binder is configured");
  }
  framework::Status s = binder->Bind(pod.pod(), node);
  // A refusal from the API (the pod is gone, or bound elsewhere) is an
  // error of this cycle, not a verdict on the node.
  if (!s.IsSuccess() && s.code() != framework::Code::kError) {
    return framework::Status::Error(s.Message());
  }
  return s;
}

util::Result<std::unique_ptr<framework::Plugin>> NewDefaultBinder(
    const config::PluginArgs* /*args*/, framework::Handle& handle) {
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<DefaultBinder>(handle));
}

}  // namespace ksched::plugins
