#include "pkg/plugins/defaultpreemption/candidates.h"

#include <functional>
#include <limits>

namespace ksched::plugins::defaultpreemption {

int32_t PodPriority(const api::Pod& pod) {
  return pod.spec.priority.value_or(0);
}

api::Timestamp PodStartTime(const framework::PodInfo& pod, api::Timestamp now) {
  return pod.start_time() ? pod.start_time()->value : now;
}

bool MoreImportantPod(const framework::PodInfo& a, const framework::PodInfo& b,
                      api::Timestamp now) {
  int32_t pa = a.priority();
  int32_t pb = b.priority();
  if (pa != pb) return pa > pb;
  return PodStartTime(a, now) < PodStartTime(b, now);
}

namespace {

// The start time of the earliest-started victim among those of the highest
// priority (util.GetEarliestPodStartTime).
api::Timestamp EarliestStartOfHighestPriority(const Victims& v,
                                              api::Timestamp now) {
  const framework::PodInfo& first = *v.pods.front();
  api::Timestamp earliest = PodStartTime(first, now);
  int32_t max_priority = first.priority();
  for (const framework::PodInfoPtr& info : v.pods) {
    int32_t p = info->priority();
    api::Timestamp start = PodStartTime(*info, now);
    if (p == max_priority) {
      if (start < earliest) earliest = start;
    } else if (p > max_priority) {
      max_priority = p;
      earliest = start;
    }
  }
  return earliest;
}

}  // namespace

std::string PickOneNodeForPreemption(const std::vector<Candidate>& candidates,
                                     api::Timestamp now) {
  if (candidates.empty()) return "";
  using ScoreFn = std::function<int64_t(const Victims&)>;
  // Each function scores higher what is preferred; the next one only breaks
  // the ties of the previous ones.
  const ScoreFn score_fns[] = {
      [](const Victims& v) { return -v.num_pdb_violations; },
      [](const Victims& v) {
        // Victims are ordered most important first.
        return -int64_t{v.pods.front()->priority()};
      },
      [](const Victims& v) {
        // Shifting every priority to >= 0 keeps a node with a few
        // negative-priority victims from beating one with fewer of them.
        int64_t sum = 0;
        for (const framework::PodInfoPtr& info : v.pods) {
          sum += int64_t{info->priority()} +
                 int64_t{std::numeric_limits<int32_t>::max()} + 1;
        }
        return -sum;
      },
      [](const Victims& v) { return -static_cast<int64_t>(v.pods.size()); },
      [now](const Victims& v) {
        return static_cast<int64_t>(
            EarliestStartOfHighestPriority(v, now).time_since_epoch().count());
      },
  };

  std::vector<const Candidate*> remaining;
  remaining.reserve(candidates.size());
  for (const Candidate& c : candidates) {
    // An empty victim list cannot come out of the dry run; such a
    // candidate has nothing to compare by.
    if (!c.victims.pods.empty()) remaining.push_back(&c);
  }
  if (remaining.empty()) return candidates.front().name;
  for (const ScoreFn& fn : score_fns) {
    std::vector<const Candidate*> best;
    int64_t max_score = std::numeric_limits<int64_t>::min();
    for (const Candidate* c : remaining) {
      int64_t score = fn(c->victims);
      if (score > max_score) {
        max_score = score;
        best.clear();
      }
      if (score == max_score) best.push_back(c);
    }
    if (best.size() == 1) return best.front()->name;
    remaining = std::move(best);
  }
  return remaining.front()->name;
}

}  // namespace ksched::plugins::defaultpreemption
