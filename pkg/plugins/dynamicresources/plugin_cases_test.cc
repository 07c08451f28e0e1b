// Kubernetes v1.36's TestPlugin (dynamicresources_test.go), case by case:
// the same pod, claims, classes and slices run through PreEnqueue,
// PreFilter, Filter on every node, Score, Reserve, PreBind (or PostFilter
// when no node fits) as kube's table runner drives them, and each case
// checks what kube's checks: the statuses, the claims as the API server
// then holds them and as the scheduler assumes them, what is in flight,
// and the metrics kube's cases look at. The extended-resource
// (DRAExtendedResource) and binding-conditions (DRADeviceBindingConditions
// with DRAResourceClaimDeviceStatus) cases are here too; PreBind's waits
// move the case's clock instead of sleeping.
//
// Not ported:
//  - the cases of DRAWorkloadResourceClaims (alpha in v1.36, not built in
//    ksched): podgroup-claim-reference(-feature-disabled-reserves-for-pod),
//    podgroup-claim-template, podgroup-with-resources(-feature-disabled-
//    reserves-for-pod), bind-podgroup-failure, postfilter-unreserve-
//    podgroup, postfilter-skip-unreserve-podgroup-feature-disabled,
//    postfilter-deallocate-podgroup, postfilter-skip-unreserve-podgroup-
//    when-pods-active, postfilter-skip-unreserve-podgroup-other-claim-
//    deallocated, reserved-okay-podgroup;
//  - the cases of DRANodeAllocatableResources (alpha in v1.36, not built):
//    node-allocatable-resource-multiplier, -capacitykey,
//    -capacitykey-and-multiplier, -insufficient-resources-with-multiplier,
//    -insufficient-with-capacityKey;
//  - canceled: ksched's Filter is never cancelled from outside (it takes
//    no context), so there is no cancelled Filter to drive;
//  - timeout_disabled and timeout_zero, which check how New() reads the
//    DRASchedulerFilterTimeout gate and filterTimeout from the arguments
//    (this fixture builds the plugin from the case's options);
//  - kube's "prescore" expectation of CEL-runtime-error-for-one-of-three-
//    nodes (the plugin has no PreScore).
// exhausted-resources-in-informer-cache was ported as exhausted-resources
// (v1.35's name) and is named as in v1.36 now.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/node_selector.h"
#include "pkg/dra/dra_manager.h"
#include "pkg/framework/cancel_cause.h"
#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/dynamicresources/dynamic_resources.h"
#include "pkg/plugins/dynamicresources/fake_claim_api.h"
#include "pkg/util/clock.h"

namespace ksched::plugins {
namespace {

using framework::Code;
using framework::Status;
using namespace std::chrono_literals;

constexpr char kNode[] = "worker";
constexpr char kNode2[] = "worker-2";
constexpr char kNode3[] = "worker-3";
constexpr char kDriver[] = "some-driver";
constexpr char kPodName[] = "my-pod";
constexpr char kPodUid[] = "1234";
constexpr char kResource[] = "my-resource";
constexpr char kClaimName[] = "my-pod-my-resource";
constexpr char kClaimName2[] = "my-pod-my-resource-2";
constexpr char kClassName[] = "my-resource-class";
constexpr char kNs[] = "default";
constexpr char kAttr[] = "healthy";  // only on worker-2 and worker-3

// ---- objects, as kube's test builds them ----

api::Node Node(const std::string& name) {
  return testing::NodeBuilder(name).Label("kubernetes.io/hostname", name).Obj();
}

api::Pod PodWithClaimName(int claims = 1) {
  api::Pod pod =
      testing::PodBuilder(kPodName).Namespace(kNs).Uid(kPodUid).Obj();
  pod.spec.resource_claims.push_back(
      {.name = kResource, .resource_claim_name = std::string(kClaimName)});
  if (claims > 1) {
    pod.spec.resource_claims.push_back(
        {.name = std::string(kResource) + "-2",
         .resource_claim_name = std::string(kClaimName2)});
  }
  return pod;
}

api::Pod PodWithClaimTemplate(bool in_status) {
  api::Pod pod =
      testing::PodBuilder(kPodName).Namespace(kNs).Uid(kPodUid).Obj();
  pod.spec.resource_claims.push_back(
      {.name = kResource,
       .resource_claim_template_name = std::string(kClaimName)});
  if (in_status) {
    pod.status.resource_claim_statuses.push_back(
        {.name = kResource, .resource_claim_name = std::string(kClaimName)});
  }
  return pod;
}

api::DeviceClass Class(std::optional<std::string> selector = std::nullopt) {
  api::DeviceClass c;
  c.metadata.name = kClassName;
  if (selector) {
    c.spec.selectors.push_back({.cel = api::CelDeviceSelector{*selector}});
  }
  return c;
}

api::ResourceSlice Slice(const std::string& node, int devices = 1,
                         std::optional<bool> healthy = std::nullopt) {
  api::ResourceSlice s;
  s.metadata.name = node + "-" + kDriver;
  s.spec.driver = kDriver;
  s.spec.node_name = node;
  s.spec.pool = {.name = node, .generation = 0, .resource_slice_count = 1};
  for (int i = 1; i <= devices; ++i) {
    api::Device d;
    d.name = "instance-" + std::to_string(i);
    if (healthy) {
      d.attributes.Set(kAttr, api::DeviceAttribute{.bool_value = *healthy});
    }
    s.spec.devices.push_back(std::move(d));
  }
  return s;
}

api::ExactDeviceRequest Exactly(const std::string& cls, int64_t count = 1) {
  return {.device_class_name = cls,
          .allocation_mode = api::DeviceAllocationMode::kExactCount,
          .count = count};
}

// A claim of the pod (its controller), one request per class given.
api::ResourceClaim PendingClaim(const std::string& name = kClaimName,
                                int requests = 1, bool owned = true) {
  api::ResourceClaim c;
  c.metadata.name = name;
  c.metadata.ns = kNs;
  if (owned) {
    c.metadata.owner_references.push_back({.api_version = "v1",
                                           .kind = "Pod",
                                           .name = kPodName,
                                           .uid = kPodUid,
                                           .controller = true});
  }
  for (int i = 1; i <= requests; ++i) {
    c.spec.devices.requests.push_back(
        {.name = "req-" + std::to_string(i), .exactly = Exactly(kClassName)});
  }
  return c;
}

api::DeviceSubRequest Sub(const std::string& name, int64_t count,
                          std::optional<std::string> selector = std::nullopt) {
  api::DeviceSubRequest s{
      .name = name,
      .device_class_name = kClassName,
      .allocation_mode = api::DeviceAllocationMode::kExactCount,
      .count = count};
  if (selector)
    s.selectors.push_back({.cel = api::CelDeviceSelector{*selector}});
  return s;
}

api::ResourceClaim PrioritizedClaim(
    const std::string& name,
    std::vector<std::vector<api::DeviceSubRequest>> requests) {
  api::ResourceClaim c = PendingClaim(name, 0);
  for (size_t i = 0; i < requests.size(); ++i) {
    c.spec.devices.requests.push_back(
        {.name = "req-" + std::to_string(i + 1),
         .first_available = std::move(requests[i])});
  }
  return c;
}

api::NodeSelector NameSelector(const std::string& node) {
  api::NodeSelectorTerm term;
  term.match_fields.push_back({.key = "metadata.name",
                               .op = api::NodeSelectorOperator::kIn,
                               .values = {node}});
  return api::NodeSelector{.node_selector_terms = {term}};
}

api::NodeSelector LabelSelector(const std::string& key,
                                const std::string& value) {
  api::NodeSelectorTerm term;
  term.match_expressions.push_back(
      {.key = key, .op = api::NodeSelectorOperator::kIn, .values = {value}});
  return api::NodeSelector{.node_selector_terms = {term}};
}

api::AllocationResult Allocation(
    std::vector<std::pair<std::string, std::string>> request_device,
    const std::string& node = kNode) {
  api::AllocationResult a;
  for (auto& [request, device] : request_device) {
    a.devices.results.push_back({.request = request,
                                 .driver = kDriver,
                                 .pool = node,
                                 .device = device});
  }
  a.node_selector = NameSelector(node);
  return a;
}

api::ResourceClaim Allocated(api::ResourceClaim c, api::AllocationResult a) {
  c.metadata.finalizers = {std::string(api::kResourceClaimFinalizer)};
  c.status.allocation = std::move(a);
  return c;
}

// An allocation timestamp whose value is not checked (kube's
// addAllocationTimestamp: v1.36's PreBind stamps every allocation it
// writes when binding conditions are on).
const api::Time kAnyTimestamp{api::Timestamp::max()};

// The claim as PreBind writes it: reserved for the pod, and an allocated
// claim stamped (unless binding conditions are off: `stamp` false).
api::ResourceClaim Reserved(api::ResourceClaim c, bool stamp = true) {
  c.status.reserved_for.push_back(
      {.resource = "pods", .name = kPodName, .uid = kPodUid});
  if (stamp && c.status.allocation &&
      !c.status.allocation->allocation_timestamp) {
    c.status.allocation->allocation_timestamp = kAnyTimestamp;
  }
  return c;
}

api::ResourceClaim AdminAccess(api::ResourceClaim c) {
  for (auto& r : c.spec.devices.requests) {
    if (r.exactly) r.exactly->admin_access = true;
  }
  if (c.status.allocation) {
    for (auto& r : c.status.allocation->devices.results) r.admin_access = true;
  }
  return c;
}

api::ResourceClaim BreakCel(api::ResourceClaim c) {
  c.spec.devices.requests[0].exactly->selectors.push_back(
      {.cel = api::CelDeviceSelector{std::string("device.attributes[\"") +
                                     kDriver + "\"]." + kAttr}});
  return c;
}

// ---- extended resources backed by DRA ----

constexpr char kExtendedResource[] = "example.com/gpu";
constexpr char kExtendedResource2[] = "example.com/gpu2";
constexpr char kImplicitExtendedResource[] =
    "deviceclass.resource.kubernetes.io/my-resource-class";
// kube's test API server names created claims generateName + a counter
// from 0.
constexpr char kExtendedClaimName[] = "my-pod-extended-resources-0";
// The UID ksched keeps the in-memory extended resource claim's in-flight
// allocation under: the first one a new plugin makes up.
constexpr char kExtendedClaimStandInUid[] = "ksched-extended-resources-1";

// A class serving an extended resource by its spec.extendedResourceName.
api::DeviceClass ExtendedClass(const std::string& name,
                               const std::string& resource) {
  api::DeviceClass c;
  c.metadata.name = name;
  c.spec.extended_resource_name = resource;
  return c;
}

// The pod with one container per entry, named as kube's st.MakePod().Req
// names them ("con0", "con1", ...).
api::Pod PodWithRequests(
    const std::vector<testing::ResourcePairs>& containers) {
  testing::PodBuilder b(kPodName);
  b.Namespace(kNs).Uid(kPodUid);
  for (const auto& c : containers) b.Req(c);
  api::Pod pod = b.Obj();
  for (size_t i = 0; i < pod.spec.containers.size(); ++i) {
    pod.spec.containers[i].name = "con" + std::to_string(i);
  }
  return pod;
}

api::Node NodeWithCapacity(const testing::ResourcePairs& capacity) {
  return testing::NodeBuilder(kNode)
      .Label("kubernetes.io/hostname", kNode)
      .Capacity(capacity)
      .Obj();
}

api::DeviceRequest NamedRequest(const std::string& name, const std::string& cls,
                                int64_t count = 1) {
  return {.name = name, .exactly = Exactly(cls, count)};
}

// The claim the scheduler makes for the pod's extended resources, as the
// API server holds it once created (`name` given) or as it is in memory.
api::ResourceClaim ExtendedClaim(
    const std::string& name, std::vector<api::DeviceRequest> requests,
    std::optional<api::AllocationResult> allocation = std::nullopt) {
  api::ResourceClaim c;
  c.metadata.name = name;
  c.metadata.generate_name = std::string(kPodName) + "-extended-resources-";
  c.metadata.ns = kNs;
  c.metadata.annotations.Set(api::kExtendedResourceClaimAnnotation, "true");
  c.metadata.owner_references.push_back({.api_version = "v1",
                                         .kind = "Pod",
                                         .name = kPodName,
                                         .uid = kPodUid,
                                         .controller = true});
  c.spec.devices.requests = std::move(requests);
  if (allocation) return Allocated(std::move(c), std::move(*allocation));
  return c;
}

// ---- binding conditions ----

constexpr char kDriver2[] = "some-driver-2";
const std::vector<std::string> kBindingConditions = {"condition"};
const std::vector<std::string> kBindingFailureConditions = {"failed"};

// A slice whose device must be attached before binding (kube's
// fabricSlice): bound to the node, with binding conditions.
api::ResourceSlice FabricSlice(const std::string& driver,
                               const std::string& device) {
  api::ResourceSlice s;
  s.metadata.name = std::string(kNode) + "-" + driver;
  s.spec.driver = driver;
  s.spec.node_name = kNode;
  s.spec.pool = {.name = kNode, .generation = 0, .resource_slice_count = 1};
  api::Device d;
  d.name = device;
  d.binds_to_node = true;
  d.binding_conditions = kBindingConditions;
  d.binding_failure_conditions = kBindingFailureConditions;
  s.spec.devices.push_back(std::move(d));
  s.spec.node_selector = NameSelector(kNode);
  return s;
}

// kube's allocationResultWithBindingConditions (driver, instance-1, req-1)
// and ...2 (driver 2, instance-2, req-2), stamped with `timestamp`.
api::AllocationResult BindingAllocation(int which,
                                        std::optional<api::Time> timestamp) {
  api::AllocationResult a;
  a.devices.results.push_back(
      {.request = which == 1 ? "req-1" : "req-2",
       .driver = which == 1 ? kDriver : kDriver2,
       .pool = kNode,
       .device = which == 1 ? "instance-1" : "instance-2",
       .binding_conditions = kBindingConditions,
       .binding_failure_conditions = kBindingFailureConditions});
  a.node_selector = NameSelector(kNode);
  a.allocation_timestamp = timestamp;
  return a;
}

// A device status with conditions (type, status).
api::AllocatedDeviceStatus DeviceStatus(
    int which,
    const std::vector<std::pair<std::string, std::string>>& conditions = {}) {
  api::AllocatedDeviceStatus s{
      .driver = which == 1 ? kDriver : kDriver2,
      .pool = kNode,
      .device = which == 1 ? "instance-1" : "instance-2"};
  for (const auto& [type, status] : conditions) {
    s.conditions.push_back({.type = type, .status = status});
  }
  return s;
}

// kube's new(metav1.Time): a timestamp that is set, the zero time.
const api::Time kZeroTime{};

// kube's boundClaim/boundClaim2 (binding conditions met) and
// failedBindingClaim/failedBindingClaim2 (the failure condition true).
api::ResourceClaim BoundClaim(int which, bool failed = false) {
  api::ResourceClaim c =
      Allocated(PendingClaim(which == 1 ? kClaimName : kClaimName2),
                BindingAllocation(which, kZeroTime));
  c.status.devices.push_back(
      DeviceStatus(which, {{"condition", failed ? "False" : "True"},
                           {"failed", failed ? "True" : "False"}}));
  return c;
}

// ---- the runner ----

// kube's tests run on the wall clock; this one starts at a whole second
// and moves only when PreBind waits (or, with `tick`, a little on every
// reading, as real time passes while Filter searches).
class CaseClock final : public util::Clock {
 public:
  static constexpr WallTime kWallStart{std::chrono::sys_days{
      std::chrono::year{2026} / std::chrono::January / 1}};

  TimePoint Now() const override {
    return TimePoint(Duration(offset_.fetch_add(tick_.load())));
  }
  WallTime WallNow() const override {
    return kWallStart + Duration(offset_.load());
  }
  void Advance(Duration d) { offset_ += d.count(); }
  void set_tick(Duration d) { tick_ = d.count(); }

 private:
  mutable std::atomic<Duration::rep> offset_{0};
  std::atomic<Duration::rep> tick_{0};
};

// The wall clock at the start of a case, as claims' timestamps count.
api::Time WallStartPlus(std::chrono::seconds offset) {
  return api::Time{std::chrono::time_point_cast<std::chrono::microseconds>(
      CaseClock::kWallStart + offset)};
}

// What kube's metrics checks look at.
class RecordingMetrics final : public framework::MetricsRecorder {
 public:
  void ObserveExtensionPoint(std::string_view, framework::Code,
                             std::string_view,
                             std::chrono::nanoseconds) override {}
  void ObservePlugin(std::string_view, std::string_view, framework::Code,
                     std::chrono::nanoseconds) override {}
  void ObserveBindingConditionsWait(std::string_view, std::string_view,
                                    std::string_view status,
                                    std::chrono::nanoseconds) override {
    ++binding_waits[std::string(status)];
  }
  void CountBindingConditionsAllocation(std::string_view, std::string_view,
                                        std::string_view status) override {
    ++binding_allocations[std::string(status)];
  }
  void CountResourceClaimCreate(std::string_view status) override {
    ++claim_creates[std::string(status)];
  }

  // By status: scheduler_dra_bindingconditions_wait_duration_seconds'
  // samples, scheduler_dra_bindingconditions_allocations_total and
  // scheduler_resourceclaim_creates_total.
  std::map<std::string, int> binding_waits;
  std::map<std::string, int> binding_allocations;
  std::map<std::string, int> claim_creates;
};

// The FakeHandle with the case's clock and metrics.
class CaseHandle final : public framework::Handle {
 public:
  CaseHandle(testing::FakeHandle& base, const CaseClock& clock,
             RecordingMetrics& metrics)
      : base_(base), clock_(clock), metrics_(metrics) {}

  const framework::Snapshot& snapshot() const override {
    return base_.snapshot();
  }
  framework::Parallelizer& parallelizer() override {
    return base_.parallelizer();
  }
  const util::Clock& clock() const override { return clock_; }
  const api::StringMap* NamespaceLabels(std::string_view ns) const override {
    return base_.NamespaceLabels(ns);
  }
  const framework::ClusterObjects& objects() const override {
    return base_.objects();
  }
  framework::ClusterWriter* writer() override { return base_.writer(); }
  framework::PodNominator* nominator() override { return base_.nominator(); }
  framework::WaitingPods& waiting_pods() override {
    return base_.waiting_pods();
  }
  framework::PodsInPreBind& pods_in_prebind() override {
    return base_.pods_in_prebind();
  }
  framework::Status RunFilterPluginsWithNominatedPods(
      const framework::CycleState& state, const framework::PodInfo& pod,
      const framework::NodeInfo& node) override {
    return base_.RunFilterPluginsWithNominatedPods(state, pod, node);
  }
  framework::Status RunPreFilterExtensionAddPod(
      framework::CycleState& state, const framework::PodInfo& pod,
      const framework::PodInfoPtr& to_add,
      const framework::NodeInfo& node) const override {
    return base_.RunPreFilterExtensionAddPod(state, pod, to_add, node);
  }
  framework::Status RunPreFilterExtensionRemovePod(
      framework::CycleState& state, const framework::PodInfo& pod,
      const framework::PodInfoPtr& to_remove,
      const framework::NodeInfo& node) const override {
    return base_.RunPreFilterExtensionRemovePod(state, pod, to_remove, node);
  }
  framework::Binder* binder() override { return base_.binder(); }
  framework::MetricsRecorder* metrics() override { return &metrics_; }
  const framework::PodGroupMembers* pod_group_members() const override {
    return base_.pod_group_members();
  }
  const config::FeatureGates& features() const override {
    return base_.features();
  }
  dra::DraManager* dra_manager() override { return base_.dra_manager(); }

 private:
  testing::FakeHandle& base_;
  const CaseClock& clock_;
  RecordingMetrics& metrics_;
};

struct Case {
  api::Pod pod = PodWithClaimName();
  std::vector<api::ResourceClaim> claims;
  std::vector<api::DeviceClass> classes;
  std::vector<api::ResourceSlice> slices;
  std::vector<api::Node> nodes = {Node(kNode)};
  bool dra = true;
  bool admin_access = true;
  bool prioritized_list = true;
  bool device_taints = false;
  // kube's enableDRAExtendedResource (off unless a case turns it on).
  bool extended_resources = false;
  // DRADeviceBindingConditions with DRAResourceClaimDeviceStatus (on, as
  // in kube's v1.36 table unless a case disables them).
  bool binding_conditions = true;
  // DynamicResourcesArgs' filterTimeout (zero: none) and bindingTimeout.
  std::chrono::nanoseconds filter_timeout{0};
  std::chrono::nanoseconds binding_timeout{std::chrono::minutes(10)};
  // The clock moves this much on every reading (real time passing).
  std::chrono::nanoseconds clock_tick{0};
  // Allocations another pod's cycle holds in flight when this one starts,
  // each under the UID of the stored claim of its name.
  std::vector<api::ResourceClaim> in_flight;
  // Changes to the API server's claims before PreBind, not yet seen by the
  // informer (another client raced the scheduler).
  std::function<void(dra_testing::FakeClaimApi&)> before_prebind;
  bool unreserve_before_prebind = false;
  bool unreserve_after_prebind = false;  // as if Bind failed
  // Set on the cycle state for PreBind (preempted, or a parallel PreBind
  // failed).
  const framework::CancelCause* prebind_cancellation = nullptr;
};

struct Outcome {
  Status preenqueue;
  std::optional<Status> prefilter;
  std::map<std::string, Status> filter;
  std::map<std::string, int64_t> scores;
  std::map<std::string, int64_t> normalized;
  std::string selected;
  std::optional<Status> reserve;
  std::optional<Status> prebind_preflight;
  bool prebind_allows_parallel = false;
  std::optional<Status> prebind;
  std::optional<Status> postfilter;
  bool unreserved = false;
  // Claims in flight after Reserve and after PreBind, by name (the
  // in-memory extended resource claim as "<extended-resources>").
  std::vector<std::string> in_flight_after_reserve;
  std::vector<std::string> in_flight_after_prebind;
};

class PluginCasesTest : public ::testing::Test {
 protected:
  Outcome Run(Case c) {
    handle_.features_.Set(config::Feature::kDynamicResourceAllocation, c.dra);
    handle_.features_.Set(config::Feature::kDRAAdminAccess, c.admin_access);
    handle_.features_.Set(config::Feature::kDRAPrioritizedList,
                          c.prioritized_list);
    handle_.features_.Set(config::Feature::kDRADeviceTaints, c.device_taints);
    handle_.features_.Set(config::Feature::kDRAExtendedResource,
                          c.extended_resources);
    handle_.features_.Set(config::Feature::kDRADeviceBindingConditions,
                          c.binding_conditions);
    handle_.dra_manager_ = &manager_;
    handle_.writer_ = &api_;
    clock_.set_tick(c.clock_tick);
    for (auto& cls : c.classes) {
      manager_.UpsertDeviceClass(
          std::make_shared<api::DeviceClass>(std::move(cls)));
    }
    for (auto& s : c.slices) {
      manager_.UpsertResourceSlice(
          std::make_shared<api::ResourceSlice>(std::move(s)));
    }
    for (auto& claim : c.claims) api_.Create(std::move(claim));
    for (auto& claim : c.in_flight) {
      claim.metadata.uid = api_.Stored(claim.metadata.name)->metadata.uid;
      const std::string uid = claim.metadata.uid;
      manager_.SignalClaimPendingAllocation(
          uid, std::make_shared<api::ResourceClaim>(std::move(claim)));
    }
    std::vector<framework::NodeInfoPtr> infos;
    for (const api::Node& node : c.nodes) {
      infos.push_back(testing::MakeNodeInfo(node));
    }
    handle_.SetNodes(infos);
    // The gates the case sets are ones ksched builds the plugin with.
    {
      auto built = NewDynamicResources(nullptr, handle_);
      EXPECT_TRUE(built.ok()) << built.error().message();
    }
    // The plugin as kube's test builds it: its features from the case
    // (kube's feature.Features), PreBind's waits moving the clock.
    DynamicResources::Options options;
    options.enabled = c.dra;
    options.extended_resources = c.extended_resources;
    options.features.admin_access = c.admin_access;
    options.features.prioritized_list = c.prioritized_list;
    options.features.device_taints = c.device_taints;
    options.features.device_binding_and_status = c.binding_conditions;
    options.filter_timeout = c.filter_timeout;
    options.binding_timeout = c.binding_timeout;
    options.sleep = [this](std::chrono::nanoseconds d) { clock_.Advance(d); };
    plugin_ = std::make_unique<DynamicResources>(options, case_handle_);
    auto* p = dynamic_cast<DynamicResources*>(plugin_.get());

    Outcome out;
    auto pod = framework::PodInfo::Create(std::make_shared<api::Pod>(c.pod));
    out.preenqueue = p->PreEnqueue(c.pod);
    if (!out.preenqueue.IsSuccess()) return out;
    framework::CycleState state;
    framework::PreFilterResult pre_result;
    out.prefilter = p->PreFilter(state, *pod, {}, &pre_result);
    bool unschedulable = out.prefilter->IsRejected();
    std::vector<std::string> feasible;
    if (!unschedulable) {
      for (const api::Node& node : c.nodes) {
        auto info = testing::MakeNodeInfo(node);
        Status s = p->Filter(state, *pod, *info);
        out.filter[node.metadata.name] = s;
        if (s.IsSuccess()) feasible.push_back(node.metadata.name);
        // An error aborts the attempt.
        if (s.code() == Code::kError) return out;
      }
      if (feasible.empty()) unschedulable = true;
    }
    if (!unschedulable && feasible.size() > 1) {
      framework::NodeScoreList scores;
      for (const std::string& name : feasible) {
        auto info = testing::MakeNodeInfo(
            *std::find_if(c.nodes.begin(), c.nodes.end(),
                          [&](auto& n) { return n.metadata.name == name; }));
        int64_t score = 0;
        EXPECT_TRUE(p->Score(state, *pod, *info, &score).IsSuccess());
        out.scores[name] = score;
      }
      for (const std::string& name : feasible) {
        scores.push_back({name, out.scores[name]});
      }
      EXPECT_TRUE(p->NormalizeScore(state, *pod, scores).IsSuccess());
      for (const auto& s : scores)
        out.normalized[std::string(s.name)] = s.score;
    }
    if (!unschedulable) {
      out.selected = feasible.front();
      for (const auto& [name, score] : out.normalized) {
        if (score > out.normalized[out.selected]) out.selected = name;
      }
      out.reserve = p->Reserve(state, *pod, out.selected);
      out.in_flight_after_reserve = InFlight();
      if (!out.reserve->IsSuccess()) {
        p->Unreserve(state, *pod, out.selected);
        out.unreserved = true;
        return out;
      }
      if (c.unreserve_before_prebind) {
        p->Unreserve(state, *pod, out.selected);
        out.unreserved = true;
        return out;
      }
      if (c.before_prebind) c.before_prebind(api_);
      framework::PreBindPreFlightResult preflight;
      out.prebind_preflight =
          p->PreBindPreFlight(state, *pod, out.selected, preflight);
      out.prebind_allows_parallel = preflight.allow_parallel;
      state.set_binding_cancellation(c.prebind_cancellation);
      out.prebind = p->PreBind(state, *pod, out.selected);
      state.set_binding_cancellation(nullptr);
      out.in_flight_after_prebind = InFlight();
      if (c.unreserve_after_prebind) {
        p->Unreserve(state, *pod, out.selected);
        out.unreserved = true;
      }
      return out;
    }
    framework::NodeToStatus filtered;
    framework::PostFilterResult post;
    out.postfilter = p->PostFilter(state, *pod, filtered, &post);
    return out;
  }

  // The claims in flight now, by name, sorted.
  std::vector<std::string> InFlight() const {
    std::vector<std::string> names;
    for (const auto& claim : manager_.ListResourceClaims()) {
      if (manager_.ClaimHasPendingAllocation(claim->metadata.uid)) {
        names.push_back(claim->metadata.name);
      }
    }
    if (manager_.ClaimHasPendingAllocation(kExtendedClaimStandInUid)) {
      names.emplace_back(dynamic_resources::kInMemoryClaimName);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  // The claim as the API server holds it, without the fields the fake
  // server sets (resourceVersion, uid), compared with `want`.
  void ExpectStored(const std::string& name, api::ResourceClaim want) {
    ExpectClaim(api_.Stored(name), std::move(want), "stored " + name);
  }
  // The claim the scheduler now works with (kube's assumedClaim).
  void ExpectAssumed(const std::string& name, api::ResourceClaim want) {
    ExpectClaim(manager_.GetResourceClaim(kNs, name), std::move(want),
                "assumed " + name);
  }
  void ExpectClaim(std::shared_ptr<const api::ResourceClaim> stored,
                   api::ResourceClaim want, const std::string& what) {
    ASSERT_NE(stored, nullptr) << what;
    api::ResourceClaim got = *stored;
    got.metadata.resource_version.clear();
    got.metadata.uid.clear();
    want.metadata.resource_version.clear();
    want.metadata.uid.clear();
    if (want.status.allocation &&
        want.status.allocation->allocation_timestamp == kAnyTimestamp &&
        got.status.allocation && got.status.allocation->allocation_timestamp) {
      want.status.allocation->allocation_timestamp =
          got.status.allocation->allocation_timestamp;
    }
    EXPECT_EQ(got, want) << what;
  }
  // The claim the scheduler now works with (the assume cache).
  std::shared_ptr<const api::ResourceClaim> Assumed(const std::string& name) {
    return manager_.GetResourceClaim(kNs, name);
  }

  dra::DraManager manager_;
  dra_testing::FakeClaimApi api_{manager_};
  testing::FakeHandle handle_;
  CaseClock clock_;
  RecordingMetrics metrics_;
  CaseHandle case_handle_{handle_, clock_, metrics_};
  std::unique_ptr<framework::Plugin> plugin_;
};

void ExpectStatus(const std::optional<Status>& got, Code code,
                  const std::string& message) {
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(framework::CodeName(got->code()), framework::CodeName(code))
      << got->Message();
  EXPECT_EQ(got->Message(), message);
}

TEST_F(PluginCasesTest, Empty) {
  Outcome o = Run({.pod = testing::PodBuilder("foo").Namespace(kNs).Obj()});
  EXPECT_TRUE(o.preenqueue.IsSuccess());
  EXPECT_EQ(o.prefilter->code(), Code::kSkip);
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  EXPECT_EQ(o.prebind_preflight->code(), Code::kSkip);
  // v1.36 allows parallel PreBind whatever the answer.
  EXPECT_TRUE(o.prebind_allows_parallel);
  EXPECT_TRUE(o.prebind->IsSuccess());
  EXPECT_TRUE(api_.calls.empty());
}

TEST_F(PluginCasesTest, ClaimReference) {
  api::ResourceClaim allocated =
      Allocated(PendingClaim(), Allocation({{"req-1", "instance-1"}}));
  Outcome o =
      Run({.claims = {allocated, PendingClaim("not-my-claim", 1, false)}});
  EXPECT_TRUE(o.prefilter->IsSuccess());
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  EXPECT_TRUE(o.reserve->IsSuccess());
  EXPECT_TRUE(o.in_flight_after_reserve.empty());
  EXPECT_TRUE(o.prebind_preflight->IsSuccess());
  EXPECT_TRUE(o.prebind->IsSuccess());
  ExpectStored(kClaimName, Reserved(allocated));
  EXPECT_EQ(*Assumed(kClaimName)->status.reserved_for.data(),
            Reserved(allocated).status.reserved_for[0]);
}

TEST_F(PluginCasesTest, ClaimTemplate) {
  api::ResourceClaim allocated =
      Allocated(PendingClaim(), Allocation({{"req-1", "instance-1"}}));
  Outcome o =
      Run({.pod = PodWithClaimTemplate(true),
           .claims = {allocated, PendingClaim("not-my-claim", 1, false)}});
  EXPECT_TRUE(o.prebind->IsSuccess());
  ExpectStored(kClaimName, Reserved(allocated));
}

TEST_F(PluginCasesTest, MissingClaim) {
  Outcome o =
      Run({.pod = PodWithClaimTemplate(false),
           .claims = {Allocated(PendingClaim(),
                                Allocation({{"req-1", "instance-1"}}))}});
  EXPECT_EQ(o.preenqueue.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(o.preenqueue.Message(),
            "pod \"default/my-pod\": ResourceClaim not created yet");
}

TEST_F(PluginCasesTest, DeletedClaim) {
  api::ResourceClaim claim =
      Allocated(PendingClaim(), Allocation({{"req-1", "instance-1"}}));
  claim.metadata.deletion_timestamp = api::Time{};
  Outcome o = Run({.pod = PodWithClaimTemplate(true), .claims = {claim}});
  EXPECT_EQ(o.preenqueue.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(o.preenqueue.Message(),
            "resourceclaim \"my-pod-my-resource\" is being deleted");
}

TEST_F(PluginCasesTest, WrongClaim) {
  api::ResourceClaim claim =
      Allocated(PendingClaim(), Allocation({{"req-1", "instance-1"}}));
  claim.metadata.owner_references[0].uid += "123";
  Outcome o = Run({.pod = PodWithClaimTemplate(true), .claims = {claim}});
  EXPECT_EQ(o.preenqueue.Message(),
            "ResourceClaim default/my-pod-my-resource was not created for Pod "
            "default/my-pod (Pod is not owner)");
}

TEST_F(PluginCasesTest, CouldNotFindClaim) {
  Outcome o = Run({});
  EXPECT_EQ(o.preenqueue.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(o.preenqueue.Message(),
            "could not find ResourceClaim \"default/my-pod-my-resource\"");
}

// A cancelled binding cycle (the pod preempted in PreBind, or
// VolumeBinding's PreBind beside this one failed) writes no claim and fails
// with the cancellation's cause, as kube's API calls do on a cancelled
// context.
TEST_F(PluginCasesTest, CancelledPreBindWritesNothing) {
  framework::CancelCause cancel;
  cancel.Cancel("preempted by DefaultPreemption");
  Outcome o = Run({.claims = {PendingClaim()},
                   .classes = {Class()},
                   .slices = {Slice(kNode)},
                   .prebind_cancellation = &cancel});
  EXPECT_TRUE(o.prebind_preflight->IsSuccess());
  EXPECT_TRUE(o.prebind_allows_parallel);
  ExpectStatus(o.prebind, Code::kError, "preempted by DefaultPreemption");
  EXPECT_TRUE(api_.calls.empty());
}

TEST_F(PluginCasesTest, NoResources) {
  Outcome o = Run({.claims = {PendingClaim()}, .classes = {Class()}});
  ExpectStatus(o.filter.at(kNode), Code::kUnschedulableAndUnresolvable,
               "cannot allocate all claims");
  ExpectStatus(o.postfilter, Code::kUnschedulable, "still not schedulable");
}

TEST_F(PluginCasesTest, WithResources) {
  Outcome o = Run({.claims = {PendingClaim()},
                   .classes = {Class()},
                   .slices = {Slice(kNode)}});
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  EXPECT_TRUE(o.reserve->IsSuccess());
  EXPECT_EQ(o.in_flight_after_reserve, std::vector<std::string>{kClaimName});
  EXPECT_TRUE(o.prebind_preflight->IsSuccess());
  EXPECT_TRUE(o.prebind->IsSuccess());
  api::ResourceClaim want = Reserved(
      Allocated(PendingClaim(), Allocation({{"req-1", "instance-1"}})));
  ExpectStored(kClaimName, want);
  EXPECT_EQ(api_.calls, (std::vector<std::string>{
                            "update default/my-pod-my-resource",
                            "update-status default/my-pod-my-resource"}));
  // Out of flight, into the claim's allocation.
  EXPECT_FALSE(manager_.ClaimHasPendingAllocation("uid-my-pod-my-resource"));
  EXPECT_EQ(manager_.ListAllAllocatedDevices().size(), 1u);
}

TEST_F(PluginCasesTest, WithResourcesHasFinalizer) {
  api::ResourceClaim claim = PendingClaim();
  claim.metadata.finalizers = {std::string(api::kResourceClaimFinalizer)};
  Outcome o =
      Run({.claims = {claim}, .classes = {Class()}, .slices = {Slice(kNode)}});
  EXPECT_TRUE(o.prebind->IsSuccess());
  ExpectStored(kClaimName,
               Reserved(Allocated(PendingClaim(),
                                  Allocation({{"req-1", "instance-1"}}))));
  EXPECT_EQ(
      api_.calls,
      (std::vector<std::string>{"update-status default/my-pod-my-resource"}));
}

TEST_F(PluginCasesTest, WithResourcesFinalizerGetsRemoved) {
  api::ResourceClaim claim = PendingClaim();
  claim.metadata.finalizers = {std::string(api::kResourceClaimFinalizer)};
  Outcome o = Run({.claims = {claim},
                   .classes = {Class()},
                   .slices = {Slice(kNode)},
                   .before_prebind = [](dra_testing::FakeClaimApi& api) {
                     api.Modify(kClaimName, [](api::ResourceClaim& c) {
                       c.metadata.finalizers.clear();
                     });
                   }});
  EXPECT_TRUE(o.prebind->IsSuccess()) << o.prebind->Message();
  ExpectStored(kClaimName,
               Reserved(Allocated(PendingClaim(),
                                  Allocation({{"req-1", "instance-1"}}))));
  // The stale status update conflicts; the fresh read lacks the finalizer.
  EXPECT_EQ(api_.calls, (std::vector<std::string>{
                            "update-status default/my-pod-my-resource",
                            "get default/my-pod-my-resource",
                            "update default/my-pod-my-resource",
                            "update-status default/my-pod-my-resource"}));
}

TEST_F(PluginCasesTest, WithResourcesFinalizerGetsAdded) {
  Outcome o = Run({.claims = {PendingClaim()},
                   .classes = {Class()},
                   .slices = {Slice(kNode)},
                   .before_prebind = [](dra_testing::FakeClaimApi& api) {
                     api.Modify(kClaimName, [](api::ResourceClaim& c) {
                       c.metadata.finalizers = {
                           std::string(api::kResourceClaimFinalizer)};
                     });
                   }});
  EXPECT_TRUE(o.prebind->IsSuccess()) << o.prebind->Message();
  ExpectStored(kClaimName,
               Reserved(Allocated(PendingClaim(),
                                  Allocation({{"req-1", "instance-1"}}))));
}

TEST_F(PluginCasesTest, SkipBind) {
  Outcome o = Run({.claims = {PendingClaim()},
                   .classes = {Class()},
                   .slices = {Slice(kNode)},
                   .unreserve_before_prebind = true});
  EXPECT_EQ(o.in_flight_after_reserve, std::vector<std::string>{kClaimName});
  EXPECT_TRUE(o.unreserved);
  EXPECT_FALSE(manager_.ClaimHasPendingAllocation("uid-my-pod-my-resource"));
  EXPECT_TRUE(manager_.ListAllAllocatedDevices().empty());
  ExpectStored(kClaimName, PendingClaim());
  EXPECT_TRUE(api_.calls.empty());
}

TEST_F(PluginCasesTest, ExhaustedResourcesInInformerCache) {
  api::ResourceClaim other = Allocated(PendingClaim("not-my-claim", 1, false),
                                       Allocation({{"req-1", "instance-1"}}));
  Outcome o = Run({.claims = {PendingClaim(), other},
                   .classes = {Class()},
                   .slices = {Slice(kNode)}});
  ExpectStatus(o.filter.at(kNode), Code::kUnschedulableAndUnresolvable,
               "cannot allocate all claims");
  ExpectStatus(o.postfilter, Code::kUnschedulable, "still not schedulable");
}

TEST_F(PluginCasesTest, RequestAdminAccessWithDRAAdminAccessFeaturegate) {
  api::ResourceClaim other = Allocated(PendingClaim("not-my-claim", 1, false),
                                       Allocation({{"req-1", "instance-1"}}));
  Outcome o = Run({.claims = {AdminAccess(PendingClaim()), other},
                   .classes = {Class()},
                   .slices = {Slice(kNode)}});
  EXPECT_TRUE(o.prebind->IsSuccess());
  ExpectStored(
      kClaimName,
      Reserved(AdminAccess(Allocated(AdminAccess(PendingClaim()),
                                     Allocation({{"req-1", "instance-1"}})))));
}

// kube's table compares only the text; the status is an Error (the attempt
// fails), as the allocator's fatal errors are.
TEST_F(PluginCasesTest, RequestAdminAccessWithoutDRAAdminAccessFeaturegate) {
  api::ResourceClaim other = Allocated(PendingClaim("not-my-claim", 1, false),
                                       Allocation({{"req-1", "instance-1"}}));
  Outcome o = Run({.claims = {AdminAccess(PendingClaim()), other},
                   .classes = {Class()},
                   .slices = {Slice(kNode)},
                   .admin_access = false});
  ExpectStatus(o.filter.at(kNode), Code::kError,
               "claim default/my-pod-my-resource, request req-1: admin "
               "access is requested, but the feature is disabled");
}

TEST_F(PluginCasesTest, StructuredIgnoreAllocatedAdminAccess) {
  api::ResourceClaim other =
      AdminAccess(Allocated(PendingClaim("not-my-claim", 1, false),
                            Allocation({{"req-1", "instance-1"}})));
  Outcome o = Run({.claims = {PendingClaim(), other},
                   .classes = {Class()},
                   .slices = {Slice(kNode)}});
  EXPECT_TRUE(o.prebind->IsSuccess());
  ExpectStored(kClaimName,
               Reserved(Allocated(PendingClaim(),
                                  Allocation({{"req-1", "instance-1"}}))));
}

TEST_F(PluginCasesTest, ClaimParametersCELRuntimeError) {
  Outcome o = Run({.claims = {BreakCel(PendingClaim())},
                   .classes = {Class()},
                   .slices = {Slice(kNode)}});
  ExpectStatus(o.filter.at(kNode), Code::kError,
               "claim default/my-pod-my-resource: selector #0: CEL runtime "
               "error: no such key: healthy");
  EXPECT_FALSE(o.postfilter.has_value());
}

TEST_F(PluginCasesTest, ClassParametersCELRuntimeError) {
  Outcome o = Run({.claims = {PendingClaim()},
                   .classes = {Class(std::string("device.attributes[\"") +
                                     kDriver + "\"]." + kAttr)},
                   .slices = {Slice(kNode)}});
  ExpectStatus(o.filter.at(kNode), Code::kError,
               "class my-resource-class: selector #0: CEL runtime error: no "
               "such key: healthy");
}

// One node's CEL error fails the whole attempt, though another would fit:
// scheduling the pod would hide that something is wrong with it.
TEST_F(PluginCasesTest, CELRuntimeErrorForOneOfTwoNodes) {
  Outcome o = Run({.claims = {BreakCel(PendingClaim())},
                   .classes = {Class()},
                   .slices = {Slice(kNode), Slice(kNode2, 1, true)},
                   .nodes = {Node(kNode), Node(kNode2)}});
  ExpectStatus(o.filter.at(kNode), Code::kError,
               "claim default/my-pod-my-resource: selector #0: CEL runtime "
               "error: no such key: healthy");
  EXPECT_EQ(o.filter.count(kNode2), 0u) << "the attempt ended";
  EXPECT_TRUE(o.selected.empty());
}

TEST_F(PluginCasesTest, CELRuntimeErrorForOneOfThreeNodes) {
  Outcome o = Run(
      {.claims = {BreakCel(PendingClaim())},
       .classes = {Class()},
       .slices = {Slice(kNode), Slice(kNode2, 1, true), Slice(kNode3, 1, true)},
       .nodes = {Node(kNode), Node(kNode2), Node(kNode3)}});
  ExpectStatus(o.filter.at(kNode), Code::kError,
               "claim default/my-pod-my-resource: selector #0: CEL runtime "
               "error: no such key: healthy");
  EXPECT_TRUE(o.selected.empty());
}

TEST_F(PluginCasesTest, MissingClass) {
  Outcome o = Run({.claims = {PendingClaim()}});
  ExpectStatus(o.prefilter, Code::kUnschedulableAndUnresolvable,
               "request req-1: device class my-resource-class does not exist");
  ExpectStatus(o.postfilter, Code::kUnschedulable,
               "no new claims to deallocate");
}

TEST_F(PluginCasesTest, WrongTopology) {
  api::ResourceClaim claim = PendingClaim();
  claim.metadata.finalizers = {std::string(api::kResourceClaimFinalizer)};
  claim.status.allocation = api::AllocationResult{
      .node_selector = LabelSelector("no-such-label", "no-such-value")};
  Outcome o = Run({.claims = {claim}});
  ExpectStatus(o.filter.at(kNode), Code::kUnschedulableAndUnresolvable,
               "resourceclaim not available on the node");
  // PostFilter frees the claim so that it can be allocated elsewhere.
  ExpectStatus(o.postfilter, Code::kUnschedulable,
               "deallocation of ResourceClaim completed");
  api::ResourceClaim want = claim;
  want.status.allocation.reset();
  ExpectStored(kClaimName, want);
}

TEST_F(PluginCasesTest, GoodTopology) {
  api::ResourceClaim claim = PendingClaim();
  claim.metadata.finalizers = {std::string(api::kResourceClaimFinalizer)};
  claim.status.allocation = api::AllocationResult{
      .node_selector = LabelSelector("kubernetes.io/hostname", kNode)};
  Outcome o = Run({.claims = {claim}});
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  EXPECT_TRUE(o.prebind->IsSuccess());
  ExpectStored(kClaimName, Reserved(claim));
  EXPECT_EQ(
      api_.calls,
      (std::vector<std::string>{"update-status default/my-pod-my-resource"}));
}

TEST_F(PluginCasesTest, BindFailure) {
  api::ResourceClaim claim = PendingClaim();
  claim.metadata.finalizers = {std::string(api::kResourceClaimFinalizer)};
  claim.status.allocation = api::AllocationResult{
      .node_selector = LabelSelector("kubernetes.io/hostname", kNode)};
  Outcome o = Run({.claims = {claim}, .unreserve_after_prebind = true});
  EXPECT_TRUE(o.prebind->IsSuccess());
  // Unreserve takes the pod out of reservedFor and keeps the allocation,
  // as PreBind stamped it.
  api::ResourceClaim want = claim;
  want.status.allocation->allocation_timestamp = kAnyTimestamp;
  ExpectStored(kClaimName, want);
  EXPECT_EQ(api_.calls.back(), "unreserve default/my-pod-my-resource 1234");
}

TEST_F(PluginCasesTest, ReservedOkay) {
  api::ResourceClaim in_use = Reserved(
      Allocated(PendingClaim(), Allocation({{"req-1", "instance-1"}})));
  Outcome o = Run({.claims = {in_use}});
  EXPECT_TRUE(o.prebind->IsSuccess());
  EXPECT_TRUE(api_.calls.empty()) << "nothing to write";
}

TEST_F(PluginCasesTest, DRADisabled) {
  api::ResourceClaim in_use = Reserved(
      Allocated(PendingClaim(), Allocation({{"req-1", "instance-1"}})));
  Outcome o = Run({.claims = {in_use}, .dra = false});
  EXPECT_EQ(o.prefilter->code(), Code::kSkip);
  EXPECT_EQ(o.prebind_preflight->code(), Code::kSkip);
}

TEST_F(PluginCasesTest, ClaimWithRequestWithUnknownDeviceClass) {
  api::ResourceClaim claim = PendingClaim();
  claim.spec.devices.requests[0].exactly->device_class_name = "does-not-exist";
  Outcome o = Run({.claims = {claim}});
  ExpectStatus(o.prefilter, Code::kUnschedulableAndUnresolvable,
               "request req-1: device class does-not-exist does not exist");
  ExpectStatus(o.postfilter, Code::kUnschedulable,
               "no new claims to deallocate");
}

TEST_F(PluginCasesTest, ClaimWithPrioritizedListFeatureDisabled) {
  Outcome o =
      Run({.claims = {PrioritizedClaim(kClaimName, {{Sub("subreq-1", 1)}})},
           .classes = {Class()},
           .prioritized_list = false});
  ExpectStatus(o.prefilter, Code::kUnschedulableAndUnresolvable,
               "resource claim default/my-pod-my-resource, request req-1: has "
               "subrequests, but the DRAPrioritizedList feature is disabled");
}

TEST_F(PluginCasesTest, ClaimWithPrioritizedListUnknownDeviceClass) {
  api::ResourceClaim claim =
      PrioritizedClaim(kClaimName, {{Sub("subreq-1", 1)}});
  claim.spec.devices.requests[0].first_available[0].device_class_name =
      "does-not-exist";
  Outcome o = Run({.claims = {claim}});
  ExpectStatus(o.prefilter, Code::kUnschedulableAndUnresolvable,
               "request req-1/subreq-1: device class does-not-exist does not "
               "exist");
}

TEST_F(PluginCasesTest, ClaimWithPrioritizedList) {
  api::ResourceClaim claim =
      PrioritizedClaim(kClaimName, {{Sub("subreq-1", 1)}});
  Outcome o =
      Run({.claims = {claim}, .classes = {Class()}, .slices = {Slice(kNode)}});
  EXPECT_TRUE(o.prebind->IsSuccess());
  ExpectStored(kClaimName,
               Reserved(Allocated(
                   claim, Allocation({{"req-1/subreq-1", "instance-1"}}))));
}

// Earlier sub-requests score higher: the first alternative needs the
// attribute to be true, which it is on worker only.
TEST_F(PluginCasesTest, SingleClaimPrioritizedListScoring) {
  api::ResourceClaim claim = PrioritizedClaim(
      kClaimName,
      {{Sub("subreq-1", 1,
            std::string("device.attributes[\"") + kDriver + "\"]." + kAttr),
        Sub("subreq-2", 1)}});
  Outcome o = Run({.claims = {claim},
                   .classes = {Class()},
                   .slices = {Slice(kNode, 1, true), Slice(kNode2, 1, false)},
                   .nodes = {Node(kNode), Node(kNode2)}});
  EXPECT_EQ(o.scores.at(kNode), 8);
  EXPECT_EQ(o.scores.at(kNode2), 7);
  EXPECT_EQ(o.normalized.at(kNode), 100);
  EXPECT_EQ(o.normalized.at(kNode2), 87);
  EXPECT_EQ(o.selected, kNode);
}

TEST_F(PluginCasesTest, MultipleClaimsPrioritizedListScoring) {
  api::ResourceClaim first =
      PrioritizedClaim(kClaimName, {{Sub("subreq-1", 1)}});
  api::ResourceClaim second =
      PrioritizedClaim(kClaimName2, {{Sub("subreq-1", 4), Sub("subreq-2", 3),
                                      Sub("subreq-3", 2), Sub("subreq-4", 1)}});
  Outcome o =
      Run({.pod = PodWithClaimName(2),
           .claims = {first, second},
           .classes = {Class()},
           .slices = {Slice(kNode, 4), Slice(kNode2, 2), Slice(kNode3, 1)},
           .nodes = {Node(kNode), Node(kNode2), Node(kNode3)}});
  ExpectStatus(o.filter.at(kNode3), Code::kUnschedulableAndUnresolvable,
               "cannot allocate all claims");
  EXPECT_EQ(o.scores.at(kNode), 15);
  EXPECT_EQ(o.scores.at(kNode2), 13);
  EXPECT_EQ(o.normalized.at(kNode), 100);
  EXPECT_EQ(o.normalized.at(kNode2), 86);
  EXPECT_EQ(o.in_flight_after_reserve,
            (std::vector<std::string>{kClaimName, kClaimName2}));
  EXPECT_TRUE(o.prebind->IsSuccess());
  ExpectStored(kClaimName,
               Reserved(Allocated(
                   first, Allocation({{"req-1/subreq-1", "instance-1"}}))));
  ExpectStored(kClaimName2,
               Reserved(Allocated(
                   second, Allocation({{"req-1/subreq-2", "instance-2"},
                                       {"req-1/subreq-2", "instance-3"},
                                       {"req-1/subreq-2", "instance-4"}}))));
}

TEST_F(PluginCasesTest, MultipleRequestsPrioritizedListScoring) {
  api::ResourceClaim claim =
      PrioritizedClaim(kClaimName, {{Sub("subreq-1", 2), Sub("subreq-2", 1)},
                                    {Sub("subreq-1", 2), Sub("subreq-2", 1)}});
  Outcome o =
      Run({.claims = {claim},
           .classes = {Class()},
           .slices = {Slice(kNode, 4), Slice(kNode2, 3), Slice(kNode3, 2)},
           .nodes = {Node(kNode), Node(kNode2), Node(kNode3)}});
  EXPECT_EQ(o.scores.at(kNode), 16);
  EXPECT_EQ(o.scores.at(kNode2), 15);
  EXPECT_EQ(o.scores.at(kNode3), 14);
  EXPECT_EQ(o.normalized.at(kNode), 100);
  EXPECT_EQ(o.normalized.at(kNode2), 93);
  EXPECT_EQ(o.normalized.at(kNode3), 87);
  EXPECT_TRUE(o.prebind->IsSuccess());
  ExpectStored(kClaimName,
               Reserved(Allocated(
                   claim, Allocation({{"req-1/subreq-1", "instance-1"},
                                      {"req-1/subreq-1", "instance-2"},
                                      {"req-2/subreq-1", "instance-3"},
                                      {"req-2/subreq-1", "instance-4"}}))));
}

TEST_F(PluginCasesTest, TaintedDeviceDisabled) {
  api::ResourceSlice slice = Slice(kNode);
  slice.spec.devices[0].taints.push_back(
      {.key = "taint-key",
       .value = "taint-value",
       .effect = api::DeviceTaintEffect::kNoSchedule});
  Outcome o = Run(
      {.claims = {PendingClaim()}, .classes = {Class()}, .slices = {slice}});
  EXPECT_TRUE(o.prebind->IsSuccess());
}

TEST_F(PluginCasesTest, TaintedDeviceEnabled) {
  api::ResourceSlice slice = Slice(kNode);
  slice.spec.devices[0].taints.push_back(
      {.key = "taint-key",
       .value = "taint-value",
       .effect = api::DeviceTaintEffect::kNoSchedule});
  Outcome o = Run({.claims = {PendingClaim()},
                   .classes = {Class()},
                   .slices = {slice},
                   .device_taints = true});
  ExpectStatus(o.filter.at(kNode), Code::kUnschedulableAndUnresolvable,
               "cannot allocate all claims");
}

// ---- in-flight allocations of other pods, the filter timeout ----

TEST_F(PluginCasesTest, ExhaustedResourcesInFlightClaim) {
  api::ResourceClaim other = PendingClaim("not-my-claim", 1, false);
  Outcome o = Run(
      {.claims = {PendingClaim(), other},
       .classes = {Class()},
       .slices = {Slice(kNode)},
       .in_flight = {Allocated(other, Allocation({{"req-1", "instance-1"}}))}});
  EXPECT_TRUE(o.preenqueue.IsSuccess());
  EXPECT_TRUE(o.prefilter->IsSuccess());
  ExpectStatus(o.filter.at(kNode), Code::kUnschedulableAndUnresolvable,
               "cannot allocate all claims");
  ExpectStatus(o.postfilter, Code::kUnschedulable, "still not schedulable");
  EXPECT_EQ(InFlight(), std::vector<std::string>{"not-my-claim"});
  ExpectStored(kClaimName, PendingClaim());
  ExpectStored("not-my-claim", other);
  EXPECT_TRUE(api_.calls.empty());
}

TEST_F(PluginCasesTest, OtherResourcesInFlightClaim) {
  api::ResourceClaim other = PendingClaim("not-my-claim", 1, false);
  Outcome o = Run({.claims = {PendingClaim(), other},
                   .classes = {Class()},
                   .slices = {Slice(kNode)},
                   .in_flight = {Allocated(
                       other, Allocation({{"req-1", "instance-1-other"}}))}});
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  EXPECT_TRUE(o.reserve->IsSuccess());
  EXPECT_EQ(o.in_flight_after_reserve,
            (std::vector<std::string>{kClaimName, "not-my-claim"}));
  EXPECT_TRUE(o.prebind->IsSuccess());
  EXPECT_EQ(o.in_flight_after_prebind,
            std::vector<std::string>{"not-my-claim"});
  api::ResourceClaim want = Reserved(
      Allocated(PendingClaim(), Allocation({{"req-1", "instance-1"}})));
  ExpectStored(kClaimName, want);
  ExpectAssumed(kClaimName, want);
  ExpectStored("not-my-claim", other);
}

// kube's 1 ns filterTimeout runs out while the allocator searches, as the
// clock moves on every reading here.
TEST_F(PluginCasesTest, Timeout) {
  Outcome o = Run({.claims = {PendingClaim(kClaimName, 5, false)},
                   .classes = {Class()},
                   .slices = {Slice(kNode, 4)},
                   .filter_timeout = 1ns,
                   .clock_tick = 1ns});
  EXPECT_TRUE(o.prefilter->IsSuccess());
  // An Error, so the pod is retried after backoff; the attempt ends.
  ExpectStatus(o.filter.at(kNode), Code::kError,
               "node worker: timed out trying to allocate devices");
  EXPECT_TRUE(o.selected.empty());
  EXPECT_FALSE(o.postfilter.has_value());
}

// ---- the allocation timestamp ----

TEST_F(PluginCasesTest, DontAddAllocationTimestamp) {
  Outcome o = Run({.claims = {PendingClaim()},
                   .classes = {Class()},
                   .slices = {Slice(kNode)},
                   .binding_conditions = false});
  EXPECT_EQ(o.in_flight_after_reserve, std::vector<std::string>{kClaimName});
  EXPECT_TRUE(o.prebind->IsSuccess());
  EXPECT_TRUE(o.in_flight_after_prebind.empty());
  api::ResourceClaim want =
      Reserved(Allocated(PendingClaim(), Allocation({{"req-1", "instance-1"}})),
               /*stamp=*/false);
  ExpectStored(kClaimName, want);
  ExpectAssumed(kClaimName, want);
}

TEST_F(PluginCasesTest, AddAllocationTimestamp) {
  Outcome o = Run({.claims = {PendingClaim()},
                   .classes = {Class()},
                   .slices = {Slice(kNode)}});
  EXPECT_EQ(o.in_flight_after_reserve, std::vector<std::string>{kClaimName});
  EXPECT_TRUE(o.prebind->IsSuccess());
  EXPECT_TRUE(o.in_flight_after_prebind.empty());
  api::ResourceClaim want = Reserved(
      Allocated(PendingClaim(), Allocation({{"req-1", "instance-1"}})));
  ExpectStored(kClaimName, want);
  ExpectAssumed(kClaimName, want);
}

// The claim is deallocated by someone else before PreBind: the stale
// write conflicts, and the fresh read has no allocation to stamp.
TEST_F(PluginCasesTest, AddAllocationTimestampFailure) {
  api::ResourceClaim allocated =
      Allocated(PendingClaim(), Allocation({{"req-1", "instance-1"}}));
  Outcome o = Run({.claims = {allocated},
                   .before_prebind = [](dra_testing::FakeClaimApi& api) {
                     api.Modify(kClaimName, [](api::ResourceClaim& c) {
                       c.status.allocation.reset();
                     });
                   }});
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  ExpectStatus(o.prebind, Code::kError,
               "claim default/my-pod-my-resource got deallocated elsewhere in "
               "the meantime");
  api::ResourceClaim want = allocated;
  want.status.allocation.reset();
  ExpectStored(kClaimName, want);
}

// ---- extended resources backed by DRA (DRAExtendedResource) ----

TEST_F(PluginCasesTest, EmptyWithExtendedResourcesEnabled) {
  Outcome o = Run({.pod = testing::PodBuilder("foo").Namespace(kNs).Obj(),
                   .extended_resources = true});
  EXPECT_TRUE(o.preenqueue.IsSuccess());
  EXPECT_EQ(o.prefilter->code(), Code::kSkip);
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  EXPECT_EQ(o.prebind_preflight->code(), Code::kSkip);
  EXPECT_TRUE(o.prebind_allows_parallel);
  EXPECT_TRUE(o.prebind->IsSuccess());
  EXPECT_TRUE(api_.calls.empty());
}

// The node's allocatable serves the resource: no claim is made.
TEST_F(PluginCasesTest, ExtendedResourceNameWithNodeResource) {
  Outcome o = Run({.pod = PodWithRequests(
                       {testing::ResourcePairs{{kExtendedResource, "1"}}}),
                   .classes = {ExtendedClass(kClassName, kExtendedResource)},
                   .nodes = {NodeWithCapacity({{kExtendedResource, "1"}})},
                   .extended_resources = true});
  EXPECT_TRUE(o.preenqueue.IsSuccess());
  EXPECT_TRUE(o.prefilter->IsSuccess());
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  EXPECT_TRUE(o.reserve->IsSuccess());
  EXPECT_TRUE(o.in_flight_after_reserve.empty());
  EXPECT_TRUE(o.prebind_preflight->IsSuccess());
  EXPECT_TRUE(o.prebind->IsSuccess());
  EXPECT_TRUE(api_.Names().empty());
  EXPECT_TRUE(api_.calls.empty());
  EXPECT_TRUE(metrics_.claim_creates.empty());
}

// gpu from the node's allocatable, gpu2 from a device.
TEST_F(PluginCasesTest, ExtendedResourceOneDevicePluginOneDra) {
  Outcome o = Run({.pod = PodWithRequests({testing::ResourcePairs{
                       {kExtendedResource, "1"}, {kExtendedResource2, "1"}}}),
                   .classes = {ExtendedClass(kClassName, kExtendedResource),
                               ExtendedClass(std::string(kClassName) + "2",
                                             kExtendedResource2)},
                   .slices = {Slice(kNode)},
                   .nodes = {NodeWithCapacity({{kExtendedResource, "1"}})},
                   .extended_resources = true});
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  EXPECT_TRUE(o.reserve->IsSuccess());
  EXPECT_EQ(o.in_flight_after_reserve,
            std::vector<std::string>{
                std::string(dynamic_resources::kInMemoryClaimName)});
  EXPECT_TRUE(o.prebind->IsSuccess()) << o.prebind->Message();
  EXPECT_TRUE(o.in_flight_after_prebind.empty());
  api::ResourceClaim want = Reserved(ExtendedClaim(
      kExtendedClaimName,
      {NamedRequest("container-0-request-1", std::string(kClassName) + "2")},
      Allocation({{"container-0-request-1", "instance-1"}})));
  EXPECT_EQ(api_.Names(), std::vector<std::string>{kExtendedClaimName});
  ExpectStored(kExtendedClaimName, want);
  ExpectAssumed(kExtendedClaimName, want);
  ASSERT_EQ(api_.pod_status_writes.size(), 1u);
  EXPECT_EQ(api_.pod_status_writes[0].update.extended_resource_claim_status,
            (api::PodExtendedResourceClaimStatus{
                .request_mappings = {{"con0", kExtendedResource2,
                                      "container-0-request-1"}},
                .resource_claim_name = kExtendedClaimName}));
  EXPECT_EQ(metrics_.claim_creates,
            (std::map<std::string, int>{{"success", 1}}));
}

TEST_F(PluginCasesTest, ExtendedResourceNameWithZeroAllocatable) {
  Outcome o = Run({.pod = PodWithRequests(
                       {testing::ResourcePairs{{kExtendedResource, "1"}}}),
                   .classes = {ExtendedClass(kClassName, kExtendedResource)},
                   .slices = {Slice(kNode)},
                   .nodes = {NodeWithCapacity({{kExtendedResource, "0"}})},
                   .extended_resources = true});
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  EXPECT_EQ(o.in_flight_after_reserve,
            std::vector<std::string>{
                std::string(dynamic_resources::kInMemoryClaimName)});
  EXPECT_TRUE(o.prebind->IsSuccess()) << o.prebind->Message();
  EXPECT_TRUE(o.in_flight_after_prebind.empty());
  api::ResourceClaim want = Reserved(ExtendedClaim(
      kExtendedClaimName, {NamedRequest("container-0-request-0", kClassName)},
      Allocation({{"container-0-request-0", "instance-1"}})));
  EXPECT_EQ(api_.Names(), std::vector<std::string>{kExtendedClaimName});
  ExpectStored(kExtendedClaimName, want);
  ExpectAssumed(kExtendedClaimName, want);
}

// No class serves the resource: nothing for this plugin.
TEST_F(PluginCasesTest, NonDRAExtendedResourceNameWithZeroAllocatable) {
  Outcome o = Run({.pod = PodWithRequests(
                       {testing::ResourcePairs{{kExtendedResource, "1"}}}),
                   .classes = {Class()},
                   .slices = {Slice(kNode)},
                   .nodes = {NodeWithCapacity({{kExtendedResource, "0"}})},
                   .extended_resources = true});
  EXPECT_EQ(o.prefilter->code(), Code::kSkip);
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  EXPECT_EQ(o.prebind_preflight->code(), Code::kSkip);
  EXPECT_TRUE(o.prebind->IsSuccess());
  EXPECT_TRUE(api_.calls.empty());
}

TEST_F(PluginCasesTest, ExtendedResourceNameNoResource) {
  Outcome o = Run({.pod = PodWithRequests(
                       {testing::ResourcePairs{{kExtendedResource, "1"}}}),
                   .classes = {ExtendedClass(kClassName, kExtendedResource)},
                   .extended_resources = true});
  EXPECT_TRUE(o.prefilter->IsSuccess());
  ExpectStatus(o.filter.at(kNode), Code::kUnschedulableAndUnresolvable,
               "cannot allocate all claims");
  ExpectStatus(o.postfilter, Code::kUnschedulable, "still not schedulable");
  EXPECT_TRUE(api_.calls.empty());
  EXPECT_TRUE(metrics_.claim_creates.empty());
}

TEST_F(PluginCasesTest, ExtendedResourceNameWithResources) {
  Outcome o = Run({.pod = PodWithRequests(
                       {testing::ResourcePairs{{kExtendedResource, "1"}}}),
                   .classes = {ExtendedClass(kClassName, kExtendedResource)},
                   .slices = {Slice(kNode)},
                   .extended_resources = true});
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  EXPECT_EQ(o.in_flight_after_reserve,
            std::vector<std::string>{
                std::string(dynamic_resources::kInMemoryClaimName)});
  EXPECT_TRUE(o.prebind->IsSuccess()) << o.prebind->Message();
  EXPECT_TRUE(o.in_flight_after_prebind.empty());
  api::ResourceClaim want = Reserved(ExtendedClaim(
      kExtendedClaimName, {NamedRequest("container-0-request-0", kClassName)},
      Allocation({{"container-0-request-0", "instance-1"}})));
  EXPECT_EQ(api_.Names(), std::vector<std::string>{kExtendedClaimName});
  ExpectStored(kExtendedClaimName, want);
  ExpectAssumed(kExtendedClaimName, want);
  // Created without the finalizer, which the update then adds, as kube.
  EXPECT_EQ(api_.calls, (std::vector<std::string>{
                            "create default/my-pod-extended-resources-",
                            "update default/my-pod-extended-resources-0",
                            "update-status default/my-pod-extended-resources-0",
                            "patch-pod-status default/my-pod"}));
  ASSERT_EQ(api_.pod_status_writes.size(), 1u);
  EXPECT_EQ(api_.pod_status_writes[0].update.extended_resource_claim_status,
            (api::PodExtendedResourceClaimStatus{
                .request_mappings = {{"con0", kExtendedResource,
                                      "container-0-request-0"}},
                .resource_claim_name = kExtendedClaimName}));
  EXPECT_EQ(metrics_.claim_creates,
            (std::map<std::string, int>{{"success", 1}}));
}

// The class's implicit name deviceclass.resource.kubernetes.io/<class>
// sorts before example.com/gpu, so it gets the container's request 0.
TEST_F(PluginCasesTest, ImplicitExtendedResourceNameWithResources) {
  Outcome o =
      Run({.pod = PodWithRequests({testing::ResourcePairs{
               {kImplicitExtendedResource, "1"}, {kExtendedResource, "2"}}}),
           .classes = {ExtendedClass(kClassName, kExtendedResource)},
           .slices = {Slice(kNode, 4)},
           .extended_resources = true});
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  EXPECT_EQ(o.in_flight_after_reserve,
            std::vector<std::string>{
                std::string(dynamic_resources::kInMemoryClaimName)});
  EXPECT_TRUE(o.prebind->IsSuccess()) << o.prebind->Message();
  api::ResourceClaim want = Reserved(
      ExtendedClaim(kExtendedClaimName,
                    {NamedRequest("container-0-request-0", kClassName),
                     NamedRequest("container-0-request-1", kClassName, 2)},
                    Allocation({{"container-0-request-0", "instance-1"},
                                {"container-0-request-1", "instance-2"},
                                {"container-0-request-1", "instance-3"}})));
  EXPECT_EQ(api_.Names(), std::vector<std::string>{kExtendedClaimName});
  ExpectStored(kExtendedClaimName, want);
  ExpectAssumed(kExtendedClaimName, want);
  ASSERT_EQ(api_.pod_status_writes.size(), 1u);
  EXPECT_EQ(api_.pod_status_writes[0].update.extended_resource_claim_status,
            (api::PodExtendedResourceClaimStatus{
                .request_mappings = {{"con0", kImplicitExtendedResource,
                                      "container-0-request-0"},
                                     {"con0", kExtendedResource,
                                      "container-0-request-1"}},
                .resource_claim_name = kExtendedClaimName}));
  EXPECT_EQ(metrics_.claim_creates,
            (std::map<std::string, int>{{"success", 1}}));
}

TEST_F(PluginCasesTest,
       ImplicitExtendedResourceNameTwoContainersWithResources) {
  Outcome o =
      Run({.pod = PodWithRequests(
               {testing::ResourcePairs{{kImplicitExtendedResource, "1"}},
                testing::ResourcePairs{{kExtendedResource, "2"}}}),
           .classes = {ExtendedClass(kClassName, kExtendedResource)},
           .slices = {Slice(kNode, 4)},
           .extended_resources = true});
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  EXPECT_EQ(o.in_flight_after_reserve,
            std::vector<std::string>{
                std::string(dynamic_resources::kInMemoryClaimName)});
  EXPECT_TRUE(o.prebind->IsSuccess()) << o.prebind->Message();
  api::ResourceClaim want = Reserved(
      ExtendedClaim(kExtendedClaimName,
                    {NamedRequest("container-0-request-0", kClassName),
                     NamedRequest("container-1-request-0", kClassName, 2)},
                    Allocation({{"container-0-request-0", "instance-1"},
                                {"container-1-request-0", "instance-2"},
                                {"container-1-request-0", "instance-3"}})));
  EXPECT_EQ(api_.Names(), std::vector<std::string>{kExtendedClaimName});
  ExpectStored(kExtendedClaimName, want);
  ExpectAssumed(kExtendedClaimName, want);
  ASSERT_EQ(api_.pod_status_writes.size(), 1u);
  EXPECT_EQ(api_.pod_status_writes[0].update.extended_resource_claim_status,
            (api::PodExtendedResourceClaimStatus{
                .request_mappings = {{"con0", kImplicitExtendedResource,
                                      "container-0-request-0"},
                                     {"con1", kExtendedResource,
                                      "container-1-request-0"}},
                .resource_claim_name = kExtendedClaimName}));
  EXPECT_EQ(metrics_.claim_creates,
            (std::map<std::string, int>{{"success", 1}}));
}

// The pod status patch fails after the claim is written; the claim stays
// (Unreserve, which would delete it, is not called here).
TEST_F(PluginCasesTest, ExtendedResourceNameWithResourcesFailPatch) {
  api_.fail_patches = true;
  Outcome o = Run({.pod = PodWithRequests(
                       {testing::ResourcePairs{{kExtendedResource, "1"}}}),
                   .classes = {ExtendedClass(kClassName, kExtendedResource)},
                   .slices = {Slice(kNode)},
                   .extended_resources = true});
  EXPECT_EQ(o.in_flight_after_reserve,
            std::vector<std::string>{
                std::string(dynamic_resources::kInMemoryClaimName)});
  // kube's table matches the text "patch error" within the error.
  ExpectStatus(o.prebind, Code::kError,
               "update pod default/my-pod ExtendedResourceClaimStatus: patch "
               "error");
  EXPECT_TRUE(o.in_flight_after_prebind.empty());
  api::ResourceClaim want = Reserved(ExtendedClaim(
      kExtendedClaimName, {NamedRequest("container-0-request-0", kClassName)},
      Allocation({{"container-0-request-0", "instance-1"}})));
  EXPECT_EQ(api_.Names(), std::vector<std::string>{kExtendedClaimName});
  ExpectStored(kExtendedClaimName, want);
  ExpectAssumed(kExtendedClaimName, want);
  EXPECT_EQ(metrics_.claim_creates,
            (std::map<std::string, int>{{"success", 1}}));
}

// A claim an earlier cycle made: PostFilter deletes it, so the next
// attempt starts anew.
TEST_F(PluginCasesTest, ExtendedResourceNameWithResourcesHasClaim) {
  Outcome o = Run({.pod = PodWithRequests(
                       {testing::ResourcePairs{{kExtendedResource, "1"}}}),
                   .claims = {ExtendedClaim(
                       kExtendedClaimName,
                       {NamedRequest("container-0-request-0", kClassName)},
                       Allocation({{"container-0-request-0", "instance-1"}}))},
                   .classes = {ExtendedClass(kClassName, kExtendedResource)},
                   .slices = {Slice(kNode)},
                   .extended_resources = true});
  EXPECT_TRUE(o.prefilter->IsSuccess());
  ExpectStatus(o.filter.at(kNode), Code::kUnschedulableAndUnresolvable,
               "cannot schedule extended resource claim");
  ExpectStatus(o.postfilter, Code::kUnschedulable,
               "deletion of ResourceClaim completed");
  EXPECT_TRUE(api_.Names().empty());
  EXPECT_EQ(Assumed(kExtendedClaimName), nullptr);
  EXPECT_EQ(api_.calls, (std::vector<std::string>{
                            "update default/my-pod-extended-resources-0",
                            "delete default/my-pod-extended-resources-0"}));
  EXPECT_TRUE(metrics_.claim_creates.empty());
}

TEST_F(PluginCasesTest, ExtendedResourceNameWithResourcesDeleteClaim) {
  Outcome o =
      Run({.pod = PodWithRequests(
               {testing::ResourcePairs{{kExtendedResource, "1"}}}),
           .claims = {ExtendedClaim(
               kExtendedClaimName,
               {NamedRequest("container-0-request-0", kClassName)},
               Allocation({{"container-0-request-0", "instance-1"}}, kNode2))},
           .classes = {ExtendedClass(kClassName, kExtendedResource)},
           .slices = {Slice(kNode)},
           .extended_resources = true});
  ExpectStatus(o.filter.at(kNode), Code::kUnschedulableAndUnresolvable,
               "cannot schedule extended resource claim");
  ExpectStatus(o.postfilter, Code::kUnschedulable,
               "deletion of ResourceClaim completed");
  EXPECT_TRUE(api_.Names().empty());
  EXPECT_TRUE(metrics_.claim_creates.empty());
}

// Bind fails after PreBind: Unreserve deletes the claim it wrote.
TEST_F(PluginCasesTest, ExtendedResourceNameBindFailure) {
  Outcome o = Run({.pod = PodWithRequests(
                       {testing::ResourcePairs{{kExtendedResource, "1"}}}),
                   .classes = {ExtendedClass(kClassName, kExtendedResource)},
                   .slices = {Slice(kNode)},
                   .extended_resources = true,
                   .unreserve_after_prebind = true});
  EXPECT_EQ(o.in_flight_after_reserve,
            std::vector<std::string>{
                std::string(dynamic_resources::kInMemoryClaimName)});
  EXPECT_TRUE(o.prebind->IsSuccess()) << o.prebind->Message();
  EXPECT_TRUE(o.in_flight_after_prebind.empty());
  EXPECT_TRUE(o.unreserved);
  EXPECT_TRUE(api_.Names().empty());
  EXPECT_TRUE(InFlight().empty());
  EXPECT_EQ(api_.calls, (std::vector<std::string>{
                            "create default/my-pod-extended-resources-",
                            "update default/my-pod-extended-resources-0",
                            "update-status default/my-pod-extended-resources-0",
                            "patch-pod-status default/my-pod",
                            "update default/my-pod-extended-resources-0",
                            "delete default/my-pod-extended-resources-0"}));
  EXPECT_EQ(metrics_.claim_creates,
            (std::map<std::string, int>{{"success", 1}}));
}

// Another PreBind failed first: the in-memory claim is let go, nothing was
// written.
TEST_F(PluginCasesTest, ExtendedResourceNameSkipBind) {
  Outcome o = Run({.pod = PodWithRequests(
                       {testing::ResourcePairs{{kExtendedResource, "1"}}}),
                   .classes = {ExtendedClass(kClassName, kExtendedResource)},
                   .slices = {Slice(kNode)},
                   .extended_resources = true,
                   .unreserve_before_prebind = true});
  EXPECT_EQ(o.in_flight_after_reserve,
            std::vector<std::string>{
                std::string(dynamic_resources::kInMemoryClaimName)});
  EXPECT_TRUE(o.unreserved);
  EXPECT_TRUE(InFlight().empty());
  EXPECT_TRUE(manager_.ListAllAllocatedDevices().empty());
  EXPECT_TRUE(api_.Names().empty());
  EXPECT_TRUE(api_.calls.empty());
}

TEST_F(PluginCasesTest, ExtendedResourceNameClaimCreationFailure) {
  api_.fail_creates_with = "claim creation errors";
  Outcome o = Run({.pod = PodWithRequests(
                       {testing::ResourcePairs{{kExtendedResource, "1"}}}),
                   .classes = {ExtendedClass(kClassName, kExtendedResource)},
                   .slices = {Slice(kNode)},
                   .extended_resources = true,
                   .unreserve_after_prebind = true});
  EXPECT_EQ(o.in_flight_after_reserve,
            std::vector<std::string>{
                std::string(dynamic_resources::kInMemoryClaimName)});
  // kube's table matches the text "claim creation errors" within the error.
  ExpectStatus(o.prebind, Code::kError,
               "create claim for extended resources default/: claim creation "
               "errors");
  EXPECT_TRUE(o.in_flight_after_prebind.empty());
  EXPECT_TRUE(o.unreserved);
  EXPECT_TRUE(InFlight().empty());
  EXPECT_TRUE(api_.Names().empty());
  EXPECT_EQ(api_.calls, std::vector<std::string>{
                            "create default/my-pod-extended-resources-"});
  EXPECT_EQ(metrics_.claim_creates,
            (std::map<std::string, int>{{"failure", 1}}));
}

// ---- binding conditions (DRADeviceBindingConditions with
// DRAResourceClaimDeviceStatus) ----

// No driver reports the conditions: PreBind waits out the 1 s
// bindingTimeout.
TEST_F(PluginCasesTest, BindClaimWithBindingConditions) {
  Outcome o = Run({.claims = {PendingClaim()},
                   .classes = {Class()},
                   .slices = {FabricSlice(kDriver, "instance-1")},
                   .binding_timeout = 1s});
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  EXPECT_TRUE(o.reserve->IsSuccess());
  EXPECT_EQ(o.in_flight_after_reserve, std::vector<std::string>{kClaimName});
  ExpectStatus(o.prebind, Code::kError,
               "device binding timeout: context deadline exceeded");
  EXPECT_TRUE(o.in_flight_after_prebind.empty());
  api::ResourceClaim want =
      Reserved(Allocated(PendingClaim(), BindingAllocation(1, kAnyTimestamp)));
  ExpectStored(kClaimName, want);
  ExpectAssumed(kClaimName, want);
}

// kube's table has this case with the same content as the one above.
TEST_F(PluginCasesTest, BindFailureConcurrentDeallocation) {
  Outcome o = Run({.claims = {PendingClaim()},
                   .classes = {Class()},
                   .slices = {FabricSlice(kDriver, "instance-1")},
                   .binding_timeout = 1s});
  EXPECT_EQ(o.in_flight_after_reserve, std::vector<std::string>{kClaimName});
  ExpectStatus(o.prebind, Code::kError,
               "device binding timeout: context deadline exceeded");
  EXPECT_TRUE(o.in_flight_after_prebind.empty());
  api::ResourceClaim want =
      Reserved(Allocated(PendingClaim(), BindingAllocation(1, kAnyTimestamp)));
  ExpectStored(kClaimName, want);
  ExpectAssumed(kClaimName, want);
}

TEST_F(PluginCasesTest, BoundClaimWithSucceededBindingConditions) {
  Outcome o = Run({.claims = {BoundClaim(1)}});
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  EXPECT_TRUE(o.prebind->IsSuccess()) << o.prebind->Message();
  ExpectStored(kClaimName, Reserved(BoundClaim(1)));
  ExpectAssumed(kClaimName, Reserved(BoundClaim(1)));
  EXPECT_EQ(metrics_.binding_allocations,
            (std::map<std::string, int>{{"success", 1}}));
  EXPECT_EQ(metrics_.binding_waits,
            (std::map<std::string, int>{{"success", 1}}));
}

// The failure condition is true: Filter rejects the claim and PostFilter
// deallocates it so other devices can be tried.
TEST_F(PluginCasesTest, BoundClaimWithFailedBinding) {
  Outcome o = Run(
      {.claims = {BoundClaim(1, /*failed=*/true)}, .slices = {Slice(kNode)}});
  ExpectStatus(o.filter.at(kNode), Code::kUnschedulableAndUnresolvable,
               "resourceclaim not available on the node");
  ExpectStatus(o.postfilter, Code::kUnschedulable,
               "deallocation of ResourceClaim completed");
  api::ResourceClaim want = BoundClaim(1, true);
  want.status.allocation.reset();
  want.status.devices.clear();
  ExpectStored(kClaimName, want);
}

// Allocated longer than bindingTimeout ago, conditions not met. (kube's
// claim is exactly 10 minutes old and times out as real time passes;
// here it is a second older, the clock standing still.)
TEST_F(PluginCasesTest, BoundClaimWithTimedOutBinding) {
  api::ResourceClaim claim = Allocated(
      PendingClaim(), BindingAllocation(1, WallStartPlus(-10min - 1s)));
  claim.status.devices = {DeviceStatus(1)};
  Outcome o = Run({.claims = {claim}});
  ExpectStatus(o.filter.at(kNode), Code::kUnschedulableAndUnresolvable,
               "resourceclaim not available on the node");
  ExpectStatus(o.postfilter, Code::kUnschedulable,
               "deallocation of ResourceClaim completed");
  api::ResourceClaim want = claim;
  want.status.allocation.reset();
  want.status.devices.clear();
  ExpectStored(kClaimName, want);
}

// Allocated 10 s short of the 600 s bindingTimeout: Filter passes, and
// PreBind's wait ends when the claim times out.
TEST_F(PluginCasesTest, PrebindFailWithBindingTimeout) {
  api::ResourceClaim claim = Allocated(
      PendingClaim(), BindingAllocation(1, WallStartPlus(-600s + 10s)));
  claim.status.devices = {DeviceStatus(1)};
  Outcome o = Run({.claims = {claim}, .binding_timeout = 600s});
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  ExpectStatus(o.prebind, Code::kError,
               "device binding timeout: claim=my-pod-my-resource");
  ExpectStored(kClaimName, Reserved(claim));
  ExpectAssumed(kClaimName, Reserved(claim));
  EXPECT_EQ(
      api_.calls,
      (std::vector<std::string>{"update-status default/my-pod-my-resource"}));
  EXPECT_EQ(metrics_.binding_allocations,
            (std::map<std::string, int>{{"timeout", 1}}));
  EXPECT_EQ(metrics_.binding_waits,
            (std::map<std::string, int>{{"timeout", 1}}));
}

// The device reports conditions, but not the ones its allocation waits
// for, and the claim has timed out.
TEST_F(PluginCasesTest, BoundClaimWithMixedBindingConditions) {
  api::ResourceClaim claim = Allocated(
      PendingClaim(), BindingAllocation(1, WallStartPlus(-10min - 1s)));
  claim.status.devices = {
      DeviceStatus(1, {{"condition1", "True"}, {"condition2", "False"}})};
  Outcome o = Run({.claims = {claim}});
  ExpectStatus(o.filter.at(kNode), Code::kUnschedulableAndUnresolvable,
               "resourceclaim not available on the node");
  ExpectStatus(o.postfilter, Code::kUnschedulable,
               "deallocation of ResourceClaim completed");
  api::ResourceClaim want = claim;
  want.status.allocation.reset();
  want.status.devices.clear();
  ExpectStored(kClaimName, want);
}

// The gates on, the claim's devices without conditions: bound at once.
TEST_F(PluginCasesTest, BoundClaimWithoutBindingConditions) {
  api::ResourceClaim allocated =
      Allocated(PendingClaim(), Allocation({{"req-1", "instance-1"}}));
  Outcome o =
      Run({.pod = PodWithClaimTemplate(true),
           .claims = {allocated, PendingClaim("not-my-claim", 1, false)}});
  EXPECT_TRUE(o.prebind->IsSuccess()) << o.prebind->Message();
  ExpectStored(kClaimName, Reserved(allocated));
  ExpectAssumed(kClaimName, Reserved(allocated));
  ExpectStored("not-my-claim", PendingClaim("not-my-claim", 1, false));
}

TEST_F(PluginCasesTest, MultiClaimsBindingConditionsAllSuccess) {
  Outcome o = Run({.pod = PodWithClaimName(2),
                   .claims = {BoundClaim(1), BoundClaim(2)},
                   .classes = {Class()},
                   .slices = {FabricSlice(kDriver, "instance-1"),
                              FabricSlice(kDriver2, "instance-2")}});
  EXPECT_TRUE(o.filter.at(kNode).IsSuccess());
  EXPECT_TRUE(o.prebind->IsSuccess()) << o.prebind->Message();
  ExpectStored(kClaimName, Reserved(BoundClaim(1)));
  ExpectStored(kClaimName2, Reserved(BoundClaim(2)));
  ExpectAssumed(kClaimName, Reserved(BoundClaim(1)));
}

// The second claim's binding failed: only it is deallocated.
TEST_F(PluginCasesTest, MultiClaimsBindingConditionsOneFail) {
  Outcome o = Run({.pod = PodWithClaimName(2),
                   .claims = {BoundClaim(1), BoundClaim(2, /*failed=*/true)},
                   .classes = {Class()},
                   .slices = {FabricSlice(kDriver, "instance-1"),
                              FabricSlice(kDriver2, "instance-2")}});
  ExpectStatus(o.filter.at(kNode), Code::kUnschedulableAndUnresolvable,
               "resourceclaim not available on the node");
  ExpectStatus(o.postfilter, Code::kUnschedulable,
               "deallocation of ResourceClaim completed");
  ExpectStored(kClaimName, BoundClaim(1));
  api::ResourceClaim want = BoundClaim(2, true);
  want.status.allocation.reset();
  want.status.devices.clear();
  ExpectStored(kClaimName2, want);
}

// ---- ours ----

// Without prioritized lists Filter does not build each node's results;
// every feasible node scores 0 and Reserve's node gets its devices.
TEST_F(PluginCasesTest, PlainClaimOnTwoNodesScoresZeroAndReservesOnce) {
  Outcome o = Run({.claims = {PendingClaim()},
                   .classes = {Class()},
                   .slices = {Slice(kNode), Slice(kNode2)},
                   .nodes = {Node(kNode), Node(kNode2)}});
  EXPECT_EQ(o.scores.at(kNode), 0);
  EXPECT_EQ(o.scores.at(kNode2), 0);
  EXPECT_EQ(o.selected, kNode);
  EXPECT_TRUE(o.reserve->IsSuccess());
  EXPECT_TRUE(o.prebind->IsSuccess());
  ExpectStored(kClaimName,
               Reserved(Allocated(PendingClaim(),
                                  Allocation({{"req-1", "instance-1"}}))));
}

// A claim being allocated by another pod's cycle (Reserve done, PreBind
// not yet) keeps a second pod sharing it out until the claim changes.
TEST_F(PluginCasesTest, SharedClaimInFlightHoldsTheSecondPod) {
  manager_.SignalClaimPendingAllocation(
      "uid-my-pod-my-resource",
      std::make_shared<api::ResourceClaim>(PendingClaim()));
  Outcome o = Run({.claims = {PendingClaim()},
                   .classes = {Class()},
                   .slices = {Slice(kNode)}});
  ExpectStatus(o.prefilter, Code::kUnschedulableAndUnresolvable,
               "resource claim default/my-pod-my-resource is in the process "
               "of being allocated");
}

TEST_F(PluginCasesTest, StatusUpdateRejectedFailsPreBindAndReleasesTheDevice) {
  api_.fail_status_updates_with = 422;
  Outcome o = Run({.claims = {PendingClaim()},
                   .classes = {Class()},
                   .slices = {Slice(kNode)},
                   .unreserve_after_prebind = true});
  ExpectStatus(o.prebind, Code::kError,
               "add allocation and reservation to claim "
               "default/my-pod-my-resource: injected failure");
  EXPECT_FALSE(manager_.ClaimHasPendingAllocation("uid-my-pod-my-resource"));
  EXPECT_TRUE(manager_.ListAllAllocatedDevices().empty());
}

TEST_F(PluginCasesTest, ClaimAllocatedElsewhereMeanwhile) {
  Outcome o =
      Run({.claims = {PendingClaim()},
           .classes = {Class()},
           .slices = {Slice(kNode)},
           .before_prebind = [](dra_testing::FakeClaimApi& api) {
             api.Modify(kClaimName, [](api::ResourceClaim& c) {
               c.status.allocation = Allocation({{"req-1", "instance-1"}});
             });
           }});
  ExpectStatus(o.prebind, Code::kError,
               "claim default/my-pod-my-resource got allocated elsewhere in "
               "the meantime");
}

// ---- kube's Test_isSchedulableAfterClaimChange and
// Test_isSchedulableAfterPodChange ----

class HintsTest : public PluginCasesTest {
 protected:
  DynamicResources& Plugin(std::vector<api::ResourceClaim> claims) {
    for (auto& c : claims) api_.Create(std::move(c));
    handle_.dra_manager_ = &manager_;
    auto built = NewDynamicResources(nullptr, handle_);
    EXPECT_TRUE(built.ok());
    plugin_ = std::move(*built);
    return *dynamic_cast<DynamicResources*>(plugin_.get());
  }
  std::shared_ptr<const api::ResourceClaim> Cached(const std::string& name) {
    return manager_.GetResourceClaim(kNs, name);
  }
};

using framework::QueueingHint;

TEST_F(HintsTest, SkipDeletes) {
  auto& p = Plugin({});
  api::ResourceClaim old =
      Allocated(PendingClaim(), Allocation({{"req-1", "instance-1"}}));
  EXPECT_EQ(p.IsSchedulableAfterClaimChange(PodWithClaimTemplate(false), &old,
                                            nullptr),
            QueueingHint::kQueueSkip);
}

TEST_F(HintsTest, SkipWrongClaim) {
  api::ResourceClaim claim =
      Allocated(PendingClaim(), Allocation({{"req-1", "instance-1"}}));
  claim.metadata.owner_references[0].uid += "123";
  auto& p = Plugin({claim});
  EXPECT_EQ(p.IsSchedulableAfterClaimChange(PodWithClaimTemplate(false),
                                            nullptr, Cached(kClaimName).get()),
            QueueingHint::kQueueSkip);
}

TEST_F(HintsTest, SkipUnrelatedClaim) {
  api::ResourceClaim unrelated =
      Allocated(PendingClaim(), Allocation({{"req-1", "instance-1"}}));
  unrelated.metadata.name += "-foo";
  auto& p =
      Plugin({Allocated(PendingClaim(), Allocation({{"req-1", "instance-1"}})),
              unrelated});
  EXPECT_EQ(p.IsSchedulableAfterClaimChange(
                PodWithClaimTemplate(false), nullptr,
                Cached(std::string(kClaimName) + "-foo").get()),
            QueueingHint::kQueueSkip);
}

TEST_F(HintsTest, QueueOnAdd) {
  auto& p = Plugin({PendingClaim()});
  EXPECT_EQ(p.IsSchedulableAfterClaimChange(PodWithClaimName(), nullptr,
                                            Cached(kClaimName).get()),
            QueueingHint::kQueue);
}

TEST_F(HintsTest, SkipAddingFinalizer) {
  auto& p = Plugin({PendingClaim()});
  auto old = Cached(kClaimName);
  api_.Modify(
      kClaimName,
      [](api::ResourceClaim& c) { c.metadata.finalizers = {"foo"}; },
      /*deliver=*/true);
  EXPECT_EQ(p.IsSchedulableAfterClaimChange(PodWithClaimName(), old.get(),
                                            Cached(kClaimName).get()),
            QueueingHint::kQueueSkip);
}

TEST_F(HintsTest, QueueOnStatusChange) {
  auto& p = Plugin({PendingClaim()});
  auto old = Cached(kClaimName);
  api_.Modify(
      kClaimName,
      [](api::ResourceClaim& c) {
        c.status.allocation = api::AllocationResult{};
      },
      /*deliver=*/true);
  EXPECT_EQ(p.IsSchedulableAfterClaimChange(PodWithClaimName(), old.get(),
                                            Cached(kClaimName).get()),
            QueueingHint::kQueue);
}

// A deallocation frees devices for any pod, not only the claim's.
TEST_F(HintsTest, ClaimDeallocate) {
  api::ResourceClaim other = Allocated(PendingClaim("not-my-claim", 1, false),
                                       Allocation({{"req-1", "instance-1"}}));
  auto& p = Plugin({PendingClaim(), other});
  auto old = Cached("not-my-claim");
  api_.Modify(
      "not-my-claim",
      [](api::ResourceClaim& c) { c.status.allocation.reset(); },
      /*deliver=*/true);
  EXPECT_EQ(p.IsSchedulableAfterClaimChange(PodWithClaimName(), old.get(),
                                            Cached("not-my-claim").get()),
            QueueingHint::kQueue);
}

TEST_F(HintsTest, PodChangeComplete) {
  auto& p = Plugin({PendingClaim()});
  api::Pod before = PodWithClaimTemplate(false);
  api::Pod after = PodWithClaimTemplate(true);
  EXPECT_EQ(p.IsSchedulableAfterPodChange(before, &before, &after),
            QueueingHint::kQueue);
}

TEST_F(HintsTest, PodChangeWrongPod) {
  auto& p = Plugin({PendingClaim()});
  api::Pod other = PodWithClaimTemplate(false);
  other.metadata.name += "2";
  other.metadata.uid += "2";
  api::Pod after = PodWithClaimTemplate(true);
  EXPECT_EQ(p.IsSchedulableAfterPodChange(other, nullptr, &after),
            QueueingHint::kQueueSkip);
}

TEST_F(HintsTest, PodChangeMissingClaim) {
  auto& p = Plugin({});
  api::Pod before = PodWithClaimTemplate(false);
  api::Pod after = PodWithClaimTemplate(true);
  EXPECT_EQ(p.IsSchedulableAfterPodChange(before, &before, &after),
            QueueingHint::kQueueSkip);
}

TEST_F(HintsTest, PodChangeIncomplete) {
  auto& p = Plugin({PendingClaim()});
  api::Pod two = PodWithClaimTemplate(false);
  two.spec.resource_claims.push_back(
      {.name = std::string(kResource) + "-2",
       .resource_claim_template_name = std::string(kClaimName)});
  api::Pod after = two;
  after.status.resource_claim_statuses = {
      {.name = kResource, .resource_claim_name = std::string(kClaimName)}};
  EXPECT_EQ(p.IsSchedulableAfterPodChange(two, &two, &after),
            QueueingHint::kQueueSkip);
}

}  // namespace
}  // namespace ksched::plugins
