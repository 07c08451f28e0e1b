// The admission plugins a default kube-apiserver runs on create that
// change or refuse what the scheduler sees: NamespaceLifecycle (content
// only in existing, live namespaces), Priority (a pod's priority from its
// PriorityClass), DefaultTolerationSeconds and the service account name.
#pragma once

#include <optional>

#include "test/apiserver/json_util.h"
#include "test/apiserver/object_store.h"
#include "test/apiserver/status.h"

namespace ksched::testing::apiserver {

struct ResourceInfo;

std::optional<ApiError> AdmitCreate(const ResourceInfo& resource,
                                    JsonDocument& object,
                                    const ObjectStore& store);

}  // namespace ksched::testing::apiserver
