// The admission plugins a default kube-apiserver runs on create that
// change or refuse what the scheduler sees: NamespaceLifecycle (content
// only in existing, live namespaces), Priority (a pod's priority from its
// PriorityClass), DefaultTolerationSeconds and ServiceAccount (the
// account's name and, when on, the token volume every container mounts).
#pragma once

#include <optional>

#include "test/apiserver/ids.h"
#include "test/apiserver/json_util.h"
#include "test/apiserver/object_store.h"
#include "test/apiserver/status.h"

namespace ksched::testing::apiserver {

struct ResourceInfo;

struct AdmissionOptions {
  // ServiceAccount admission's kube-api-access-* projected volume, which
  // every pod of a real cluster carries.
  bool mount_service_account_token = true;
};

std::optional<ApiError> AdmitCreate(const ResourceInfo& resource,
                                    JsonDocument& object,
                                    const ObjectStore& store,
                                    const AdmissionOptions& options,
                                    IdSource& ids);

}  // namespace ksched::testing::apiserver
