// Nodes and pods as JSON, for the tests and benchmarks that create them in
// the test API server.
#pragma once

#include <string>

namespace ksched::testing {

struct NodeFixture {
  std::string name;
  std::string cpu = "4";
  std::string memory = "8Gi";
  // JSON members of metadata.labels, e.g. "\"zone\":\"a\"".
  std::string labels;
};

// Capacity and allocatable alike, and Ready.
std::string NodeJson(const NodeFixture& node);

struct PodFixture {
  std::string name;
  std::string ns = "default";
  std::string cpu = "100m";
  std::string memory;      // left out when empty
  std::string scheduler;   // spec.schedulerName; left out when empty
  std::string labels;      // JSON members of metadata.labels
  std::string extra_spec;  // JSON members added to spec
};

// One pause container requesting the CPU (and memory).
std::string PodJson(const PodFixture& pod);

}  // namespace ksched::testing
