// PrioritySort: orders the active queue by pod priority, then by the time
// the pod entered the queue (kube-scheduler's queuesort plugin).
#pragma once

#include <memory>

#include "pkg/config/types.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"
#include "pkg/plugins/names.h"
#include "pkg/util/result.h"

namespace ksched::plugins {

class PrioritySort final : public framework::QueueSortPlugin {
 public:
  std::string_view Name() const override { return names::kPrioritySort; }
  // Whether `a` goes before `b`: a higher priority first; on equal priority
  // the pod queued earlier first.
  bool Less(const framework::QueuedPodInfo& a,
            const framework::QueuedPodInfo& b) const override;
};

util::Result<std::unique_ptr<framework::Plugin>> NewPrioritySort(
    const config::PluginArgs* args, framework::Handle& handle);

}  // namespace ksched::plugins
