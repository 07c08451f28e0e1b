#include "pkg/api/taints.h"

namespace ksched::api {

bool ToleratesTaint(const Toleration& t, const Taint& taint) {
  // An empty effect or key tolerates every effect or key.
  if (t.effect != TaintEffect::kNone && t.effect != taint.effect) return false;
  if (!t.key.empty() && t.key != taint.key) return false;
  switch (t.op) {
    case TolerationOperator::kNone:
    case TolerationOperator::kEqual:
      return t.value == taint.value;
    case TolerationOperator::kExists:
      return true;
    case TolerationOperator::kOther:
      return false;
  }
  return false;
}

bool TolerationsTolerateTaint(const std::vector<Toleration>& tolerations,
                              const Taint& taint) {
  for (const Toleration& t : tolerations) {
    if (ToleratesTaint(t, taint)) return true;
  }
  return false;
}

const Taint* FindMatchingUntoleratedTaint(
    const std::vector<Taint>& taints,
    const std::vector<Toleration>& tolerations,
    const std::function<bool(const Taint&)>& filter) {
  for (const Taint& taint : taints) {
    if (filter && !filter(taint)) continue;
    if (!TolerationsTolerateTaint(tolerations, taint)) return &taint;
  }
  return nullptr;
}

std::string_view TaintEffectName(TaintEffect effect) {
  switch (effect) {
    case TaintEffect::kNoSchedule:
      return "NoSchedule";
    case TaintEffect::kPreferNoSchedule:
      return "PreferNoSchedule";
    case TaintEffect::kNoExecute:
      return "NoExecute";
    case TaintEffect::kNone:
    case TaintEffect::kOther:
      return "";
  }
  return "";
}

}  // namespace ksched::api
