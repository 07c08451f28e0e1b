#include "pkg/extender/service.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "pkg/api/podgroup.h"
#include "pkg/config/config.h"
#include "pkg/extender/testing/fixtures.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/registry.h"
#include "pkg/util/fake_clock.h"

namespace ksched::extender {
namespace {

using testing::Fixture;
using testing::RecordingBinder;

using ksched::testing::NodeBuilder;
using ksched::testing::PodBuilder;

// The answer (by value: results are temporaries), or an empty one after
// reporting the error.
template <typename T>
T Ok(const VerbResult<T>& result) {
  if (const auto* e = std::get_if<VerbError>(&result)) {
    ADD_FAILURE() << e->message;
    return T{};
  }
  return std::get<T>(result);
}

template <typename T>
VerbError Err(const VerbResult<T>& result) {
  if (const auto* e = std::get_if<VerbError>(&result)) return *e;
  ADD_FAILURE() << "expected an error";
  return {};
}

// The cluster of the request fixtures: node-1 fits the pod (500m), node-2
// has 250m, node-3 a taint the pod does not tolerate.
class ExtenderServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AddNode(NodeBuilder("node-1").Capacity(
        {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}));
    AddNode(NodeBuilder("node-2").Capacity(
        {{"cpu", "250m"}, {"memory", "8Gi"}, {"pods", "110"}}));
    AddNode(NodeBuilder("node-3")
                .Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}})
                .Taint("dedicated", "gpu", api::TaintEffect::kNoSchedule));
  }

  void AddNode(const NodeBuilder& node) { cache_.AddNode(node.Ptr()); }
  void AddPod(const PodBuilder& pod) {
    ASSERT_TRUE(cache_
                    .AddPod(framework::PodInfo::CreateBound(
                        pod.Obj(), &cache_.label_sets()))
                    .ok());
  }

  std::unique_ptr<ExtenderService> Service(int max_parallel_requests = 4) {
    ExtenderService::Options options;
    options.clock = &clock_;
    options.binder = &binder_;
    options.pod_lookup =
        [this](const std::string& ns,
               const std::string& name) -> std::shared_ptr<const api::Pod> {
      auto it = pending_.find(ns + "/" + name);
      return it == pending_.end() ? nullptr : it->second;
    };
    options.max_parallel_requests = max_parallel_requests;
    auto service = ExtenderService::Create(config::DefaultConfig(), registry_,
                                           cache_, options);
    EXPECT_TRUE(service.ok()) << service.error().message();
    return service.ok() ? std::move(*service) : nullptr;
  }

  static ExtenderArgs Args(const std::string& fixture) {
    auto args = DecodeExtenderArgs(Fixture(fixture));
    EXPECT_TRUE(args.ok()) << args.error().message();
    return args.ok() ? *args : ExtenderArgs{};
  }

  // What ksched's informers hold for bind, by namespace/name.
  void AddPending(const PodBuilder& pod) {
    auto p = pod.Ptr();
    pending_[p->metadata.ns + "/" + p->metadata.name] = p;
  }

  util::FakeClock clock_;
  std::map<std::string, std::shared_ptr<const api::Pod>> pending_;
  cache::Cache cache_{clock_, std::chrono::nanoseconds(0)};
  framework::Registry registry_ = plugins::NewInTreeRegistry();
  RecordingBinder binder_;
};

constexpr const char* kProfile = "ksched";

// The filter answer for `args` as it goes on the wire, for comparing
// answers given at different times or on different threads.
std::string FilterAnswer(ExtenderService& service, const ExtenderArgs& args) {
  return EncodeFilterResult(Ok(service.Filter(kProfile, args)));
}

TEST_F(ExtenderServiceTest, FilterByNodeNamesAnswersWithTheSubsetSent) {
  auto service = Service();
  const ExtenderFilterResult r =
      Ok(service->Filter(kProfile, Args("filter_args_node_names.json")));
  EXPECT_EQ(
      EncodeFilterResult(r),
      // node-2 is smaller than the pod's request: unresolvable (v1.35).
      R"({"Nodes":null,"NodeNames":["node-1"],"FailedNodes":{},)"
      R"("FailedAndUnresolvableNodes":{"node-2":"Insufficient cpu",)"
      R"json("node-3":"node(s) had untolerated taint(s)"},"Error":""})json");
}

// A pod of an incomplete gang, sent by kube-scheduler: the group's PreFilter
// rules (all the extender API lets ksched apply) refuse it on every node,
// and let it through once the group is complete.
TEST_F(ExtenderServiceTest, FilterAppliesTheGangsQuorum) {
  // The README's gang profile.
  auto cfg = config::LoadConfigFile(std::string(KSCHED_SOURCE_DIR) +
                                    "/examples/gang/scheduler-config.yaml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message();
  framework::InMemoryClusterObjects objects;
  api::PodGroup group;
  group.metadata.ns = "default";
  group.metadata.name = "train";
  group.spec.min_member = 3;
  objects.Upsert(group);
  framework::PodGroupMembers members;
  auto member = [](const std::string& name) {
    return PodBuilder(name)
        .Uid(name)
        .Label(std::string(api::kPodGroupLabel), "train")
        .Req({{"cpu", "100m"}});
  };
  members.Upsert(member("w0").Ptr());
  members.Upsert(member("w1").Ptr());
  ExtenderService::Options options;
  options.clock = &clock_;
  options.objects = &objects;
  options.pod_group_members = &members;
  auto service = ExtenderService::Create(*cfg, registry_, cache_, options);
  ASSERT_TRUE(service.ok()) << service.error().message();
  ExtenderArgs args;
  args.pod = member("w0").Obj();
  args.node_names = std::vector<std::string>{"node-1", "node-2"};

  ExtenderFilterResult r = Ok((*service)->Filter(kProfile, args));
  ASSERT_TRUE(r.node_names.has_value());
  EXPECT_TRUE(r.node_names->empty());
  EXPECT_TRUE(r.failed_nodes.empty());
  ASSERT_EQ(r.failed_and_unresolvable_nodes.size(), 2u);
  EXPECT_EQ(r.failed_and_unresolvable_nodes.at("node-1"),
            "pre-filter pod w0 cannot find enough sibling pods, current pods "
            "number: 2, minMember of group: 3");

  members.Upsert(member("w2").Ptr());
  r = Ok((*service)->Filter(kProfile, args));
  ASSERT_TRUE(r.node_names.has_value());
  EXPECT_EQ(*r.node_names, (std::vector<std::string>{"node-1", "node-2"}));
  EXPECT_TRUE(r.failed_and_unresolvable_nodes.empty());
}

TEST_F(ExtenderServiceTest, FilterByFullNodesHandsBackTheNodesAsSent) {
  auto service = Service();
  const ExtenderArgs args = Args("filter_args_nodes.json");
  const ExtenderFilterResult r = Ok(service->Filter(kProfile, args));
  EXPECT_FALSE(r.node_names.has_value());
  ASSERT_TRUE(r.nodes_json.has_value());
  ASSERT_EQ(r.nodes_json->size(), 1u);
  EXPECT_EQ((*r.nodes_json)[0], (*args.nodes)[0].json);
  EXPECT_EQ(r.failed_and_unresolvable_nodes.at("node-2"), "Insufficient cpu");
  EXPECT_EQ(r.failed_and_unresolvable_nodes.at("node-3"),
            "node(s) had untolerated taint(s)");
}

// Pods ksched knows of count: node-1 full, nothing fits.
TEST_F(ExtenderServiceTest, FilterCountsThePodsInTheCache) {
  AddPod(PodBuilder("big").Uid("big").Node("node-1").Req({{"cpu", "3800m"}}));
  auto service = Service();
  const ExtenderFilterResult r =
      Ok(service->Filter(kProfile, Args("filter_args_node_names.json")));
  ASSERT_TRUE(r.node_names.has_value());
  EXPECT_TRUE(r.node_names->empty());
  EXPECT_NE(EncodeFilterResult(r).find(R"("NodeNames":[])"), std::string::npos);
  EXPECT_EQ(r.failed_nodes.at("node-1"), "Insufficient cpu");
}

// A node sent in full that the cache has not seen yet is judged as sent.
TEST_F(ExtenderServiceTest, FilterJudgesAnUnseenNodeAsSent) {
  auto service = Service();
  ExtenderArgs args = Args("filter_args_nodes.json");
  SentNode fresh = (*args.nodes)[0];
  fresh.node.metadata.name = "node-new";
  args.nodes = std::vector<SentNode>{fresh};
  const ExtenderFilterResult r = Ok(service->Filter(kProfile, args));
  ASSERT_EQ(r.nodes_json->size(), 1u);
}

TEST_F(ExtenderServiceTest, UnknownNamesAndProfilesAreBadRequests) {
  auto service = Service();
  ExtenderArgs args = Args("filter_args_node_names.json");
  args.node_names->push_back("node-9");
  VerbError e = Err(service->Filter(kProfile, args));
  EXPECT_EQ(e.kind, VerbError::Kind::kBadRequest);
  EXPECT_EQ(e.message, "node(s) not in ksched's cache: node-9");
  e = Err(service->Prioritize(kProfile, args));
  EXPECT_EQ(e.kind, VerbError::Kind::kBadRequest);
  e = Err(service->Filter("nobody", Args("filter_args_node_names.json")));
  EXPECT_EQ(e.message, "no profile with schedulerName \"nobody\"");
}

// LeastAllocated and BalancedAllocation prefer the emptier node.
TEST_F(ExtenderServiceTest, PrioritizeRanksOnZeroToTen) {
  AddNode(NodeBuilder("node-4").Capacity(
      {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}));
  AddPod(PodBuilder("busy").Uid("busy").Node("node-4").Req(
      {{"cpu", "3"}, {"memory", "6Gi"}}));
  auto service = Service();
  ExtenderArgs args = Args("filter_args_node_names.json");
  args.node_names = std::vector<std::string>{"node-1", "node-4"};
  const auto list = Ok(service->Prioritize(kProfile, args));
  EXPECT_EQ(EncodeHostPriorityList(list),
            R"([{"Host":"node-1","Score":10},{"Host":"node-4","Score":0}])");

  args.node_names = std::vector<std::string>{"node-1"};
  EXPECT_EQ(EncodeHostPriorityList(Ok(service->Prioritize(kProfile, args))),
            R"([{"Host":"node-1","Score":10}])");
}

constexpr const char* kBindUid = "fbf635fb-06f5-4b27-b748-d867f09ee829";

// The pod of bind_args.json as kube-scheduler's to schedule: 500m.
PodBuilder BindMe() {
  return PodBuilder("bind-me")
      .Namespace("default")
      .Uid(kBindUid)
      .SchedulerName("default-scheduler")
      .Req({{"cpu", "500m"}});
}

TEST_F(ExtenderServiceTest, BindGoesThroughTheBinder) {
  AddPending(BindMe());
  auto service = Service();
  auto args = DecodeBindingArgs(Fixture("bind_args.json"));
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(service->Bind(kProfile, *args).error, "");
  EXPECT_EQ(binder_.bound(),
            std::vector<std::string>{std::string("default/bind-me/") +
                                     kBindUid + "->node-1"});
  binder_.set_answer(framework::Status::Error("pods \"bind-me\" not found"));
  EXPECT_EQ(service->Bind(kProfile, *args).error, "pods \"bind-me\" not found");
}

// What bind refuses before any Binding goes out, and why.
TEST_F(ExtenderServiceTest, BindRefusesWhatKubeSchedulerCouldNotHaveMeant) {
  auto service = Service();
  ExtenderBindingArgs args{.pod_name = "bind-me",
                           .pod_namespace = "default",
                           .pod_uid = kBindUid,
                           .node = "node-1"};
  EXPECT_EQ(service->Bind(kProfile, args).error,
            "pod default/bind-me is not in ksched's cache");

  AddPending(BindMe().Uid("another-uid"));
  EXPECT_EQ(
      service->Bind(kProfile, args).error,
      std::string("pod default/bind-me has UID another-uid, not ") + kBindUid);

  AddPending(BindMe().Node("node-3"));
  EXPECT_EQ(service->Bind(kProfile, args).error,
            "pod default/bind-me is already bound to node node-3");

  AddPending(BindMe().Terminating());
  EXPECT_EQ(service->Bind(kProfile, args).error,
            "pod default/bind-me is being deleted");

  AddPending(BindMe().SchedulerName("ksched"));
  EXPECT_EQ(service->Bind(kProfile, args).error,
            "pod default/bind-me is scheduled by ksched's own profile "
            "\"ksched\"; the extender binds only pods kube-scheduler "
            "schedules");

  AddPending(BindMe());
  args.node = "node-9";
  EXPECT_EQ(service->Bind(kProfile, args).error,
            "node node-9 is not in ksched's cache");
  // Filter as kube-scheduler's own rules: too little CPU, an untolerated
  // taint.
  args.node = "node-2";
  EXPECT_EQ(service->Bind(kProfile, args).error,
            "pod default/bind-me does not fit node node-2: Insufficient cpu");
  args.node = "node-3";
  EXPECT_EQ(service->Bind(kProfile, args).error,
            "pod default/bind-me does not fit node node-3: node(s) had "
            "untolerated taint(s)");
  args.node = "node-1";
  args.pod_uid = "";  // kube-scheduler always sends it; the name suffices
  EXPECT_EQ(service->Bind("nobody", args).error,
            "no profile with schedulerName \"nobody\"");
  EXPECT_TRUE(binder_.bound().empty());
  EXPECT_EQ(service->Bind(kProfile, args).error, "");
  EXPECT_EQ(binder_.bound().size(), 1u);
}

// node-1 (1 cpu) is full with the victim; without it the pod fits. node-2
// is too small whatever goes; node-9 is unknown.
TEST_F(ExtenderServiceTest, PreemptKeepsTheNodesWhereRemovalHelps) {
  cache_.RemoveNode(NodeBuilder("node-1").Obj());
  AddNode(NodeBuilder("node-1").Capacity(
      {{"cpu", "1"}, {"memory", "8Gi"}, {"pods", "110"}}));
  AddPod(PodBuilder("victim")
             .Uid("7e1c5b0e-7d43-4c56-a3a1-0c7d1d6e0001")
             .Node("node-1")
             .Req({{"cpu", "800m"}}));
  auto service = Service();
  auto args = DecodePreemptionArgs(Fixture("preempt_args_meta.json"));
  ASSERT_TRUE(args.ok()) << args.error().message();
  (*args->node_to_meta_victims)["node-9"] = {{"x"}, 0};
  const ExtenderPreemptionResult r = Ok(service->Preempt(kProfile, *args));
  EXPECT_EQ(
      EncodePreemptionResult(r),
      R"({"NodeNameToMetaVictims":{"node-1":{"Pods":[{"UID":)"
      R"("7e1c5b0e-7d43-4c56-a3a1-0c7d1d6e0001"}],"NumPDBViolations":0}}})");

  // Without removing the victim, node-1 does not help either.
  (*args->node_to_meta_victims)["node-1"].pod_uids.clear();
  EXPECT_TRUE(
      Ok(service->Preempt(kProfile, *args)).node_to_meta_victims.empty());

  // Full pods as victims: the same answer, as UIDs.
  auto full = DecodePreemptionArgs(Fixture("preempt_args_full.json"));
  ASSERT_TRUE(full.ok());
  const ExtenderPreemptionResult rf = Ok(service->Preempt(kProfile, *full));
  ASSERT_EQ(rf.node_to_meta_victims.size(), 1u);
  EXPECT_EQ(rf.node_to_meta_victims.at("node-1").pod_uids,
            std::vector<std::string>{"7e1c5b0e-7d43-4c56-a3a1-0c7d1d6e0001"});
}

// Requests on many threads at once get the answers one alone gets.
TEST_F(ExtenderServiceTest, ParallelRequestsAgree) {
  auto created = Service(/*max_parallel_requests=*/3);
  ASSERT_NE(created, nullptr);
  ExtenderService& service = *created;
  const ExtenderArgs args = Args("filter_args_node_names.json");
  const std::string expected = FilterAnswer(service, args);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        auto r = service.Filter(kProfile, args);
        if (!std::holds_alternative<ExtenderFilterResult>(r) ||
            EncodeFilterResult(std::get<ExtenderFilterResult>(r)) != expected) {
          ++mismatches;
        }
        auto p = service.Prioritize(kProfile, args);
        if (!std::holds_alternative<std::vector<HostPriority>>(p)) ++mismatches;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// Requests while the informers' thread changes the cache, as in ksched:
// each request sees some consistent state (node-1 fits or is full), never
// an error, and once the changes stop the answer is the first one again.
// Under ThreadSanitizer (scripts/tsan.sh) this is what covers the
// extender's handlers against the cache without cpprest's threads, which
// TSan cannot follow.
TEST_F(ExtenderServiceTest, RequestsWhileTheCacheChanges) {
  auto created = Service(/*max_parallel_requests=*/3);
  ASSERT_NE(created, nullptr);
  ExtenderService& service = *created;
  const ExtenderArgs args = Args("filter_args_node_names.json");
  const std::string expected = FilterAnswer(service, args);

  std::atomic<bool> stop{false};
  std::atomic<int> errors{0};
  std::atomic<int> answers{0};
  std::vector<std::thread> requests;
  for (int t = 0; t < 4; ++t) {
    requests.emplace_back([&] {
      while (!stop.load()) {
        if (std::holds_alternative<VerbError>(service.Filter(kProfile, args)))
          ++errors;
        if (std::holds_alternative<VerbError>(
                service.Prioritize(kProfile, args)))
          ++errors;
        ++answers;
      }
    });
  }
  // node-1 (4 cpu) fills with 1-cpu pods and empties again, at least 20
  // times and until the requests have had 50 answers.
  for (int round = 0; round < 20 || answers.load() < 50; ++round) {
    std::vector<api::Pod> placed;
    for (int i = 0; i < 4; ++i) {
      PodBuilder pod =
          PodBuilder("filler-" + std::to_string(i))
              .Uid("filler-" + std::to_string(round) + "-" + std::to_string(i))
              .Node("node-1")
              .Req({{"cpu", "1"}});
      placed.push_back(pod.Obj());
      AddPod(pod);
    }
    for (const api::Pod& pod : placed) {
      ASSERT_TRUE(cache_.RemovePod(pod).ok());
    }
  }
  stop = true;
  for (auto& t : requests) t.join();

  EXPECT_EQ(errors.load(), 0);
  EXPECT_GT(answers.load(), 0);
  EXPECT_EQ(FilterAnswer(service, args), expected);
}

}  // namespace
}  // namespace ksched::extender
