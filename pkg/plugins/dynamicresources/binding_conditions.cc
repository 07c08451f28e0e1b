#include "pkg/plugins/dynamicresources/binding_conditions.h"

#include <algorithm>
#include <thread>

#include "pkg/config/field_errors.h"
#include "pkg/framework/cancel_cause.h"
#include "pkg/framework/metrics_recorder.h"
#include "pkg/plugins/dynamicresources/dynamic_resources.h"

namespace ksched::plugins::dynamic_resources {
namespace binding_conditions_detail {
namespace {

const api::AllocatedDeviceStatus* DeviceStatus(
    const api::ResourceClaim& claim,
    const api::DeviceRequestAllocationResult& result) {
  for (const api::AllocatedDeviceStatus& status : claim.status.devices) {
    if (status.device == result.device && status.driver == result.driver &&
        status.pool == result.pool) {
      return &status;
    }
  }
  return nullptr;
}

const api::Condition* FindCondition(const std::vector<api::Condition>& list,
                                    std::string_view type) {
  for (const api::Condition& c : list) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool ConditionTrue(const std::vector<api::Condition>& list,
                   std::string_view type) {
  const api::Condition* c = FindCondition(list, type);
  return c != nullptr && c->status == "True";
}

}  // namespace
}  // namespace binding_conditions_detail
using namespace binding_conditions_detail;

util::Result<bool> ClaimReadyForBinding(const api::ResourceClaim& claim) {
  if (!claim.status.allocation) return false;
  for (const api::DeviceRequestAllocationResult& result :
       claim.status.allocation->devices.results) {
    if (result.binding_conditions.empty()) continue;
    const api::AllocatedDeviceStatus* status = DeviceStatus(claim, result);
    if (status == nullptr) return false;
    for (const std::string& type : result.binding_failure_conditions) {
      const api::Condition* failed = FindCondition(status->conditions, type);
      if (failed != nullptr && failed->status == "True") {
        return util::Error(std::string(kDeviceBindingFailed) + ": claim=" +
                           claim.metadata.name + ", reason=" + failed->reason +
                           ", message=" + config::GoQuote(failed->message));
      }
    }
    for (const std::string& type : result.binding_conditions) {
      if (!ConditionTrue(status->conditions, type)) return false;
    }
  }
  return true;
}

bool ClaimBindingTimedOut(const api::ResourceClaim& claim,
                          std::chrono::nanoseconds timeout,
                          api::Timestamp now) {
  const auto& allocation = claim.status.allocation;
  if (!allocation || !allocation->allocation_timestamp) return false;
  const bool waits = std::any_of(
      allocation->devices.results.begin(), allocation->devices.results.end(),
      [](const auto& r) { return !r.binding_conditions.empty(); });
  return waits && allocation->allocation_timestamp->value +
                          std::chrono::duration_cast<std::chrono::microseconds>(
                              timeout) <
                      now;
}

bool AnyBindingConditions(
    const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims) {
  for (const auto& claim : claims) {
    if (!claim->status.allocation) continue;
    for (const auto& r : claim->status.allocation->devices.results) {
      if (!r.binding_conditions.empty()) return true;
    }
  }
  return false;
}

std::vector<std::string> BindingConditionDrivers(
    const api::ResourceClaim& claim) {
  std::vector<std::string> out;
  if (!claim.status.allocation) return out;
  for (const auto& r : claim.status.allocation->devices.results) {
    if (!r.binding_conditions.empty()) out.push_back(r.driver);
  }
  return out;
}

}  // namespace ksched::plugins::dynamic_resources

// ------------------------------------------- DynamicResources' PreBind wait

namespace ksched::plugins {

api::Timestamp DynamicResources::WallNow() const {
  return std::chrono::time_point_cast<std::chrono::microseconds>(
      handle_.clock().WallNow());
}

framework::Status DynamicResources::WaitForBindingConditions(
    const framework::CycleState& state,
    std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
    const api::Pod& pod, const std::string& node) {
  if (framework::ClusterWriter* writer = handle_.writer()) {
    writer->RecordEvent(
        pod, "Normal", "BindingConditionsPending", "Scheduling",
        "waiting for binding conditions for device on node " + node);
  }
  const util::Clock& clock = handle_.clock();
  const util::Clock::TimePoint start = clock.Now();
  // The claims as the cache has them now: a driver reports through
  // status.devices, which the informer delivers.
  auto ready = [&]() -> util::Result<bool> {
    for (auto& claim : claims) {
      auto latest =
          manager_->GetResourceClaim(claim->metadata.ns, claim->metadata.name);
      if (latest == nullptr) {
        return util::Error("resourceclaim.resource.k8s.io \"" +
                           claim->metadata.name + "\" not found");
      }
      claim = std::move(latest);
      util::Result<bool> claim_ready =
          dynamic_resources::ClaimReadyForBinding(*claim);
      if (!claim_ready.ok()) return claim_ready;
      if (!*claim_ready) {
        if (dynamic_resources::ClaimBindingTimedOut(
                *claim, options_.binding_timeout, WallNow())) {
          return util::Error(
              std::string(dynamic_resources::kDeviceBindingTimeout) +
              ": claim=" + claim->metadata.name);
        }
        return false;
      }
    }
    return true;
  };
  std::string failure;
  std::string status = "success";
  for (;;) {
    util::Result<bool> now = ready();
    if (!now.ok()) {
      failure = now.error().message();
      status = failure.starts_with(dynamic_resources::kDeviceBindingFailed)
                   ? "failure"
               : failure.starts_with(dynamic_resources::kDeviceBindingTimeout)
                   ? "timeout"
                   : "error";
      break;
    }
    if (*now) break;
    if (const framework::CancelCause* cancel = state.binding_cancellation();
        cancel != nullptr && cancel->cancelled()) {
      failure = cancel->cause();
      status = "error";
      break;
    }
    const auto waited = clock.Now() - start;
    if (waited >= options_.binding_timeout) {
      failure = std::string(dynamic_resources::kDeviceBindingTimeout) +
                ": context deadline exceeded";
      status = "timeout";
      break;
    }
    const auto step = std::min<std::chrono::nanoseconds>(
        options_.binding_poll_interval, options_.binding_timeout - waited);
    if (options_.sleep) {
      options_.sleep(step);
    } else {
      std::this_thread::sleep_for(step);
    }
  }
  if (framework::MetricsRecorder* metrics = handle_.metrics()) {
    const auto waited = clock.Now() - start;
    for (const auto& claim : claims) {
      if (!claim->status.allocation) continue;
      for (const auto& r : claim->status.allocation->devices.results) {
        metrics->ObserveBindingConditionsWait(handle_.profile_name(), r.driver,
                                              status, waited);
      }
      for (const std::string& driver :
           dynamic_resources::BindingConditionDrivers(*claim)) {
        metrics->CountBindingConditionsAllocation(handle_.profile_name(),
                                                  driver, status);
      }
    }
  }
  if (!failure.empty()) return framework::Status::Error(failure);
  return {};
}

}  // namespace ksched::plugins
