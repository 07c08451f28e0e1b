#include "pkg/plugins/tainttoleration/taint_toleration.h"

#include <algorithm>
#include <string>

#include "pkg/api/taints.h"
#include "pkg/framework/signature.h"
#include "pkg/plugins/helper/normalize_score.h"

namespace ksched::plugins {
namespace {

constexpr framework::StateKey kPreScoreKey{"PreScoreTaintToleration"};

// The pod's tolerations that can tolerate a PreferNoSchedule taint, picked
// once per cycle instead of once per node.
class PreScoreState final : public framework::StateData {
 public:
  explicit PreScoreState(std::vector<api::Toleration> tolerations)
      : tolerations_(std::make_shared<const std::vector<api::Toleration>>(
            std::move(tolerations))) {}
  // Nothing here changes after PreScore, so copies share the list.
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::make_shared<PreScoreState>(*this);
  }
  const std::vector<api::Toleration>& tolerations() const {
    return *tolerations_;
  }

 private:
  std::shared_ptr<const std::vector<api::Toleration>> tolerations_;
};

bool IsDoNotSchedule(const api::Taint& taint) {
  return taint.effect == api::TaintEffect::kNoSchedule ||
         taint.effect == api::TaintEffect::kNoExecute;
}

}  // namespace

std::vector<framework::ClusterEventWithHint> TaintToleration::EventsToRegister()
    const {
  // kube-scheduler v1.32 with queueing hints on (its default): a node added
  // or its taints changed, and a pod's tolerations changed. kube's hints
  // narrow these to "was untolerated, now tolerated" and "the rejected pod
  // itself"; without hint functions every such event requeues.
  return {
      {{framework::EventResource::kNode,
        framework::kAdd | framework::kUpdateNodeTaint},
       nullptr},
      {{framework::EventResource::kPod, framework::kUpdatePodToleration},
       nullptr},
  };
}

framework::Status TaintToleration::Filter(
    const framework::CycleState& /*state*/, const framework::PodInfo& pod,
    const framework::NodeInfo& node_info) const {
  const api::Node* node = node_info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  if (!node_info.node_has_taints()) return framework::Status();
  const api::Taint* taint = api::FindMatchingUntoleratedTaint(
      node->spec.taints, pod.pod().spec.tolerations, IsDoNotSchedule);
  if (taint == nullptr) return framework::Status();
  // The taint cannot go away by preempting pods: unresolvable. Since v1.33
  // the message no longer names the taint, so that nodes with different
  // taints add up to one reason.
  return framework::Status::Unresolvable(std::string(kErrReasonUntolerated));
}

framework::Status TaintToleration::PreScore(
    framework::CycleState& state, const framework::PodInfo& pod,
    const std::vector<framework::NodeInfoPtr>& /*nodes*/) {
  std::vector<api::Toleration> prefer_no_schedule;
  for (const api::Toleration& t : pod.pod().spec.tolerations) {
    // An empty effect tolerates every effect, PreferNoSchedule included.
    if (t.effect == api::TaintEffect::kNone ||
        t.effect == api::TaintEffect::kPreferNoSchedule) {
      prefer_no_schedule.push_back(t);
    }
  }
  state.Write(kPreScoreKey,
              std::make_shared<PreScoreState>(std::move(prefer_no_schedule)));
  return framework::Status();
}

framework::Status TaintToleration::Score(const framework::CycleState& state,
                                         const framework::PodInfo& /*pod*/,
                                         const framework::NodeInfo& node_info,
                                         int64_t* score) const {
  const api::Node* node = node_info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  const auto* s = state.Read<PreScoreState>(kPreScoreKey);
  if (s == nullptr) {
    return framework::Status::Error(
        "failed to read \"PreScoreTaintToleration\" from cycleState: not "
        "found");
  }
  int64_t untolerated = 0;
  if (!node_info.node_has_taints()) {
    *score = 0;
    return framework::Status();
  }
  for (const api::Taint& taint : node->spec.taints) {
    if (taint.effect != api::TaintEffect::kPreferNoSchedule) continue;
    if (!api::TolerationsTolerateTaint(s->tolerations(), taint)) {
      ++untolerated;
    }
  }
  *score = untolerated;
  return framework::Status();
}

framework::Status TaintToleration::NormalizeScore(
    const framework::CycleState& /*state*/, const framework::PodInfo& /*pod*/,
    framework::NodeScoreList& scores) const {
  // Fewest untolerated PreferNoSchedule taints score highest.
  helper::DefaultNormalizeScore(framework::kMaxNodeScore, /*reverse=*/true,
                                scores);
  return framework::Status();
}

util::Result<std::unique_ptr<framework::Plugin>> NewTaintToleration(
    const config::PluginArgs* /*args*/, framework::Handle& /*handle*/) {
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<TaintToleration>());
}

bool TaintToleration::SignPod(const api::Pod& pod, api::Pod& into) const {
  framework::signature::CopyTolerations(pod, into);
  return true;
}

}  // namespace ksched::plugins
