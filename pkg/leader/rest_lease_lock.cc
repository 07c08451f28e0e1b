#include "pkg/leader/rest_lease_lock.h"

#include "pkg/api/codec.h"
#include "pkg/client/resources.h"

namespace ksched::leader {

using client::ResourceOf;

client::ApiOr<api::Lease> RestLeaseLock::Decode(
    const client::ApiResult& result) {
  if (!result.ok()) return *result.error;
  auto lease = api::DecodeJson<api::Lease>(result.response.body);
  if (!lease.ok()) {
    return client::ConnectionError("lease: " + lease.error().message());
  }
  return *lease;
}

client::ApiOr<api::Lease> RestLeaseLock::Get() {
  return Decode(
      client_.Do({.method = "GET",
                  .path = client::ObjectPath(ResourceOf<api::Lease>::kResource,
                                             ns_, name_)}));
}

client::ApiOr<api::Lease> RestLeaseLock::Create(const api::Lease& lease) {
  api::Lease body = lease;
  body.metadata.name = name_;
  body.metadata.ns = ns_;
  return Decode(client_.Do(
      {.method = "POST",
       .path = client::CollectionPath(ResourceOf<api::Lease>::kResource, ns_),
       .body = api::EncodeJson(body),
       .content_type = "application/json"}));
}

client::ApiOr<api::Lease> RestLeaseLock::Update(const api::Lease& lease) {
  return Decode(client_.Do({.method = "PUT",
                            .path = client::ObjectPath(
                                ResourceOf<api::Lease>::kResource, ns_, name_),
                            .body = api::EncodeJson(lease),
                            .content_type = "application/json"}));
}

}  // namespace ksched::leader
