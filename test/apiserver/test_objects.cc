#include "test/apiserver/test_objects.h"

namespace ksched::testing {

std::string NodeJson(const NodeFixture& node) {
  std::string json =
      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + node.name +
      "\"";
  if (!node.labels.empty()) json += R"(,"labels":{)" + node.labels + "}";
  const std::string resources = R"({"cpu":")" + node.cpu + R"(","memory":")" +
                                node.memory + R"(","pods":"110"})";
  json += R"(},"status":{"capacity":)" + resources + R"(,"allocatable":)" +
          resources + R"(,"conditions":[{"type":"Ready","status":"True"}]}})";
  return json;
}

std::string PodJson(const PodFixture& pod) {
  std::string json = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" +
                     pod.name + R"(","namespace":")" + pod.ns + "\"";
  if (!pod.labels.empty()) json += R"(,"labels":{)" + pod.labels + "}";
  json += R"(},"spec":{)";
  if (!pod.extra_spec.empty()) json += pod.extra_spec + ",";
  if (!pod.scheduler.empty()) {
    json += R"("schedulerName":")" + pod.scheduler + "\",";
  }
  json += R"("containers":[{"name":"c","image":"registry.k8s.io/pause:3.10",)"
          R"("resources":{"requests":{"cpu":")" +
          pod.cpu + "\"";
  if (!pod.memory.empty()) json += R"(,"memory":")" + pod.memory + "\"";
  json += "}}}]}}";
  return json;
}

}  // namespace ksched::testing
