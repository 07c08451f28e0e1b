// Toleration matching (core/v1 Toleration.ToleratesTaint and the scheduling
// helpers built on it).
#pragma once

#include <functional>
#include <vector>

#include "pkg/api/selector.h"

namespace ksched::api {

bool ToleratesTaint(const Toleration& toleration, const Taint& taint);

bool TolerationsTolerateTaint(const std::vector<Toleration>& tolerations,
                              const Taint& taint);

// The first taint accepted by `filter` that no toleration tolerates, or
// nullptr (v1helper.FindMatchingUntoleratedTaint).
const Taint* FindMatchingUntoleratedTaint(
    const std::vector<Taint>& taints,
    const std::vector<Toleration>& tolerations,
    const std::function<bool(const Taint&)>& filter);

std::string_view TaintEffectName(TaintEffect effect);

}  // namespace ksched::api
