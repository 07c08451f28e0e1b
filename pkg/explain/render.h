// An Explanation for people (indented text, one block per pod) and for
// scripts (JSON: kube-scheduler-simulator's result keys plus a summary).
#pragma once

#include <string>

#include "pkg/explain/explanation.h"
#include "pkg/framework/cycle_recorder.h"
#include "pkg/util/json.h"

namespace ksched::explain {

std::string RenderText(const Explanation& explanation);

// One JSON object: every key of CycleRecorder::ToSimulatorJson (the
// complete per-node data), "preemption-result" ({node: outcome}) and
// "summary" ({"filteredNodes", "feasibleNodes", "rejections": [{"plugin",
// "nodes", "reasons": {reason: nodes}}], "top": [{"node", "scores":
// {plugin: weighted}, "total", "selected"}], "closest": [{"plugin",
// "reason", "nodes", "examples": [node]}], "closestTotal",
// "fitsCurrentNode"}).
void WriteJson(rapidjson::Writer<rapidjson::StringBuffer>& writer,
               const Explanation& explanation,
               const framework::CycleRecorder& record);

// The "summary" object of WriteJson alone (the HTML report's model carries
// it without the per-node data).
void WriteSummary(rapidjson::Writer<rapidjson::StringBuffer>& writer,
                  const Explanation& explanation);

}  // namespace ksched::explain
