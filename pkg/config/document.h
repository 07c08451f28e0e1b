// The text of a configuration file, YAML or JSON, as the one JSON document
// it denotes; what kube-scheduler's strict decoder refuses before looking at
// types is refused here: malformed text (with line and column), repeated
// keys, and (ksched's own rule) more than one document.
#pragma once

#include <string_view>

#include "pkg/util/json.h"
#include "pkg/util/result.h"

namespace ksched::config {

// An empty text (or only comments) gives a null document.
util::Result<rapidjson::Document> ParseConfigDocument(std::string_view text);

}  // namespace ksched::config
