#include "pkg/simulator/report.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <ostream>
#include <sstream>
#include <string_view>

#include "pkg/api/resource_names.h"
#include "pkg/explain/render.h"
#include "pkg/simulator/device_outcomes.h"
#include "pkg/simulator/report_json.h"
#include "pkg/util/json.h"

namespace ksched::simulator {
namespace {

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

// Cores with up to three decimals ("7.91"), so requested and allocatable
// read in one unit even when one of them is in milli-cores.
std::string Cores(const api::Quantity& q) {
  int64_t milli = q.MilliValue();
  std::string out = std::to_string(milli / 1000);
  int64_t frac = milli % 1000;
  if (frac != 0) {
    std::string digits =
        std::to_string(1000 + (frac < 0 ? -frac : frac)).substr(1);
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out;
}

// "1.5/3.92 38%" for requested/allocatable of one resource.
std::string Usage(const NodeSummary& n, std::string_view resource) {
  const api::Quantity* req = n.requested.Find(resource);
  const api::Quantity* alloc = n.allocatable.Find(resource);
  auto text = [&](const api::Quantity& q) {
    return resource == api::kResourceCpu ? Cores(q) : q.ToString();
  };
  std::string used = req ? text(*req) : "0";
  if (alloc == nullptr) return used + "/-";
  std::string out = used + "/" + text(*alloc);
  __int128 total = alloc->NanoValue();
  if (total > 0) {
    __int128 part = req ? req->NanoValue() : 0;
    out += " " + std::to_string(static_cast<int64_t>(part * 100 / total)) + "%";
  }
  return out;
}

bool IsBasic(std::string_view name) {
  return name == api::kResourceCpu || name == api::kResourceMemory ||
         name == api::kResourcePods || name == api::kResourceEphemeralStorage;
}

void WriteResources(rapidjson::Writer<rapidjson::StringBuffer>& w,
                    const api::ResourceList& list) {
  w.StartObject();
  for (const auto& [name, q] : list) {
    w.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
    WriteString(w, q.ToString());
  }
  w.EndObject();
}

const char* FateName(DisplacedPod::Fate fate) {
  switch (fate) {
    case DisplacedPod::Fate::kRecreated:
      return "recreated";
    case DisplacedPod::Fate::kDeleted:
      return "deleted";
    case DisplacedPod::Fate::kGoneWithNode:
      return "goneWithNode";
    case DisplacedPod::Fate::kStaysDaemon:
      return "staysDaemonSet";
    case DisplacedPod::Fate::kStaysMirror:
      return "staysMirror";
  }
  return "deleted";
}

}  // namespace

void WriteString(JsonWriter& w, const std::string& s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

namespace {

// A list of strings under `key`; nothing when it is empty.
void WriteStrings(JsonWriter& w, const char* key,
                  const std::vector<std::string>& values) {
  if (values.empty()) return;
  w.Key(key);
  w.StartArray();
  for (const std::string& v : values) WriteString(w, v);
  w.EndArray();
}

}  // namespace

namespace {

// The first `most` of `items`, joined by ", ", and how many more.
std::string JoinSome(const std::vector<std::string>& items, size_t most) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < most; ++i) {
    if (i > 0) out += ", ";
    out += items[i];
  }
  if (items.size() > most) {
    out += " and " + std::to_string(items.size() - most) + " more";
  }
  return out;
}

// The NODES NEEDED section's lines: the count, the pods no node like the
// template takes (grouped by why), and how the count was found.
std::string NodesNeededLines(const SimulationResult& r) {
  std::ostringstream out;
  const NodeSearchSummary search = r.node_search.value_or(NodeSearchSummary{});
  const int n = r.nodes_needed;
  const std::string like =
      std::string(n == 1 ? " node" : " nodes") + " like " + r.node_template;
  const bool some_cannot = !search.cannot_take.empty();
  if (!search.found) {
    out << "even " << n << " more" << like
        << (search.stopped_at_max ? " (--max)" : " (one a pending pod)")
        << " leave " << search.not_within.size() << " pod"
        << (search.not_within.size() == 1 ? "" : "s")
        << " such nodes take alone pending (see their messages): "
        << JoinSome(search.not_within, 10) << "\n";
  } else if (n == 0) {
    out << (some_cannot ? "none: every pending pod such nodes can take fits "
                          "already\n"
                        : "none: every pending pod fits already\n");
  } else {
    out << n << " more" << like
        << (some_cannot ? (n == 1 ? " fits" : " fit")
                        : (n == 1 ? " makes" : " make"))
        << (some_cannot ? " every pending pod such nodes can take\n"
                        : " every pending pod fit\n");
  }
  if (some_cannot) {
    // The same reason for many pods (a workload's) is said once.
    std::vector<std::pair<std::string, std::vector<std::string>>> by_reason;
    for (const auto& pod_and_why : search.cannot_take) {
      const std::string& why = pod_and_why.second;
      auto it = std::find_if(by_reason.begin(), by_reason.end(),
                             [&](const auto& g) { return g.first == why; });
      if (it == by_reason.end()) {
        by_reason.push_back({why, {}});
        it = std::prev(by_reason.end());
      }
      it->second.push_back(pod_and_why.first);
    }
    out << "no node like " << r.node_template << " can take "
        << search.cannot_take.size() << " pod"
        << (search.cannot_take.size() == 1 ? "" : "s") << ":\n";
    for (const auto& [why, pods] : by_reason) {
      out << "  " << JoinSome(pods, 5) << ": " << why << "\n";
    }
  }
  if (search.runs > 0) {
    std::vector<std::string> counts;
    for (int t : search.tried) counts.push_back(std::to_string(t));
    char seconds[32];
    std::snprintf(seconds, sizeof(seconds), "%.2f s", search.seconds);
    out << "searched in " << search.runs << " run"
        << (search.runs == 1 ? "" : "s") << " (" << JoinSome(counts, 40)
        << " more nodes"
        << (some_cannot ? ", and one trying each pod alone" : "") << "), "
        << seconds << "\n";
  }
  return out.str();
}

}  // namespace

namespace {

// The COUNTERS, SHARED DEVICES and TAINTED DEVICES sections of the table.
std::string RenderDeviceUsage(const DeviceUsage& u) {
  std::ostringstream out;
  auto node = [](const std::string& n) { return n.empty() ? "-" : n; };
  if (!u.counter_sets.empty()) {
    out << "\nCOUNTERS (left of each counter set)\n";
    for (const CounterSetOutcome& c : u.counter_sets) {
      out << Pad(node(c.node), 12) << c.driver << "/" << c.pool << " " << c.name
          << ":";
      for (size_t i = 0; i < c.counters.size(); ++i) {
        const CounterSetOutcome::Counter& k = c.counters[i];
        out << (i == 0 ? " " : ", ") << k.name << " " << k.left << " of "
            << k.total << " left";
      }
      out << "\n";
    }
  }
  if (!u.shared_devices.empty()) {
    out << "\nSHARED DEVICES\n";
    for (const SharedDeviceOutcome& s : u.shared_devices) {
      out << Pad(node(s.node), 12) << s.driver << "/" << s.pool << "/"
          << s.device << ": " << s.shares << " share"
          << (s.shares == 1 ? "" : "s");
      for (const SharedDeviceOutcome::Capacity& c : s.capacity) {
        out << ", " << c.name << " " << c.consumed << " of " << c.total
            << " consumed";
      }
      out << "\n";
    }
  }
  if (!u.tainted_devices.empty()) {
    out << "\nTAINTED DEVICES\n";
    for (const TaintedDeviceOutcome& t : u.tainted_devices) {
      out << Pad(node(t.node), 12) << t.driver << "/" << t.pool << "/"
          << t.device << ":";
      for (const std::string& taint : t.taints) out << " " << taint;
      out << (t.held_by.empty() ? ", free"
                                : ", held by " + t.held_by + " (tolerated)")
          << "\n";
    }
  }
  return out.str();
}

}  // namespace

std::string RenderTable(const SimulationResult& r) {
  std::ostringstream out;
  size_t scheduled = std::count_if(r.pods.begin(), r.pods.end(),
                                   [](const auto& p) { return p.node; });
  out << "PODS: " << r.pods.size() << " pending, " << scheduled
      << " scheduled, " << r.pods.size() - scheduled << " not scheduled\n";
  size_t pod_width = 24, node_width = 12;
  for (const PodOutcome& p : r.pods) {
    pod_width = std::max(pod_width, p.ns.size() + p.name.size() + 2);
    if (p.node) node_width = std::max(node_width, p.node->size() + 1);
  }
  out << Pad("NAMESPACE/POD", pod_width) << Pad("NODE", node_width)
      << "RESULT\n";
  for (const PodOutcome& p : r.pods) {
    std::string result = p.node ? "Scheduled" : p.message;
    if (!p.nominated_node.empty()) {
      result += " (nominated node " + p.nominated_node + ")";
    }
    out << Pad(p.ns + "/" + p.name, pod_width)
        << Pad(p.node ? *p.node : "-", node_width) << result << "\n";
  }
  // Which devices the scheduled pods' claims hold: one line per claim.
  std::vector<std::pair<std::string, std::string>> device_lines;
  for (const PodOutcome& p : r.pods) {
    for (const PodClaimOutcome& c : p.claims) {
      if (c.devices.empty()) continue;
      device_lines.emplace_back(
          p.ns + "/" + p.name,
          *p.node + ": " + DeviceList(c.devices) + " (claim " + c.claim + ")");
    }
  }
  if (!device_lines.empty()) {
    out << "\nDEVICES\n";
    for (const auto& [pod, line] : device_lines) {
      out << Pad(pod, pod_width) << line << "\n";
    }
  }
  out << RenderDeviceUsage(r.device_usage);
  if (!r.preempted.empty()) {
    out << "\nPreempted (" << r.preempted.size() << "):\n";
    for (const PreemptedPod& p : r.preempted) {
      out << "  " << p.ns << "/" << p.name << " on " << p.node << ", for "
          << p.by << "\n";
    }
  }
  if (!r.other_scheduler_pods.empty()) {
    out << "\nLeft to other schedulers (" << r.other_scheduler_pods.size()
        << "):";
    for (const std::string& p : r.other_scheduler_pods) out << " " << p;
    out << "\n";
  }

  if (!r.workloads.empty()) {
    out << "\nWORKLOADS\n";
    for (const WorkloadOutcome& w : r.workloads) {
      out << w.ns << "/" << w.name << " (" << w.kind << "): " << w.scheduled
          << "/" << w.desired << " scheduled";
      if (w.unschedulable > 0) {
        out << ", " << w.unschedulable << " unschedulable";
        if (!w.message.empty()) out << ": " << w.message;
      }
      out << "\n";
    }
  }

  if (!r.pod_groups.empty()) {
    out << "\nPOD GROUPS\n";
    for (const PodGroupOutcome& g : r.pod_groups) {
      const int of = std::max(g.min_member, g.members);
      out << g.ns << "/" << g.name << " (PodGroup, minMember " << g.min_member
          << "): " << g.scheduled << "/" << of;
      out << (g.message.empty() ? " scheduled" : ": " + g.message) << "\n";
    }
  }

  if (!r.displaced.empty() || !r.added_nodes.empty()) {
    out << "\nCHANGES\n";
    if (!r.added_nodes.empty()) {
      out << "added nodes:";
      for (const std::string& n : r.added_nodes) out << " " << n;
      out << "\n";
    }
    for (const DisplacedOutcome& d : r.displaced) {
      out << d.pod << " (on " << d.node << "): ";
      if (d.fate == DisplacedPod::Fate::kStaysDaemon) {
        out << "stays, DaemonSet-managed (drain ignores DaemonSets)\n";
      } else if (d.fate == DisplacedPod::Fate::kStaysMirror) {
        out << "stays, a static pod's mirror (drain skips it)\n";
      } else if (d.fate == DisplacedPod::Fate::kDeleted) {
        out << "deleted (--force), no controller re-creates it\n";
      } else if (d.recreated.empty()) {
        out << "gone with the node, no controller re-creates it\n";
      } else if (d.new_node) {
        out << "re-created as " << d.recreated << " on " << *d.new_node << "\n";
      } else {
        out << "re-created as " << d.recreated
            << ", unschedulable: " << d.message << "\n";
      }
    }
  }

  if (r.capacity) {
    const CapacityOutcome& c = *r.capacity;
    out << "\nCAPACITY\n" << c.fits << " more pods like " << c.pod << " fit";
    if (!c.nodes.empty()) {
      out << ":";
      const char* sep = " ";
      for (const auto& [node, n] : c.nodes) {
        out << sep << node << " " << n;
        sep = ", ";
      }
    }
    out << "\n";
    if (c.reached_max) {
      out << "stopped at --max " << c.max << "\n";
    } else if (!c.stopped_by.empty()) {
      out << "the next one: " << c.stopped_by << "\n";
      if (!c.stopped_devices.empty()) {
        out << "its claims, e.g. on " << c.stopped_devices << "\n";
      }
    }
  }
  if (r.nodes_needed >= 0) {
    out << "\nNODES NEEDED\n" << NodesNeededLines(r);
  }

  out << "\nNODES\n";
  size_t name_width = 12;
  for (const NodeSummary& n : r.nodes) {
    name_width = std::max(name_width, n.name.size() + 1);
  }
  out << Pad("NODE", name_width) << Pad("CPU", 20) << Pad("MEMORY", 24)
      << Pad("PODS", 10) << "NOTES\n";
  for (const NodeSummary& n : r.nodes) {
    std::string notes;
    auto add = [&notes](const std::string& s) {
      if (!notes.empty()) notes += "; ";
      notes += s;
    };
    for (const auto& [name, q] : n.allocatable) {
      if (IsBasic(name)) continue;
      add(name + " " + Usage(n, name));
    }
    for (const NodeDevices& d : n.devices) {
      add(d.driver + " " + std::to_string(d.allocated) + "/" +
          std::to_string(d.total) + " devices");
    }
    if (n.unschedulable) add("cordoned");
    for (const std::string& t : n.taints) add("taint " + t);
    out << Pad(n.name, name_width) << Pad(Usage(n, api::kResourceCpu), 20)
        << Pad(Usage(n, api::kResourceMemory), 24)
        << Pad(std::to_string(n.pods) + "/" + std::to_string(n.allowed_pods),
               10)
        << notes << "\n";
  }
  bool explained = false;
  for (const PodOutcome& p : r.pods) {
    if (!p.explanation) continue;
    out << (explained ? "\n" : "\nEXPLAIN\n")
        << explain::RenderText(*p.explanation);
    explained = true;
  }
  for (const std::string& w : r.warnings) out << "warning: " << w << "\n";
  return out.str();
}

void WritePodClaims(JsonWriter& w, const PodOutcome& p) {
  if (!p.claims.empty()) {
    w.Key("claims");
    w.StartArray();
    for (const PodClaimOutcome& c : p.claims) {
      w.StartObject();
      w.Key("podClaim");
      WriteString(w, c.pod_claim);
      w.Key("claim");
      WriteString(w, c.claim);
      w.Key("devices");
      w.StartArray();
      for (const AllocatedDevice& d : c.devices) {
        w.StartObject();
        w.Key("request");
        WriteString(w, d.request);
        w.Key("driver");
        WriteString(w, d.driver);
        w.Key("pool");
        WriteString(w, d.pool);
        w.Key("device");
        WriteString(w, d.device);
        if (d.admin_access) {
          w.Key("adminAccess");
          w.Bool(true);
        }
        WriteStrings(w, "counterSets", d.counter_sets);
        if (d.share_id) {
          w.Key("shareID");
          WriteString(w, *d.share_id);
        }
        if (!d.consumed_capacity.empty()) {
          w.Key("consumedCapacity");
          w.StartObject();
          for (const auto& [name, value] : d.consumed_capacity) {
            w.Key(name.c_str(), static_cast<rapidjson::SizeType>(name.size()));
            WriteString(w, value);
          }
          w.EndObject();
        }
        WriteStrings(w, "taints", d.taints);
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
  }
}

void WriteDeviceUsage(JsonWriter& w, const DeviceUsage& u) {
  if (u.empty()) return;
  auto where = [&](const std::string& node, const std::string& driver,
                   const std::string& pool) {
    w.Key("node");
    WriteString(w, node);
    w.Key("driver");
    WriteString(w, driver);
    w.Key("pool");
    WriteString(w, pool);
  };
  w.Key("deviceUsage");
  w.StartObject();
  w.Key("counterSets");
  w.StartArray();
  for (const CounterSetOutcome& c : u.counter_sets) {
    w.StartObject();
    where(c.node, c.driver, c.pool);
    w.Key("name");
    WriteString(w, c.name);
    w.Key("counters");
    w.StartArray();
    for (const CounterSetOutcome::Counter& k : c.counters) {
      w.StartObject();
      w.Key("name");
      WriteString(w, k.name);
      w.Key("left");
      WriteString(w, k.left);
      w.Key("total");
      WriteString(w, k.total);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("sharedDevices");
  w.StartArray();
  for (const SharedDeviceOutcome& s : u.shared_devices) {
    w.StartObject();
    where(s.node, s.driver, s.pool);
    w.Key("device");
    WriteString(w, s.device);
    w.Key("shares");
    w.Int(s.shares);
    w.Key("capacity");
    w.StartArray();
    for (const SharedDeviceOutcome::Capacity& c : s.capacity) {
      w.StartObject();
      w.Key("name");
      WriteString(w, c.name);
      w.Key("consumed");
      WriteString(w, c.consumed);
      w.Key("total");
      WriteString(w, c.total);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("taintedDevices");
  w.StartArray();
  for (const TaintedDeviceOutcome& t : u.tainted_devices) {
    w.StartObject();
    where(t.node, t.driver, t.pool);
    w.Key("device");
    WriteString(w, t.device);
    WriteStrings(w, "taints", t.taints);
    w.Key("heldBy");
    WriteString(w, t.held_by);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WritePlanOutcomes(JsonWriter& w, const SimulationResult& r) {
  WriteDeviceUsage(w, r.device_usage);
  if (!r.workloads.empty()) {
    w.Key("workloads");
    w.StartArray();
    for (const WorkloadOutcome& wo : r.workloads) {
      w.StartObject();
      w.Key("kind");
      WriteString(w, wo.kind);
      w.Key("namespace");
      WriteString(w, wo.ns);
      w.Key("name");
      WriteString(w, wo.name);
      w.Key("desired");
      w.Int(wo.desired);
      w.Key("scheduled");
      w.Int(wo.scheduled);
      w.Key("unschedulable");
      w.Int(wo.unschedulable);
      w.Key("message");
      WriteString(w, wo.message);
      w.EndObject();
    }
    w.EndArray();
  }
  if (!r.pod_groups.empty()) {
    w.Key("podGroups");
    w.StartArray();
    for (const PodGroupOutcome& g : r.pod_groups) {
      w.StartObject();
      w.Key("namespace");
      WriteString(w, g.ns);
      w.Key("name");
      WriteString(w, g.name);
      w.Key("minMember");
      w.Int(g.min_member);
      w.Key("members");
      w.Int(g.members);
      w.Key("scheduled");
      w.Int(g.scheduled);
      w.Key("mostPlaced");
      w.Int(g.most_placed);
      w.Key("message");
      WriteString(w, g.message);
      w.EndObject();
    }
    w.EndArray();
  }
  if (!r.displaced.empty() || !r.added_nodes.empty()) {
    w.Key("displaced");
    w.StartArray();
    for (const DisplacedOutcome& d : r.displaced) {
      w.StartObject();
      w.Key("pod");
      WriteString(w, d.pod);
      w.Key("node");
      WriteString(w, d.node);
      w.Key("fate");
      w.String(FateName(d.fate));
      w.Key("recreated");
      if (d.recreated.empty()) {
        w.Null();
      } else {
        WriteString(w, d.recreated);
      }
      w.Key("newNode");
      if (d.new_node) {
        WriteString(w, *d.new_node);
      } else {
        w.Null();
      }
      w.Key("message");
      WriteString(w, d.message);
      w.EndObject();
    }
    w.EndArray();
    w.Key("addedNodes");
    w.StartArray();
    for (const std::string& n : r.added_nodes) WriteString(w, n);
    w.EndArray();
  }
  if (r.capacity) {
    const CapacityOutcome& c = *r.capacity;
    w.Key("capacity");
    w.StartObject();
    w.Key("pod");
    WriteString(w, c.pod);
    w.Key("fits");
    w.Int(c.fits);
    w.Key("nodes");
    w.StartObject();
    for (const auto& [node, n] : c.nodes) {
      w.Key(node.c_str());
      w.Int(n);
    }
    w.EndObject();
    w.Key("stoppedBy");
    WriteString(w, c.stopped_by);
    if (!c.stopped_devices.empty()) {
      w.Key("stoppedByDevices");
      WriteString(w, c.stopped_devices);
    }
    w.Key("reachedMax");
    w.Bool(c.reached_max);
    w.EndObject();
  }
  if (r.nodes_needed >= 0) {
    w.Key("nodesNeeded");
    w.Int(r.nodes_needed);
  }
  if (r.node_search) {
    const NodeSearchSummary& search = *r.node_search;
    w.Key("nodeSearch");
    w.StartObject();
    w.Key("found");
    w.Bool(search.found);
    w.Key("stoppedAtMax");
    w.Bool(search.stopped_at_max);
    w.Key("cannotTake");
    w.StartArray();
    for (const auto& [pod, why] : search.cannot_take) {
      w.StartObject();
      w.Key("pod");
      WriteString(w, pod);
      w.Key("reason");
      WriteString(w, why);
      w.EndObject();
    }
    w.EndArray();
    w.Key("notWithin");
    w.StartArray();
    for (const std::string& pod : search.not_within) WriteString(w, pod);
    w.EndArray();
    w.Key("tried");
    w.StartArray();
    for (int n : search.tried) w.Int(n);
    w.EndArray();
    w.Key("runs");
    w.Int(search.runs);
    w.Key("seconds");
    w.Double(search.seconds);
    w.EndObject();
  }
}

void WritePreempted(JsonWriter& w, const SimulationResult& r) {
  w.Key("preempted");
  w.StartArray();
  for (const PreemptedPod& p : r.preempted) {
    w.StartObject();
    w.Key("namespace");
    WriteString(w, p.ns);
    w.Key("name");
    WriteString(w, p.name);
    w.Key("node");
    WriteString(w, p.node);
    w.Key("preemptedBy");
    WriteString(w, p.by);
    w.EndObject();
  }
  w.EndArray();
}

namespace {

// What RenderJson and WriteJson share: the report is written into a small
// buffer that `drain` empties between pods and between nodes, so a report
// of 100,000 nodes never exists whole in memory when it goes to a stream.
// (The writer keeps only its nesting; emptying its buffer between values
// leaves the document intact.)
void WriteJsonReport(const SimulationResult& r,
                     const std::function<void(std::string_view)>& drain) {
  constexpr size_t kDrainAt = 1 << 16;
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto drain_if_full = [&] {
    if (buffer.GetSize() < kDrainAt) return;
    drain(std::string_view(buffer.GetString(), buffer.GetSize()));
    buffer.Clear();
  };
  w.StartObject();
  w.Key("pods");
  w.StartArray();
  for (const PodOutcome& p : r.pods) {
    w.StartObject();
    w.Key("namespace");
    WriteString(w, p.ns);
    w.Key("name");
    WriteString(w, p.name);
    w.Key("node");
    if (p.node) {
      WriteString(w, *p.node);
    } else {
      w.Null();
    }
    w.Key("message");
    WriteString(w, p.message);
    if (!p.nominated_node.empty()) {
      w.Key("nominatedNode");
      WriteString(w, p.nominated_node);
    }
    w.Key("profile");
    WriteString(w, p.profile);
    WritePodClaims(w, p);
    if (p.explanation && p.record) {
      w.Key("explain");
      explain::WriteJson(w, *p.explanation, *p.record);
    }
    w.EndObject();
    drain_if_full();
  }
  w.EndArray();
  WritePlanOutcomes(w, r);
  w.Key("nodes");
  w.StartArray();
  for (const NodeSummary& n : r.nodes) {
    w.StartObject();
    w.Key("name");
    WriteString(w, n.name);
    w.Key("requested");
    WriteResources(w, n.requested);
    w.Key("requestedBefore");
    WriteResources(w, n.requested_before);
    w.Key("allocatable");
    WriteResources(w, n.allocatable);
    w.Key("pods");
    w.Int(n.pods);
    w.Key("podsBefore");
    w.Int(n.pods_before);
    if (n.unschedulable) {
      w.Key("cordoned");
      w.Bool(true);
    }
    if (!n.taints.empty()) {
      w.Key("taints");
      w.StartArray();
      for (const std::string& t : n.taints) WriteString(w, t);
      w.EndArray();
    }
    if (!n.devices.empty()) {
      w.Key("devices");
      w.StartArray();
      for (const NodeDevices& d : n.devices) {
        w.StartObject();
        w.Key("driver");
        WriteString(w, d.driver);
        w.Key("allocated");
        w.Int(d.allocated);
        w.Key("total");
        w.Int(d.total);
        w.EndObject();
      }
      w.EndArray();
    }
    w.EndObject();
    drain_if_full();
  }
  w.EndArray();
  WritePreempted(w, r);
  w.Key("otherSchedulerPods");
  w.StartArray();
  for (const std::string& p : r.other_scheduler_pods) WriteString(w, p);
  w.EndArray();
  w.Key("warnings");
  w.StartArray();
  for (const std::string& s : r.warnings) WriteString(w, s);
  w.EndArray();
  w.Key("pendingReasons");
  w.StartArray();
  for (const PendingReason& p : PendingReasons(r)) {
    w.StartObject();
    w.Key("reason");
    WriteString(w, p.reason);
    w.Key("pods");
    w.Int(p.pods);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  buffer.Put('\n');
  drain(std::string_view(buffer.GetString(), buffer.GetSize()));
}

}  // namespace

std::string RenderJson(const SimulationResult& r) {
  std::string out;
  WriteJsonReport(r, [&](std::string_view part) { out.append(part); });
  return out;
}

void WriteJson(const SimulationResult& r, std::ostream& out) {
  WriteJsonReport(r, [&](std::string_view part) {
    out.write(part.data(), static_cast<std::streamsize>(part.size()));
  });
}

std::string PrimaryReasonKey(const std::string& message,
                             const std::string& pod_name,
                             const std::string& pod_namespace) {
  std::string without = message;
  if (!pod_namespace.empty()) {
    // `pod "<namespace>/<name>": ` before a plugin's reason (DRA's).
    const std::string prefix =
        "pod \"" + pod_namespace + "/" + pod_name + "\": ";
    for (size_t at; (at = without.find(prefix)) != std::string::npos;) {
      without.erase(at, prefix.size());
    }
  }
  if (!pod_name.empty()) {
    // " <name>" where the name stands as a word of its own.
    const std::string word = " " + pod_name;
    for (size_t at = 0; (at = without.find(word, at)) != std::string::npos;) {
      const size_t end = at + word.size();
      if (end == without.size() || without[end] == ' ' || without[end] == ',' ||
          without[end] == '.' || without[end] == ':') {
        without.erase(at, word.size());
      } else {
        at = end;
      }
    }
  }
  return without;
}

int FitErrorReasons(const std::string& message) {
  static constexpr std::string_view kAvailable = " nodes are available: ";
  const size_t available = message.find(kAvailable);
  if (message.rfind("0/", 0) != 0 || available == std::string::npos) return 0;
  const size_t begin = available + kAvailable.size();
  size_t end = message.find(". ", begin);
  if (end == std::string::npos) end = message.size();
  // Items are "<count> <reason>" joined by ", " (a reason may hold a comma
  // not followed by a count).
  int items = 1;
  for (size_t at = message.find(", ", begin); at < end;
       at = message.find(", ", at + 2)) {
    items += at + 2 < end && message[at + 2] >= '0' && message[at + 2] <= '9';
  }
  return items;
}

std::string PendingReasonOf(const PodOutcome& pod) {
  if (!pod.primary_reason.empty()) return pod.primary_reason;
  return PrimaryReason(pod.message, pod.name, pod.ns);
}

std::string PrimaryReason(const std::string& message,
                          const std::string& pod_name,
                          const std::string& pod_namespace) {
  if (!pod_name.empty()) {
    const std::string without =
        PrimaryReasonKey(message, pod_name, pod_namespace);
    if (without != message) return PrimaryReason(without);
  }
  // kube's FitError: "0/N nodes are available: " then "<count> <reason>"
  // items joined by ", ", then ". " and what preemption said.
  static constexpr std::string_view kAvailable = " nodes are available: ";
  const size_t available = message.find(kAvailable);
  if (message.rfind("0/", 0) != 0 || available == std::string::npos) {
    const size_t colon = message.find(':');
    return message.substr(0, colon);
  }
  const size_t begin = available + kAvailable.size();
  size_t end = message.find(". ", begin);
  if (end == std::string::npos) {
    end = message.size();
    if (end > begin && message[end - 1] == '.') --end;
  }
  const std::string_view items(message.data() + begin, end - begin);
  // Items are split at ", " followed by a count: a reason itself may hold
  // a comma.
  auto count_of = [](std::string_view item, std::string_view* reason) {
    size_t digits = 0;
    while (digits < item.size() && item[digits] >= '0' && item[digits] <= '9') {
      ++digits;
    }
    long count = 0;
    // Node counts; an item that does not start with one (or with digits
    // too many to be one) is a reason of its own.
    if (digits == 0 || digits > 12 || digits >= item.size() ||
        item[digits] != ' ' ||
        std::from_chars(item.data(), item.data() + digits, count).ec !=
            std::errc()) {
      *reason = item;
      return -1L;
    }
    *reason = item.substr(digits + 1);
    return count;
  };
  std::string_view best;
  long best_count = -2;
  size_t start = 0;
  while (start <= items.size()) {
    size_t split = start;
    size_t next = std::string_view::npos;
    while ((split = items.find(", ", split)) != std::string_view::npos) {
      if (split + 2 < items.size() && items[split + 2] >= '0' &&
          items[split + 2] <= '9') {
        next = split;
        break;
      }
      split += 2;
    }
    const std::string_view item = items.substr(
        start,
        next == std::string_view::npos ? std::string_view::npos : next - start);
    std::string_view reason;
    long count = count_of(item, &reason);
    // A PreFilter's message rejects every node at once.
    if (count < 0) count = std::numeric_limits<long>::max();
    if (count > best_count) {
      best_count = count;
      best = reason;
    }
    if (next == std::string_view::npos) break;
    start = next + 2;
  }
  return std::string(best);
}

std::vector<PendingReason> PendingReasons(const SimulationResult& result) {
  std::map<std::string, int> pods;
  for (const PodOutcome& p : result.pods) {
    if (!p.node) ++pods[PendingReasonOf(p)];
  }
  std::vector<PendingReason> out;
  for (const auto& [reason, n] : pods) out.push_back({reason, n});
  std::stable_sort(out.begin(), out.end(),
                   [](const PendingReason& a, const PendingReason& b) {
                     return a.pods > b.pods;
                   });
  return out;
}

std::vector<std::string> InputNotices(const Cluster& cluster,
                                      const std::string& path,
                                      const std::vector<std::string>& profiles,
                                      bool all_pods,
                                      const SimulationResult& result) {
  std::vector<std::string> notices;
  // The result lists every node of the input (a simulation may have taken
  // the input's own).
  if (result.nodes.empty()) notices.push_back("no nodes in " + path);
  if (result.pods.empty()) {
    std::string names;
    for (const std::string& p : profiles)
      names += (names.empty() ? "" : " ") + p;
    notices.push_back(all_pods
                          ? "no pending pods in " + path
                          : "no pending pods for profiles [" + names + "]");
  }
  if (result.pod_groups_ignored > 0) {
    notices.push_back(
        "note: " + std::to_string(result.pod_groups_ignored) +
        (result.pod_groups_ignored == 1 ? " PodGroup" : " PodGroups") +
        " in the input, but no profile runs Coscheduling: their pods were "
        "scheduled one by one, as plain pods (for gangs, run with a profile "
        "that does, such as --config examples/gang/scheduler-config.yaml)");
  }
  if (!cluster.ignored_kinds.empty()) {
    int count = 0;
    std::string kinds;
    for (const auto& [kind, n] : cluster.ignored_kinds) {
      count += n;
      kinds += (kinds.empty() ? "" : ", ") + kind;
    }
    notices.push_back("ignored " + std::to_string(count) +
                      (count == 1 ? " object of kind " : " objects of kinds ") +
                      kinds);
  }
  return notices;
}

}  // namespace ksched::simulator
