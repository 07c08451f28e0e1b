#include "pkg/plugins/helper/normalize_score.h"

#include <algorithm>

namespace ksched::plugins::helper {

void DefaultNormalizeScore(int64_t max_priority, bool reverse,
                           framework::NodeScoreList& scores) {
  int64_t max_count = 0;
  for (const framework::NodeScore& s : scores) {
    max_count = std::max(max_count, s.score);
  }
  for (framework::NodeScore& s : scores) {
    int64_t scaled = max_count == 0 ? 0 : max_priority * s.score / max_count;
    s.score = reverse ? max_priority - scaled : scaled;
  }
}

}  // namespace ksched::plugins::helper
