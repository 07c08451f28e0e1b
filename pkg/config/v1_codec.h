// Strict decoding of a kubescheduler.config.k8s.io/v1 document into the v1
// types, as kube-scheduler's scheme decodes it: a field the type does not
// declare is an error naming its JSON path, and each pluginConfig entry's
// args are decoded as the args type registered for the plugin's name
// (other plugins' args are kept as raw JSON).
#pragma once

#include "pkg/config/v1_types.h"
#include "pkg/util/json.h"
#include "pkg/util/result.h"

namespace ksched::config::v1 {

// `document` must already be known to be a KubeSchedulerConfiguration
// object (see loader.cc); its apiVersion and kind are decoded as fields.
util::Result<KubeSchedulerConfiguration> Decode(
    const rapidjson::Value& document);

}  // namespace ksched::config::v1
