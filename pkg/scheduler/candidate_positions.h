// CandidatePositions: which positions of a snapshot's node list hold the
// nodes a FilterCandidatesPlugin named, kept across cycles.
//
// A GPU pod's candidates are the few hundred nodes that publish devices;
// the list is the same object from cycle to cycle until the slices
// change, while the snapshot changes by a node or two a cycle (the one the
// last pod went to). So the positions are worked out once, and a cycle
// looks again only for the names whose node is no longer where it was
// (a generation at a position names one state of one node), instead of
// looking every name up in every cycle.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "pkg/framework/interface.h"
#include "pkg/framework/snapshot.h"

namespace ksched::scheduler {

class CandidatePositions {
 public:
  // One flag per position of `snapshot.nodes()`, set where the node is one
  // of `names`. Null when the snapshot's generations do not each name one
  // node state (a list built by hand may even repeat a name): positions
  // cannot be kept there, and the caller filters every node.
  const std::vector<uint8_t>* Update(
      std::shared_ptr<const framework::NodeNames> names,
      const framework::Snapshot& snapshot);

 private:
  void Rebuild(const framework::Snapshot& snapshot);

  std::shared_ptr<const framework::NodeNames> names_;
  const framework::Snapshot* snapshot_ = nullptr;
  // Per name: its node's position (-1: not listed) and that node's
  // generation when it was found there.
  std::vector<int32_t> positions_;
  std::vector<int64_t> generations_;
  std::vector<uint8_t> flags_;  // per snapshot position
  std::vector<size_t> moved_;   // scratch: names to look up again
};

}  // namespace ksched::scheduler
