// PLACEHOLDER: the v1.36 cases are being ported into this file.
#include "pkg/dra/allocator_kube_cases.h"

namespace ksched::dra::allocator_testing {

const std::vector<KubeCase>& KubeCasesV136() {
  static const std::vector<KubeCase> cases;
  return cases;
}

}  // namespace ksched::dra::allocator_testing
