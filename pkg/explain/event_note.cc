#include "pkg/explain/event_note.h"

namespace ksched::explain {
namespace {

// Long taint or affinity reasons are cut so that two plugins and a node
// always fit.
constexpr size_t kReasonLimit = 100;

std::string Clip(const std::string& s, size_t limit) {
  if (s.size() <= limit) return s;
  return s.substr(0, limit - 3) + "...";
}

}  // namespace

std::string ExplainedEventNote(const std::string& message, const Explanation& e,
                               size_t limit) {
  std::string suffix;
  for (size_t i = 0; i < e.rejections.size() && i < 2; ++i) {
    const PluginRejections& r = e.rejections[i];
    suffix += i == 0 ? " Explain: " : ", ";
    suffix += r.plugin + (i == 0 ? " rejected " : " ") +
              std::to_string(r.nodes) + (r.nodes == 1 ? " node" : " nodes");
    if (!r.reasons.empty()) {
      suffix += " (" + Clip(r.reasons.front().first, kReasonLimit) + ")";
    }
  }
  if (!e.closest.empty() && !e.closest.front().examples.empty()) {
    const CloseGroup& c = e.closest.front();
    suffix += suffix.empty() ? " Explain: " : "; ";
    suffix += "closest " + Clip(c.examples.front(), 63) + ", rejected by " +
              c.plugin + " only (" + Clip(c.reason, kReasonLimit) + ")";
  }
  if (suffix.empty()) return Clip(message, limit);
  suffix += ".";
  if (suffix.size() >= limit) return Clip(suffix.substr(1), limit);
  const size_t room = limit - suffix.size();
  if (message.size() <= room) return message + suffix;
  const std::string more = " ...";
  return message.substr(0, room - more.size()) + more + suffix;
}

}  // namespace ksched::explain
