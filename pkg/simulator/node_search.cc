#include "pkg/simulator/node_search.h"

#include <algorithm>
#include <chrono>
#include <map>

namespace ksched::simulator {

util::Result<NodeSearchOutcome> SearchNodeCount(const NodeSearchInput& input,
                                                const NodeSearchTrial& trial) {
  NodeSearchOutcome out;
  out.tried.push_back(0);
  // The pods waited for that `unscheduled` still leaves out.
  auto waiting = [&](const std::set<std::string>& unscheduled) {
    std::set<std::string> left;
    for (const std::string& pod : unscheduled) {
      if (!input.hopeless.count(pod)) left.insert(pod);
    }
    return left;
  };
  std::map<int, std::set<std::string>> left_at;
  left_at[0] = waiting(input.unscheduled_without);
  if (left_at[0].empty()) return out;

  auto fits = [&](int n) -> util::Result<bool> {
    auto unscheduled = trial(n);
    if (!unscheduled.ok()) return unscheduled.error();
    out.tried.push_back(n);
    left_at[n] = waiting(*unscheduled);
    return left_at[n].empty();
  };
  const int upper = std::max(1, input.upper_bound);
  const int lower = std::clamp(input.lower_bound, 1, upper);
  // The largest count known to leave pods waiting: below the lower bound,
  // every count does.
  int fails = lower - 1;
  int passes = -1;
  // Gallop: lo, lo+1, lo+3, lo+7, ... so a tight lower bound costs one
  // run, and a loose one few more than doubling from one would.
  for (int step = 1, n = lower;; step *= 2) {
    auto ok = fits(n);
    if (!ok.ok()) return ok.error();
    if (*ok) {
      passes = n;
      break;
    }
    fails = n;
    if (n >= upper) break;
    n = static_cast<int>(std::min<int64_t>(int64_t{n} + step, upper));
  }
  if (passes < 0) {
    out.nodes = upper;
    out.found = false;
    out.still_pending = left_at[upper];
    return out;
  }
  while (passes - fails > 1) {
    const int mid = fails + (passes - fails) / 2;
    auto ok = fits(mid);
    if (!ok.ok()) return ok.error();
    (*ok ? passes : fails) = mid;
  }
  out.nodes = passes;
  return out;
}

util::Result<NodesNeeded> SearchNodesNeeded(const NodesNeededInput& input) {
  const auto start = std::chrono::steady_clock::now();
  NodesNeeded out;
  NodeSearchSummary& summary = out.summary;
  auto unscheduled = [](const SimulationResult& r) {
    std::set<std::string> pods;
    for (const PodOutcome& p : r.pods) {
      if (!p.node) pods.insert(p.ns + "/" + p.name);
    }
    return pods;
  };
  auto first = input.simulate(0, nullptr);
  if (!first.ok()) return first.error();
  ++summary.runs;
  NodeSearchInput search;
  bool max_limited = false;  // --max is lower than the pods waited for
  search.unscheduled_without = unscheduled(*first);
  std::set<std::string> asked;  // every pending pod of the run
  for (const PodOutcome& p : first->pods) asked.insert(p.ns + "/" + p.name);
  first = util::Error("");  // its pods and nodes are not needed any more
  if (!search.unscheduled_without.empty()) {
    // Which of them a node like the template can take at all: each alone
    // on one such node added to the cluster as it is, so none takes room
    // from another. Those it rejects no number of nodes helps.
    auto probe = input.simulate(1, &search.unscheduled_without);
    if (!probe.ok()) return probe.error();
    ++summary.runs;
    for (const PodOutcome& p : probe->pods) {
      const std::string key = p.ns + "/" + p.name;
      if (p.node || !search.unscheduled_without.count(key)) continue;
      search.hopeless.insert(key);
      summary.cannot_take.emplace_back(key, p.message);
    }
    std::set<std::string> waited;
    for (const std::string& pod : asked) {
      if (!search.hopeless.count(pod)) waited.insert(pod);
    }
    auto plan = input.prepare(0);
    if (!plan.ok()) return plan.error();
    search.lower_bound =
        NodeCountLowerBound(plan->cluster, input.node_template,
                            input.template_slices, waited, input.features);
    // One node a pod is enough for pods a node of the template takes
    // alone (each finds one left empty), unless what they ask of one
    // another (affinity, spread) keeps them apart: then more would not
    // help either.
    search.upper_bound =
        static_cast<int>(std::min<size_t>(static_cast<size_t>(input.max_nodes),
                                          std::max<size_t>(waited.size(), 1)));
    max_limited = static_cast<size_t>(input.max_nodes) < waited.size();
  }
  auto found = SearchNodeCount(
      search, [&](int n) -> util::Result<std::set<std::string>> {
        auto r = input.simulate(n, nullptr);
        if (!r.ok()) return r.error();
        ++summary.runs;
        return unscheduled(*r);
      });
  if (!found.ok()) return found.error();
  out.nodes = found->nodes;
  summary.found = found->found;
  summary.stopped_at_max = !found->found && max_limited;
  summary.not_within.assign(found->still_pending.begin(),
                            found->still_pending.end());
  summary.tried = found->tried;
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return out;
}

}  // namespace ksched::simulator
