// Offline validation of Kubernetes manifests against the API server's
// OpenAPI v2 document.
//
// The deploy tests check every object of the Helm chart and the plain
// manifests without a cluster. What a real kube-apiserver (reached through
// `kubectl apply --validate=strict`) would refuse must fail here too:
// unknown fields, missing required fields, and values whose YAML type does
// not decode into the Go field (sigs.k8s.io/yaml reads YAML 1.1, so a plain
// `on` is a boolean and a plain `123` an integer, never a string).
#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/util/result.h"

namespace ksched::testing::deploy {

class OpenApiSchema {
 public:
  // Reads a gzip'd OpenAPI v2 (swagger 2.0) document, as served by
  // kube-apiserver at /openapi/v2. The error names the file and the problem.
  static util::Result<OpenApiSchema> LoadGzip(const std::string& path);

  OpenApiSchema(OpenApiSchema&&) noexcept;
  OpenApiSchema& operator=(OpenApiSchema&&) noexcept;
  ~OpenApiSchema();

  // The problems with one object (one YAML document), each
  // "<json path>: <message>", e.g.
  //   "spec.template.spec.containers[0].imagePullPolicyX: unknown field"
  //   "spec.replicas: expected integer, got string \"2\""
  // Empty when the object is valid. Problems that concern the object as a
  // whole (no schema for its kind) carry no path.
  std::vector<std::string> Validate(const YAML::Node& object) const;

  // How many definitions the document holds; for sanity checks.
  size_t definition_count() const;

 private:
  struct Index;

  explicit OpenApiSchema(std::unique_ptr<Index> index);

  // Behind a pointer so that moving the schema never moves the parsed
  // document that the index points into.
  std::unique_ptr<Index> index_;
};

}  // namespace ksched::testing::deploy
