// RestLeaseLock: the Lease at /apis/coordination.k8s.io/v1/namespaces/
// {ns}/leases/{name}, read with GET, created with POST, updated with PUT
// (carrying the resourceVersion read, so concurrent writers conflict).
#pragma once

#include <string>

#include "pkg/client/rest_client.h"
#include "pkg/leader/lease_lock.h"

namespace ksched::leader {

class RestLeaseLock final : public LeaseLock {
 public:
  RestLeaseLock(client::RestClient& client, std::string ns, std::string name)
      : client_(client), ns_(std::move(ns)), name_(std::move(name)) {}

  client::ApiOr<api::Lease> Get() override;
  client::ApiOr<api::Lease> Create(const api::Lease& lease) override;
  client::ApiOr<api::Lease> Update(const api::Lease& lease) override;

 private:
  client::ApiOr<api::Lease> Decode(const client::ApiResult& result);

  client::RestClient& client_;
  const std::string ns_;
  const std::string name_;
};

}  // namespace ksched::leader
