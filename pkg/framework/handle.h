// Handle: what the framework offers its plugins beyond the pod and node at
// hand (framework.Handle): the cycle's snapshot, the worker pool, time.
#pragma once

#include <string_view>

#include "pkg/api/string_map.h"
#include "pkg/framework/binder.h"
#include "pkg/framework/parallelizer.h"
#include "pkg/framework/snapshot.h"
#include "pkg/util/clock.h"

namespace ksched::framework {

class Handle {
 public:
  virtual ~Handle() = default;

  // The snapshot of the cycle in progress.
  virtual const Snapshot& snapshot() const = 0;
  virtual Parallelizer& parallelizer() = 0;
  virtual const util::Clock& clock() const = 0;
  // The labels of a namespace, for namespaceSelector; nullptr if unknown.
  virtual const api::StringMap* NamespaceLabels(std::string_view ns) const = 0;
  // Makes a placement real (DefaultBinder); nullptr when binding is not
  // possible in this process.
  virtual Binder* binder() = 0;
};

}  // namespace ksched::framework
