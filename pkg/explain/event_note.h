// A FailedScheduling event's note with the explanation a user needs first:
// the two plugins that rejected the most nodes and the node that came
// closest, kept within the note's limit (events.k8s.io/v1: 1 KiB).
#pragma once

#include <cstddef>
#include <string>

#include "pkg/explain/explanation.h"

namespace ksched::explain {

inline constexpr size_t kEventNoteLimit = 1024;

// "<message> Explain: NodeResourcesFit rejected 380 nodes (Insufficient
// cpu), TaintToleration 40 (...); closest node-7, rejected by
// NodeResourcesFit only (Insufficient cpu)." The message is shortened
// (ending in " ...") when both would not fit; the explanation is kept.
std::string ExplainedEventNote(const std::string& message,
                               const Explanation& explanation,
                               size_t limit = kEventNoteLimit);

}  // namespace ksched::explain
