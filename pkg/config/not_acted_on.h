// Fields a configuration file may set, that ksched accepts (they are valid
// kube-scheduler configuration) but does not act on; start-up reports them
// so that nobody expects them to take effect.
#pragma once

#include <string>
#include <vector>

#include "pkg/util/json.h"

namespace ksched::config {

// The JSON paths of such fields present (and not null) in `document`, in
// the order of the list in not_acted_on.cc.
std::vector<std::string> FieldsNotActedOn(const rapidjson::Value& document);

}  // namespace ksched::config
