#include "pkg/plugins/podtopologyspread/incremental_counts.h"

#include <utility>

#include "pkg/api/key_encoding.h"
#include "pkg/plugins/podtopologyspread/counting.h"

namespace ksched::plugins::podtopologyspread {

struct IncrementalCounts::Question {
  const framework::PodCountKeys* keys = nullptr;
  uint64_t last_used = 0;
  size_t k = 0;  // constraints
  // Per slot (position in the node list): the generation counted, -1 for
  // none, and per constraint the domain and count it contributed
  // ([slot * k + c]; domain -1: the node did not count).
  std::vector<int64_t> generation;
  std::vector<int32_t> domain;
  std::vector<int32_t> count;
  // Per constraint, by domain id.
  std::vector<std::shared_ptr<DomainTable>> tables;
  std::vector<std::vector<int64_t>> match_num;
  std::vector<std::vector<int32_t>> nodes_in_domain;

  void Reset(size_t constraints) {
    k = constraints;
    generation.clear();
    domain.clear();
    count.clear();
    tables.assign(k, nullptr);
    for (auto& t : tables) t = std::make_shared<DomainTable>();
    match_num.assign(k, {});
    nodes_in_domain.assign(k, {});
  }

  // Takes slot s's contribution out of the totals; whether it had one.
  bool Subtract(size_t s) {
    bool had = false;
    for (size_t c = 0; c < k; ++c) {
      const int32_t d = domain[s * k + c];
      if (d < 0) continue;
      match_num[c][d] -= count[s * k + c];
      --nodes_in_domain[c][d];
      domain[s * k + c] = -1;
      had = true;
    }
    return had;
  }

  // Adds what `counts` holds for a node at [base, base + k) as slot s's
  // contribution.
  void Add(size_t s, const NodeCounts& counts, size_t base) {
    for (size_t c = 0; c < k; ++c) {
      const int32_t n = counts.count[base + c];
      if (n < 0) continue;
      std::shared_ptr<DomainTable>& table = tables[c];
      int32_t d = table->Find(counts.value[base + c], counts.hash[base + c]);
      if (d < 0) {
        // A state of an earlier cycle may still read the table.
        if (table.use_count() > 1)
          table = std::make_shared<DomainTable>(*table);
        d = table->Intern(counts.value[base + c], counts.hash[base + c]);
        match_num[c].push_back(0);
        nodes_in_domain[c].push_back(0);
      }
      match_num[c][d] += n;
      ++nodes_in_domain[c][d];
      domain[s * k + c] = d;
      count[s * k + c] = n;
    }
  }
};

IncrementalCounts::IncrementalCounts() = default;
IncrementalCounts::~IncrementalCounts() = default;

bool IncrementalCounts::Update(Question& q, const Constraints& cs,
                               const SelectorGroups& groups,
                               const InclusionContext& inclusion,
                               const std::vector<framework::NodeInfoPtr>& nodes,
                               const ParallelFor& parallel_for) {
  const size_t n = nodes.size();
  const size_t k = q.k;
  bool subtracted = false;
  // Slots beyond the list: their nodes are gone or moved.
  for (size_t s = n; s < q.generation.size(); ++s) {
    subtracted |= q.Subtract(s);
  }
  q.generation.resize(n, -1);
  q.domain.resize(n * k, -1);
  q.count.resize(n * k, 0);

  std::vector<int> changed;
  for (size_t s = 0; s < n; ++s) {
    const int64_t g = nodes[s]->generation();
    if (g <= 0 || g != q.generation[s]) changed.push_back(static_cast<int>(s));
  }
  NodeCounts counts(changed.size(), k);
  auto count_one = [&](int j) {
    CountNode(*nodes[changed[j]], cs, groups, inclusion,
              static_cast<size_t>(j) * k, counts);
  };
  // A handful of changed nodes (the usual case between two pods of one
  // workload) is not worth waking the workers for.
  if (changed.size() > 64) {
    parallel_for(static_cast<int>(changed.size()), count_one);
  } else {
    for (size_t j = 0; j < changed.size(); ++j) count_one(static_cast<int>(j));
  }
  for (size_t j = 0; j < changed.size(); ++j) {
    const size_t s = static_cast<size_t>(changed[j]);
    subtracted |= q.Subtract(s);
    q.Add(s, counts, j * k);
    const int64_t g = nodes[s]->generation();
    q.generation[s] = g > 0 ? g : -1;
  }
  if (subtracted) {
    for (size_t c = 0; c < k; ++c) {
      for (int32_t nodes_there : q.nodes_in_domain[c]) {
        if (nodes_there <= 0) return false;
      }
    }
  }
  return true;
}

bool IncrementalCounts::Fill(const Constraints& cs,
                             const SelectorGroups& groups,
                             const InclusionContext& inclusion,
                             const framework::PodCountKeys* keys,
                             const std::vector<framework::NodeInfoPtr>& nodes,
                             const ParallelFor& parallel_for,
                             std::vector<DomainCounts>* out) {
  if (keys == nullptr || cs.empty() || !inclusion.IncludesEveryNode(cs)) {
    return false;
  }
  // The question: each constraint's selector (by its memo key, which
  // includes the namespace) and topology key.
  std::string signature;
  for (size_t c = 0; c < cs.size(); ++c) {
    const uint32_t key = groups.key(groups.group_of(c));
    if (key == 0) return false;
    signature += std::to_string(key);
    signature += '|';
    api::AppendKeyField(&signature, cs[c].topology_key);
  }

  std::lock_guard lock(mu_);
  auto it = questions_.find(signature);
  if (it == questions_.end()) {
    if (questions_.size() >= kMaxQuestions) {
      auto oldest = questions_.begin();
      for (auto i = questions_.begin(); i != questions_.end(); ++i) {
        if (i->second->last_used < oldest->second->last_used) oldest = i;
      }
      questions_.erase(oldest);
    }
    it = questions_.emplace(signature, std::make_unique<Question>()).first;
    it->second->Reset(cs.size());
    it->second->keys = keys;
  }
  Question& q = *it->second;
  q.last_used = ++tick_;
  if (q.keys != keys) {
    q.Reset(cs.size());
    q.keys = keys;
  }
  if (!Update(q, cs, groups, inclusion, nodes, parallel_for)) {
    // A domain lost its last node: count afresh, so that no empty domain
    // is left to lower the minimum.
    q.Reset(cs.size());
    Update(q, cs, groups, inclusion, nodes, parallel_for);
  }

  out->assign(cs.size(), DomainCounts{});
  for (size_t c = 0; c < cs.size(); ++c) {
    DomainCounts& dc = (*out)[c];
    dc.domains = q.tables[c];
    dc.match_num = q.match_num[c];
    for (int32_t id = 0; id < dc.domains->size(); ++id) {
      dc.critical_paths.Update(id, dc.match_num[id]);
    }
  }
  return true;
}

size_t IncrementalCounts::questions() const {
  std::lock_guard lock(mu_);
  return questions_.size();
}

}  // namespace ksched::plugins::podtopologyspread
