// PodTopologySpread's per-cycle state: what PreFilter computes for Filter
// (preFilterState) and PreScore for Score (preScoreState).
//
// Internal to the plugin; tests include it to check the computed counts.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/framework/cycle_state.h"
#include "pkg/plugins/podtopologyspread/common.h"

namespace ksched::plugins::podtopologyspread {

// The two domains of a constraint with the fewest matching pods
// (criticalPaths). paths[0] always holds the minimum; paths[1] is at least
// paths[0] but, after AddPod/RemovePod updates, not always the second
// minimum. That is enough because preemption only ever changes the pods of
// one node per state copy.
struct CriticalPaths {
  static constexpr int64_t kUnset = std::numeric_limits<int32_t>::max();
  struct Path {
    int32_t domain = -1;  // id in the constraint's DomainTable; -1: none
    int64_t match_num = kUnset;
  };
  std::array<Path, 2> paths;

  void Update(int32_t domain, int64_t num);
};

// Matching pods per domain of one DoNotSchedule constraint.
struct DomainCounts {
  // Shared between clones: AddPod copies it before adding a domain.
  std::shared_ptr<const DomainTable> domains;
  std::vector<int64_t> match_num;  // by domain id
  CriticalPaths critical_paths;
};

class PreFilterState final : public framework::StateData {
 public:
  // A deep copy of what AddPod/RemovePod change; the constraints and the
  // domain tables are immutable and shared.
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::make_shared<PreFilterState>(*this);
  }

  // The global minimum of constraint i for the skew: 0 while there are
  // fewer eligible domains than minDomains.
  int64_t MinMatchNum(size_t i) const {
    const DomainCounts& c = counts[i];
    if (c.domains->size() < (*constraints)[i].min_domains) return 0;
    return c.critical_paths.paths[0].match_num;
  }

  // Empty (never null) when the pod has no hard constraints.
  std::shared_ptr<const Constraints> constraints;
  // Whether the incoming pod matches constraint i's own selector.
  std::vector<uint8_t> self_match;
  std::vector<DomainCounts> counts;
};

// Immutable once PreScore wrote it, so clones share it.
class PreScoreState final : public framework::StateData {
 public:
  struct Data {
    Constraints constraints;
    // Nodes (by name, sorted) missing a topology key: scored 0.
    std::vector<std::string> ignored_nodes;
    // Per constraint; empty for hostname constraints, which Score counts
    // on the node itself.
    std::vector<DomainTable> domains;
    std::vector<std::vector<int64_t>> pod_counts;  // by domain id
    std::vector<double> weights;                   // topologyNormalizingWeight
    std::string ns;                                // the incoming pod's
  };

  explicit PreScoreState(std::shared_ptr<const Data> data)
      : data_(std::move(data)) {}
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::make_shared<PreScoreState>(data_);
  }
  const Data& data() const { return *data_; }
  bool IsIgnored(std::string_view node) const;

 private:
  std::shared_ptr<const Data> data_;
};

// The states of the cycle, or nullptr (defined beside their keys).
const PreFilterState* GetPreFilterState(const framework::CycleState& state);
const PreScoreState* GetPreScoreState(const framework::CycleState& state);

}  // namespace ksched::plugins::podtopologyspread
