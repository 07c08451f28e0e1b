// Pieces of the JSON report that more than one renderer writes (RenderJson
// and the HTML page's model), so that both carry the same fields.
#pragma once

#include <string>

#include "pkg/simulator/simulator.h"
#include "pkg/util/json.h"

namespace ksched::simulator {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

void WriteString(JsonWriter& w, const std::string& s);
// "claims": a scheduled pod's claims and their devices (when it has any).
void WritePodClaims(JsonWriter& w, const PodOutcome& p);
// "workloads", "podGroups", "displaced" with "addedNodes", "capacity" and
// "nodesNeeded", each only when the plan has it.
void WritePlanOutcomes(JsonWriter& w, const SimulationResult& r);
// "preempted": [{"namespace", "name", "node", "preemptedBy"}].
void WritePreempted(JsonWriter& w, const SimulationResult& r);

}  // namespace ksched::simulator
