// Score normalisation shared by plugins (helper/normalize_score.go).
#pragma once

#include <cstdint>

#include "pkg/framework/types.h"

namespace ksched::plugins::helper {

// Scales scores in [0, max] onto [0, max_priority] (integer division, as
// Go). With `reverse`, the lowest raw score ends highest; when every score
// is 0, a reversed normalisation gives everyone max_priority.
void DefaultNormalizeScore(int64_t max_priority, bool reverse,
                           framework::NodeScoreList& scores);

}  // namespace ksched::plugins::helper
