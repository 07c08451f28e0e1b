// Image states: for every image name a node reports, its size and how many
// nodes of the cluster report that name (the scheduler cache's
// imageStates), which ImageLocality scales its score by.
#pragma once

#include <vector>

#include "pkg/framework/node_info.h"

namespace ksched::framework {

// Recomputes the image states of every node in `nodes` from their
// status.images.
void SetImageStates(const std::vector<NodeInfoPtr>& nodes);

}  // namespace ksched::framework
