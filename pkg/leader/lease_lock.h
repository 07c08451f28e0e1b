// LeaseLock seam: reads and writes the coordination.k8s.io/v1 Lease that
// leader election holds (client-go's resourcelock.LeaseLock). Tests use an
// in-memory one; RestLeaseLock talks to the API server.
#pragma once

#include "pkg/api/objects.h"
#include "pkg/client/api_or.h"

namespace ksched::leader {

class LeaseLock {
 public:
  virtual ~LeaseLock() = default;
  virtual client::ApiOr<api::Lease> Get() = 0;
  virtual client::ApiOr<api::Lease> Create(const api::Lease& lease) = 0;
  // An optimistic update: the lease's metadata.resourceVersion must still
  // be current, or the answer is a Conflict.
  virtual client::ApiOr<api::Lease> Update(const api::Lease& lease) = 0;
};

}  // namespace ksched::leader
