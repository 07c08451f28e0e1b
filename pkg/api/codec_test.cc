#include "pkg/api/codec.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "pkg/api/pod_resources.h"

namespace ksched::api {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Fixture(const std::string& name) {
  return ReadFile(std::string(KSCHED_SOURCE_DIR) + "/test/fixtures/objects/" +
                  name);
}

std::string Recorded(const std::string& name) {
  return ReadFile(std::string(KSCHED_SHARED_DIR) + "/apiserver/" + name);
}

// Two JSON texts denote the same document (member order aside).
void ExpectSameJson(const std::string& a, const std::string& b) {
  rapidjson::Document da, db;
  da.Parse(a.c_str());
  db.Parse(b.c_str());
  ASSERT_FALSE(da.HasParseError()) << a;
  ASSERT_FALSE(db.HasParseError()) << b;
  EXPECT_TRUE(da == db) << a << "\n  vs\n" << b;
}

Quantity Q(const char* s) { return *Quantity::Parse(s); }

TEST(CodecTest, DecodesAFullPodAsKubectlPrintsIt) {
  auto pod = DecodeJson<Pod>(Fixture("pod_full.json"));
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  const ObjectMeta& m = pod->metadata;
  EXPECT_EQ(m.name, "checkout-7c9f8d6b5-x2kq9");
  EXPECT_EQ(m.generate_name, "checkout-7c9f8d6b5-");
  EXPECT_EQ(m.ns, "shop");
  EXPECT_EQ(m.uid, "6f1e2d3c-4b5a-4978-8a9b-0c1d2e3f4a5b");
  EXPECT_EQ(m.resource_version, "8813001");
  EXPECT_EQ(FormatRfc3339(m.creation_timestamp.value), "2026-11-21T19:20:31Z");
  ASSERT_EQ(m.labels.size(), 3u);
  EXPECT_EQ(*m.labels.Find("tier"), "backend");
  ASSERT_EQ(m.owner_references.size(), 1u);
  EXPECT_EQ(m.owner_references[0].kind, "ReplicaSet");
  EXPECT_EQ(m.owner_references[0].controller, true);

  const PodSpec& s = pod->spec;
  EXPECT_EQ(s.scheduler_name, "ksched");
  EXPECT_EQ(s.priority, 100000);
  EXPECT_EQ(s.priority_class_name, "business-critical");
  EXPECT_EQ(s.preemption_policy, PreemptionPolicy::kPreemptLowerPriority);
  EXPECT_EQ(s.service_account_name, "checkout");
  EXPECT_EQ(*s.node_selector.Find("kubernetes.io/os"), "linux");
  ASSERT_EQ(s.containers.size(), 2u);
  EXPECT_EQ(*s.containers[0].resources.requests.Find("cpu"), Q("250m"));
  EXPECT_EQ(*s.containers[0].resources.limits.Find("memory"), Q("1Gi"));
  EXPECT_EQ(s.containers[1].ports[0].host_port, 9901);
  EXPECT_EQ(s.containers[1].ports[0].host_ip, "127.0.0.1");
  ASSERT_EQ(s.init_containers.size(), 2u);
  EXPECT_EQ(s.init_containers[1].restart_policy, "Always");
  EXPECT_EQ(*s.overhead.Find("memory"), Q("16Mi"));

  ASSERT_EQ(s.tolerations.size(), 3u);
  EXPECT_EQ(s.tolerations[0].op, TolerationOperator::kExists);
  EXPECT_EQ(s.tolerations[0].effect, TaintEffect::kNoExecute);
  EXPECT_EQ(s.tolerations[0].toleration_seconds, 300);
  EXPECT_EQ(s.tolerations[2].value, "shop");

  ASSERT_TRUE(s.affinity.has_value());
  const NodeAffinity& na = *s.affinity->node_affinity;
  ASSERT_TRUE(na.required.has_value());
  const auto& expr = na.required->node_selector_terms[0].match_expressions;
  ASSERT_EQ(expr.size(), 2u);
  EXPECT_EQ(expr[0].op, NodeSelectorOperator::kIn);
  EXPECT_EQ(expr[0].values, (std::vector<std::string>{"amd64", "arm64"}));
  EXPECT_EQ(expr[1].op, NodeSelectorOperator::kDoesNotExist);
  EXPECT_EQ(na.preferred[0].weight, 30);
  const PodAffinity& anti = *s.affinity->pod_anti_affinity;
  EXPECT_EQ(anti.preferred[0].weight, 100);
  EXPECT_EQ(anti.preferred[0].pod_affinity_term.topology_key,
            "kubernetes.io/hostname");
  ASSERT_TRUE(anti.required[0].namespace_selector.has_value());
  EXPECT_TRUE(anti.required[0].namespace_selector->match_labels.empty());
  EXPECT_FALSE(s.affinity->pod_affinity.has_value());

  ASSERT_EQ(s.topology_spread_constraints.size(), 1u);
  const TopologySpreadConstraint& c = s.topology_spread_constraints[0];
  EXPECT_EQ(c.max_skew, 1);
  EXPECT_EQ(c.min_domains, 3);
  EXPECT_EQ(c.when_unsatisfiable,
            UnsatisfiableConstraintAction::kDoNotSchedule);
  EXPECT_EQ(c.node_affinity_policy, NodeInclusionPolicy::kHonor);
  EXPECT_EQ(c.node_taints_policy, NodeInclusionPolicy::kIgnore);
  EXPECT_EQ(c.match_label_keys, std::vector<std::string>{"pod-template-hash"});

  ASSERT_EQ(s.volumes.size(), 3u);
  EXPECT_EQ(s.volumes[0].persistent_volume_claim->claim_name, "checkout-data");
  EXPECT_TRUE(s.volumes[1].ephemeral.has_value());
  EXPECT_FALSE(s.volumes[2].persistent_volume_claim.has_value());

  EXPECT_EQ(pod->status.phase, "Pending");
  EXPECT_EQ(pod->status.nominated_node_name, "worker-3");
  ASSERT_EQ(pod->status.conditions.size(), 1u);
  EXPECT_EQ(pod->status.conditions[0].reason, "Unschedulable");
  EXPECT_FALSE(pod->status.conditions[0].last_probe_time.has_value());
}

TEST(CodecTest, DecodesAFullNodeAsKubectlPrintsIt) {
  auto node = DecodeJson<Node>(Fixture("node_full.json"));
  ASSERT_TRUE(node.ok()) << node.error().message();
  EXPECT_EQ(node->metadata.name, "worker-3");
  EXPECT_EQ(*node->metadata.labels.Find("topology.kubernetes.io/zone"),
            "eu-west-1b");
  EXPECT_EQ(node->spec.pod_cidr, "10.244.3.0/24");
  EXPECT_EQ(node->spec.provider_id, "aws:///eu-west-1b/i-0abc123def4567890");
  ASSERT_EQ(node->spec.taints.size(), 3u);
  EXPECT_EQ(node->spec.taints[0].effect, TaintEffect::kNoSchedule);
  EXPECT_EQ(node->spec.taints[1].value, "");
  EXPECT_EQ(node->spec.taints[1].effect, TaintEffect::kPreferNoSchedule);
  ASSERT_TRUE(node->spec.taints[2].time_added.has_value());
  EXPECT_EQ(FormatRfc3339(node->spec.taints[2].time_added->value),
            "2026-11-21T10:02:03Z");
  const ResourceList& a = node->status.allocatable;
  EXPECT_EQ(a.Find("cpu")->MilliValue(), 7910);
  EXPECT_EQ(a.Find("memory")->Value(), 31863772LL * 1024);
  EXPECT_EQ(a.Find("ephemeral-storage")->Value(), 94262504090LL);
  EXPECT_EQ(a.Find("hugepages-2Mi")->Value(), 256LL << 20);
  EXPECT_EQ(a.Find("nvidia.com/gpu")->Value(), 2);
  EXPECT_EQ(a.Find("pods")->Value(), 110);
  ASSERT_EQ(node->status.images.size(), 2u);
  EXPECT_EQ(node->status.images[0].names.size(), 2u);
  EXPECT_EQ(node->status.images[1].size_bytes, 72950531);
  ASSERT_EQ(node->status.conditions.size(), 2u);
  EXPECT_EQ(node->status.conditions[1].type, "Ready");
  EXPECT_EQ(node->status.conditions[1].status, "True");
}

TEST(CodecTest, PodAndNodeRoundTripThroughJson) {
  for (const char* name : {"pod_full.json"}) {
    auto first = DecodeJson<Pod>(Fixture(name));
    ASSERT_TRUE(first.ok()) << first.error().message();
    std::string encoded = EncodeJson(*first);
    auto second = DecodeJson<Pod>(encoded);
    ASSERT_TRUE(second.ok()) << second.error().message();
    EXPECT_EQ(*first, *second) << encoded;
    EXPECT_EQ(encoded, EncodeJson(*second));
  }
  auto node = DecodeJson<Node>(Fixture("node_full.json"));
  ASSERT_TRUE(node.ok());
  auto again = DecodeJson<Node>(EncodeJson(*node));
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(*node, *again);
}

TEST(CodecTest, EncodesKnownFieldsAsKubernetesWritesThem) {
  auto node = DecodeJson<Node>(Fixture("node_full.json"));
  ASSERT_TRUE(node.ok());
  std::string json = EncodeJson(*node);
  // apiVersion and kind first; quantities canonical; empty taint value left
  // out (omitempty) but effect always written.
  EXPECT_TRUE(
      json.starts_with(R"({"apiVersion":"v1","kind":"Node","metadata":)"))
      << json;
  EXPECT_NE(json.find(R"("cpu":"7910m")"), std::string::npos);
  EXPECT_NE(json.find(R"("memory":"31863772Ki")"), std::string::npos);
  EXPECT_NE(json.find(R"({"key":"maintenance","effect":"PreferNoSchedule"})"),
            std::string::npos)
      << json;
}

// status.startTime (set by the kubelet) orders preemption victims.
TEST(CodecTest, PodStartTimeRoundTrips) {
  auto pod =
      DecodeJson<Pod>(R"({"metadata":{"name":"p"},"status":{"phase":"Running",)"
                      R"("startTime":"2026-11-21T19:37:04Z"}})");
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  ASSERT_TRUE(pod->status.start_time.has_value());
  EXPECT_EQ(FormatRfc3339(pod->status.start_time->value),
            "2026-11-21T19:37:04Z");
  EXPECT_NE(EncodeJson(*pod).find(R"("startTime":"2026-11-21T19:37:04Z")"),
            std::string::npos);
  auto pending = DecodeJson<Pod>(R"({"metadata":{"name":"p"},"status":{}})");
  ASSERT_TRUE(pending.ok());
  EXPECT_FALSE(pending->status.start_time.has_value());
}

TEST(CodecTest, DecodesRecordedApiServerObjects) {
  auto bound = DecodeJson<Pod>(Recorded("real_kube_scheduler_bound_pod.json"));
  ASSERT_TRUE(bound.ok()) << bound.error().message();
  EXPECT_EQ(bound->metadata.name, "default-sched-pod");
  EXPECT_FALSE(bound->spec.node_name.empty());
  EXPECT_EQ(bound->spec.scheduler_name, "default-scheduler");
  EXPECT_EQ(
      bound->spec.containers[0].resources.requests.Find("cpu")->MilliValue(),
      100);
  // The API server adds the not-ready/unreachable tolerations.
  ASSERT_EQ(bound->spec.tolerations.size(), 2u);
  EXPECT_EQ(bound->spec.tolerations[0].toleration_seconds, 300);

  auto unschedulable =
      DecodeJson<Pod>(Recorded("real_kube_scheduler_unschedulable_pod.json"));
  ASSERT_TRUE(unschedulable.ok()) << unschedulable.error().message();
  ASSERT_EQ(unschedulable->status.conditions.size(), 1u);
  EXPECT_EQ(unschedulable->status.conditions[0].message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 "
            "nodes are available: 1 No preemption victims found for incoming "
            "pod.");

  auto nodes = DecodeJson<NodeList>(Recorded("nodes_list.json"));
  ASSERT_TRUE(nodes.ok()) << nodes.error().message();
  ASSERT_EQ(nodes->items.size(), 1u);
  EXPECT_EQ(nodes->items[0].metadata.name, "node-1");
  EXPECT_EQ(nodes->items[0].status.allocatable.Find("memory")->Value(),
            8LL << 30);
  EXPECT_FALSE(nodes->metadata.resource_version.empty());

  auto page = DecodeJson<PodList>(Recorded("pods_unscheduled_limit2.json"));
  ASSERT_TRUE(page.ok()) << page.error().message();
  EXPECT_EQ(page->items.size(), 2u);
  EXPECT_FALSE(page->metadata.continue_token.empty());
  // A field-selected list does not know how many items remain.
  EXPECT_FALSE(page->metadata.remaining_item_count.has_value());

  auto lease = DecodeJson<Lease>(Recorded("real_kube_scheduler_lease.json"));
  ASSERT_TRUE(lease.ok()) << lease.error().message();
  EXPECT_EQ(lease->metadata.name, "kube-scheduler");
  EXPECT_EQ(lease->spec.lease_duration_seconds, 15);
  ASSERT_TRUE(lease->spec.holder_identity.has_value());
  ASSERT_TRUE(lease->spec.renew_time.has_value());
}

TEST(CodecTest, DecodesStatusErrors) {
  auto conflict = DecodeJson<Status>(Recorded("binding_second_time_409.json"));
  ASSERT_TRUE(conflict.ok()) << conflict.error().message();
  EXPECT_EQ(conflict->status, "Failure");
  EXPECT_EQ(conflict->reason, "Conflict");
  EXPECT_EQ(conflict->code, 409);
  ASSERT_TRUE(conflict->details.has_value());
  EXPECT_EQ(conflict->details->kind, "pods/binding");
  EXPECT_EQ(conflict->message,
            "Operation cannot be fulfilled on pods/binding \"bind-me\": pod "
            "bind-me is already assigned to node \"node-1\"");

  auto expired = DecodeJson<Status>(Recorded("list_rv1_exact_410.json"));
  ASSERT_TRUE(expired.ok()) << expired.error().message();
  EXPECT_EQ(expired->code, 410);
  EXPECT_EQ(expired->reason, "Expired");

  auto created = DecodeJson<Status>(Recorded("binding_success_201.json"));
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created->status, "Success");
  EXPECT_EQ(created->code, 201);
}

TEST(CodecTest, EncodesABindingAsTheRecordedRequest) {
  Binding b;
  b.metadata.name = "bind-me";
  b.metadata.ns = "default";
  b.target.api_version = "v1";
  b.target.kind = "Node";
  b.target.name = "node-1";
  ExpectSameJson(EncodeJson(b), Recorded("binding_success_201.request.json"));
}

TEST(CodecTest, EventRoundTripsAndMatchesTheRecordedRequest) {
  std::string request = Recorded("event_create_events_v1_201.request.json");
  auto event = DecodeJson<Event>(request);
  ASSERT_TRUE(event.ok()) << event.error().message();
  EXPECT_EQ(event->reason, "FailedScheduling");
  EXPECT_EQ(event->regarding.kind, "Pod");
  EXPECT_EQ(FormatRfc3339Micro(event->event_time.value),
            "2026-11-21T19:38:49.127530Z");
  ExpectSameJson(EncodeJson(*event), request);
}

TEST(CodecTest, LeaseUpdateMatchesTheRecordedRequest) {
  std::string request = Recorded("lease_update_put_200.request.json");
  auto lease = DecodeJson<Lease>(request);
  ASSERT_TRUE(lease.ok()) << lease.error().message();
  EXPECT_EQ(lease->spec.lease_transitions, 0);
  std::string encoded = EncodeJson(*lease);
  // managedFields is not modelled; everything else survives.
  rapidjson::Document want;
  want.Parse(request.c_str());
  want["metadata"].RemoveMember("managedFields");
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  want.Accept(w);
  ExpectSameJson(encoded, buf.GetString());
}

TEST(CodecTest, WrongTypeNamesTheJsonPath) {
  struct Case {
    const char* json;
    const char* message;
  } cases[] = {
      {R"({"spec":{"containers":[{"name":"a"},{"name":"b","resources":{"requests":{"cpu":true}}}]}})",
       "spec.containers[1].resources.requests.cpu: expected quantity (string "
       "or number), got bool"},
      {R"({"metadata":{"name":5}})",
       "metadata.name: expected string, got number"},
      {R"({"metadata":{"labels":{"a":1}}})",
       "metadata.labels.a: expected string, got number"},
      {R"({"spec":{"priority":"high"}})",
       "spec.priority: expected integer, got string"},
      {R"({"spec":{"priority":3000000000}})",
       "spec.priority: expected 32-bit integer, got 3000000000"},
      {R"({"spec":{"tolerations":{}}})",
       "spec.tolerations: expected array, got object"},
      {R"({"spec":{"containers":[{"resources":{"requests":{"memory":"1 Gi"}}}]}})",
       "spec.containers[0].resources.requests.memory: "},
      {R"({"metadata":{"creationTimestamp":"yesterday"}})",
       "metadata.creationTimestamp: invalid RFC 3339 time \"yesterday\""},
      {R"({"spec":{"hostNetwork":"yes"}})",
       "spec.hostNetwork: expected bool, got string"},
      {R"([1,2])", "expected object, got array"},
  };
  for (const Case& c : cases) {
    auto pod = DecodeJson<Pod>(c.json);
    ASSERT_FALSE(pod.ok()) << c.json;
    EXPECT_TRUE(pod.error().message().starts_with(c.message))
        << c.json << "\n  got: " << pod.error().message();
  }
}

// A pod resized in place, as kube-apiserver v1.35 returns it: its spec
// asks for 500m / 256Mi, its status reports 2 / 1Gi allocated and applied.
TEST(CodecTest, DecodesAResizedPodAndCountsItsStatus) {
  auto pod = DecodeJson<Pod>(Recorded("v1.35/get-pod-resized.json"));
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  ASSERT_EQ(pod->status.container_statuses.size(), 1u);
  const ContainerStatus& cs = pod->status.container_statuses[0];
  EXPECT_EQ(cs.name, "app");
  EXPECT_EQ(*cs.allocated_resources.Find("cpu"), Q("2"));
  EXPECT_EQ(*cs.allocated_resources.Find("memory"), Q("1Gi"));
  ASSERT_TRUE(cs.resources.has_value());
  EXPECT_EQ(*cs.resources->requests.Find("cpu"), Q("2"));
  EXPECT_EQ(*cs.resources->limits.Find("memory"), Q("512Mi"));
  EXPECT_TRUE(pod->status.init_container_statuses.empty());
  EXPECT_FALSE(pod->spec.resources.has_value());

  // v1.35 counts the larger per container (InPlacePodVerticalScaling on).
  ResourceList held =
      PodRequests(*pod, PodResourcesOptionsFor(ResourceFeatures{}));
  EXPECT_EQ(held.Find("cpu")->MilliValue(), 2000);
  EXPECT_EQ(held.Find("memory")->Value(), int64_t{1} << 30);
  // v1.32 (gate off) only the spec.
  ResourceList spec = PodRequests(
      *pod, PodResourcesOptionsFor({.in_place_pod_vertical_scaling = false,
                                    .pod_level_resources = false}));
  EXPECT_EQ(spec.Find("cpu")->MilliValue(), 500);
  EXPECT_EQ(spec.Find("memory")->Value(), int64_t{256} << 20);
}

// Pod-level requests (cpu 2, memory 2Gi) over two app containers and a
// sidecar with a hostPort, as kube-apiserver v1.35 created it.
TEST(CodecTest, DecodesPodLevelResourcesAndCountsThem) {
  auto pod =
      DecodeJson<Pod>(Recorded("v1.35/post-pod-podlevel-resources.json"));
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  ASSERT_TRUE(pod->spec.resources.has_value());
  EXPECT_EQ(*pod->spec.resources->requests.Find("cpu"), Q("2"));
  EXPECT_EQ(*pod->spec.resources->limits.Find("memory"), Q("4Gi"));
  ASSERT_EQ(pod->spec.init_containers.size(), 1u);
  EXPECT_EQ(pod->spec.init_containers[0].restart_policy, "Always");
  EXPECT_EQ(pod->spec.init_containers[0].ports[0].host_port, 9901);
  ASSERT_EQ(pod->spec.containers.size(), 2u);

  // The pod-level requests replace the containers' 250m / 128Mi.
  ResourceList r = PodRequests(*pod, {});
  EXPECT_EQ(r.Find("cpu")->MilliValue(), 2000);
  EXPECT_EQ(r.Find("memory")->Value(), int64_t{2} << 30);
  // Without PodLevelResources the containers' sum counts.
  ResourceList containers =
      PodRequests(*pod, {.skip_pod_level_resources = true});
  EXPECT_EQ(containers.Find("cpu")->MilliValue(), 250);
  EXPECT_EQ(containers.Find("memory")->Value(), int64_t{128} << 20);
  // Overhead (a RuntimeClass's) comes on top of the pod-level requests.
  Pod with_overhead = *pod;
  with_overhead.spec.overhead.Set("cpu", Q("250m"));
  with_overhead.spec.overhead.Set("memory", Q("120Mi"));
  ResourceList o = PodRequests(with_overhead, {});
  EXPECT_EQ(o.Find("cpu")->MilliValue(), 2250);
  EXPECT_EQ(o.Find("memory")->Value(), (int64_t{2} << 30) + (120 << 20));
  EXPECT_EQ(PodRequests(with_overhead, {.exclude_overhead = true})
                .Find("cpu")
                ->MilliValue(),
            2000);
}

// What a snapshot writes (simulate --snapshot-out) reads back the same:
// pod-level resources and the resize in the status included.
TEST(CodecTest, ResourceFieldsRoundTrip) {
  for (const char* name : {"v1.35/get-pod-resized.json",
                           "v1.35/post-pod-podlevel-resources.json"}) {
    SCOPED_TRACE(name);
    auto pod = DecodeJson<Pod>(Recorded(name));
    ASSERT_TRUE(pod.ok()) << pod.error().message();
    std::string encoded = EncodeJson(*pod);
    auto again = DecodeJson<Pod>(encoded);
    ASSERT_TRUE(again.ok()) << again.error().message();
    EXPECT_TRUE(*again == *pod) << encoded;
  }
  // Written as Kubernetes writes them: absent stays absent, the container
  // status's name always.
  Pod pod;
  pod.spec.resources.emplace().requests.Set("cpu", Q("1"));
  ContainerStatus cs;
  cs.name = "app";
  cs.allocated_resources.Set("memory", Q("1Gi"));
  pod.status.container_statuses.push_back(cs);
  pod.status.init_container_statuses.push_back(ContainerStatus{"init", {}, {}});
  std::string json = EncodeJson(pod);
  EXPECT_NE(json.find(R"("resources":{"requests":{"cpu":"1"}})"),
            std::string::npos)
      << json;
  EXPECT_NE(
      json.find(
          R"("containerStatuses":[{"name":"app","allocatedResources":{"memory":"1Gi"}}])"),
      std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("initContainerStatuses":[{"name":"init"}])"),
            std::string::npos)
      << json;
  EXPECT_EQ(json.find(R"("status":{"resources")"), std::string::npos) << json;
}

TEST(CodecTest, ResourceFieldsOfTheWrongTypeNameTheirPath) {
  struct Case {
    const char* json;
    const char* message;
  } cases[] = {
      {R"({"spec":{"resources":[]}})",
       "spec.resources: expected object, got array"},
      {R"({"spec":{"resources":{"requests":{"cpu":"lots"}}}})",
       "spec.resources.requests.cpu: "},
      {R"({"status":{"containerStatuses":{}}})",
       "status.containerStatuses: expected array, got object"},
      {R"({"status":{"containerStatuses":[{"name":"a","resources":{"requests":{"cpu":false}}}]}})",
       "status.containerStatuses[0].resources.requests.cpu: expected quantity "
       "(string or number), got bool"},
      {R"({"status":{"initContainerStatuses":[{"name":7}]}})",
       "status.initContainerStatuses[0].name: expected string, got number"},
      {R"({"status":{"containerStatuses":[{"allocatedResources":"2"}]}})",
       "status.containerStatuses[0].allocatedResources: expected object, got "
       "string"},
      {R"({"status":{"resources":{"limits":1}}})",
       "status.resources.limits: expected object, got number"},
      {R"({"status":{"allocatedResources":{"memory":[]}}})",
       "status.allocatedResources.memory: "},
  };
  for (const Case& c : cases) {
    auto pod = DecodeJson<Pod>(c.json);
    ASSERT_FALSE(pod.ok()) << c.json;
    EXPECT_TRUE(pod.error().message().starts_with(c.message))
        << c.json << "\n  got: " << pod.error().message();
  }
}

// The fields NodeDeclaredFeatures reads, spelled and nested as the API
// server writes them: restart rules on containers and init containers,
// spec.hostUsers, and the node's declared features.
// An image volume (ImageVolume, GA in v1.36) as the recorded v1.36 pod
// has it: its reference and pull policy read and written back.
TEST(CodecTest, ImageVolumeRoundTrip) {
  const std::string pod_json =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{)"
      R"("volumes":[{"name":"model","image":{"reference":)"
      R"("registry.example/models/llm:v1","pullPolicy":"IfNotPresent"}}],)"
      R"("containers":[{"name":"app","resources":{}}]},"status":{}})";
  auto pod = DecodeJson<Pod>(pod_json);
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  ASSERT_EQ(pod->spec.volumes.size(), 1u);
  ASSERT_TRUE(pod->spec.volumes[0].image.has_value());
  EXPECT_EQ(pod->spec.volumes[0].image->reference,
            "registry.example/models/llm:v1");
  EXPECT_EQ(pod->spec.volumes[0].image->pull_policy, "IfNotPresent");
  EXPECT_NE(EncodeJson(*pod).find(
                R"("volumes":[{"name":"model","image":{"reference":)"
                R"("registry.example/models/llm:v1","pullPolicy":)"
                R"("IfNotPresent"}}])"),
            std::string::npos)
      << EncodeJson(*pod);
}

TEST(CodecTest, DeclaredFeatureFieldsRoundTrip) {
  const std::string pod_json =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{)"
      R"("initContainers":[{"name":"init","resources":{},"restartPolicy":"Never",)"
      R"("restartPolicyRules":[{"action":"RestartAllContainers",)"
      R"("exitCodes":{"operator":"In","values":[42,137]}}]}],)"
      R"("containers":[{"name":"app","resources":{},"restartPolicy":"Never",)"
      R"("restartPolicyRules":[{"action":"Restart","exitCodes":)"
      R"({"operator":"NotIn"}},{"action":"RestartAllContainers"}]}],)"
      R"("hostNetwork":true,"hostUsers":false},"status":{}})";
  auto pod = DecodeJson<Pod>(pod_json);
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  const PodSpec& s = pod->spec;
  ASSERT_EQ(s.init_containers.size(), 1u);
  ASSERT_EQ(s.init_containers[0].restart_policy_rules.size(), 1u);
  const ContainerRestartRule& init_rule =
      s.init_containers[0].restart_policy_rules[0];
  EXPECT_EQ(init_rule.action, "RestartAllContainers");
  ASSERT_TRUE(init_rule.exit_codes.has_value());
  EXPECT_EQ(init_rule.exit_codes->op, "In");
  EXPECT_EQ(init_rule.exit_codes->values, (std::vector<int32_t>{42, 137}));
  ASSERT_EQ(s.containers[0].restart_policy_rules.size(), 2u);
  EXPECT_EQ(s.containers[0].restart_policy_rules[0].action, "Restart");
  ASSERT_TRUE(s.containers[0].restart_policy_rules[0].exit_codes.has_value());
  EXPECT_EQ(s.containers[0].restart_policy_rules[0].exit_codes->op, "NotIn");
  EXPECT_TRUE(
      s.containers[0].restart_policy_rules[0].exit_codes->values.empty());
  EXPECT_FALSE(s.containers[0].restart_policy_rules[1].exit_codes.has_value());
  EXPECT_TRUE(s.host_network);
  EXPECT_EQ(s.host_users, false);
  // Written back member for member (empty values and absent exit codes left
  // out, as omitempty does; resources always, as the API server does), and
  // read again to the same pod.
  const std::string encoded = EncodeJson(*pod);
  ExpectSameJson(encoded, pod_json);
  auto again = DecodeJson<Pod>(encoded);
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(*again, *pod);

  // hostUsers: true is written; unset is not.
  Pod plain;
  plain.spec.host_users = true;
  EXPECT_NE(EncodeJson(plain).find(R"("hostUsers":true)"), std::string::npos);
  plain.spec.host_users.reset();
  EXPECT_EQ(EncodeJson(plain).find("hostUsers"), std::string::npos);
  EXPECT_EQ(EncodeJson(plain).find("restartPolicyRules"), std::string::npos);

  const std::string node_json =
      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"spec":{},)"
      R"("status":{"declaredFeatures":["RestartAllContainersOnContainerExits",)"
      R"("UserNamespacesHostNetworkSupport"]}})";
  auto node = DecodeJson<Node>(node_json);
  ASSERT_TRUE(node.ok()) << node.error().message();
  EXPECT_EQ(node->status.declared_features,
            (std::vector<std::string>{"RestartAllContainersOnContainerExits",
                                      "UserNamespacesHostNetworkSupport"}));
  ExpectSameJson(EncodeJson(*node), node_json);
  auto node_again = DecodeJson<Node>(EncodeJson(*node));
  ASSERT_TRUE(node_again.ok());
  EXPECT_EQ(*node_again, *node);
  EXPECT_EQ(EncodeJson(Node{}).find("declaredFeatures"), std::string::npos);

  for (const auto& [json, message] :
       std::vector<std::pair<const char*, const char*>>{
           {R"({"spec":{"containers":[{"restartPolicyRules":[{"exitCodes":)"
            R"({"values":["one"]}}]}]}})",
            "spec.containers[0].restartPolicyRules[0].exitCodes.values[0]: "
            "expected integer, got string"},
           {R"({"spec":{"hostUsers":"no"}})",
            "spec.hostUsers: expected bool, got string"},
       }) {
    auto bad = DecodeJson<Pod>(json);
    ASSERT_FALSE(bad.ok()) << json;
    EXPECT_EQ(bad.error().message(), message);
  }
  auto bad_node = DecodeJson<Node>(R"({"status":{"declaredFeatures":[1]}})");
  ASSERT_FALSE(bad_node.ok());
  EXPECT_EQ(bad_node.error().message(),
            "status.declaredFeatures[0]: expected string, got number");
}

TEST(CodecTest, UnknownFieldsAndNullsAreIgnored) {
  auto pod = DecodeJson<Pod>(
      R"({"metadata":{"name":"p","futureField":{"x":[1,2]}},
          "spec":{"containers":null,"nodeName":null,"newThing":true},
          "status":{"phase":"Running","hostIP":"10.0.0.1"}})");
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  EXPECT_EQ(pod->metadata.name, "p");
  EXPECT_TRUE(pod->spec.containers.empty());
  EXPECT_EQ(pod->status.phase, "Running");
}

TEST(CodecTest, UnknownEnumValuesDecodeAsOther) {
  auto node = DecodeJson<Node>(
      R"({"spec":{"taints":[{"key":"k","effect":"NoScheduleInTheFuture"}]}})");
  ASSERT_TRUE(node.ok()) << node.error().message();
  EXPECT_EQ(node->spec.taints[0].effect, TaintEffect::kOther);
}

TEST(CodecTest, MalformedJsonIsAnErrorWithTheOffset) {
  for (const char* text :
       {"", "{", R"({"metadata":)", "{\"a\":1,}", "nul", "{\"a\":\"\\x\"}"}) {
    auto pod = DecodeJson<Pod>(text);
    ASSERT_FALSE(pod.ok()) << text;
    EXPECT_TRUE(pod.error().message().starts_with("malformed JSON at offset"))
        << pod.error().message();
  }
}

TEST(CodecTest, DeeplyNestedInputDoesNotExhaustTheStack) {
  std::string deep(200000, '[');
  deep += std::string(200000, ']');
  std::string json = R"({"metadata":{"name":"p","x":)" + deep + "}}";
  auto pod = DecodeJson<Pod>(json);
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  EXPECT_EQ(pod->metadata.name, "p");
}

TEST(CodecTest, QuantitiesAcceptJsonNumbersAsKubernetesDoes) {
  auto pod = DecodeJson<Pod>(
      R"({"spec":{"containers":[{"resources":{"requests":{"cpu":0.5,"memory":1024,"pods":" 3 "}}}]}})");
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  const ResourceList& r = pod->spec.containers[0].resources.requests;
  EXPECT_EQ(r.Find("cpu")->MilliValue(), 500);
  EXPECT_EQ(r.Find("memory")->Value(), 1024);
  EXPECT_EQ(r.Find("pods")->Value(), 3);
}

TEST(CodecTest, LenientScalarsTurnYamlTypedValuesIntoStrings) {
  const char* json =
      R"({"metadata":{"labels":{"version":2,"canary":true,"ratio":1.5}}})";
  EXPECT_FALSE(DecodeJson<Pod>(json).ok());
  JsonDecodeOptions lenient;
  lenient.lenient_scalars = true;
  auto pod = DecodeJson<Pod>(json, lenient);
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  EXPECT_EQ(*pod->metadata.labels.Find("version"), "2");
  EXPECT_EQ(*pod->metadata.labels.Find("canary"), "true");
  EXPECT_EQ(*pod->metadata.labels.Find("ratio"), "1.5");
}

TEST(CodecTest, BasePathPrefixesErrors) {
  JsonDecodeOptions options;
  options.base_path = "items[3]";
  auto pod = DecodeJson<Pod>(R"({"metadata":{"name":1}})", options);
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.error().message(),
            "items[3].metadata.name: expected string, got number");
}

TEST(CodecTest, PriorityClassAndNamespaceDecode) {
  auto pc = DecodeJson<PriorityClass>(
      R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"high"},"value":1000,"globalDefault":true,"preemptionPolicy":"Never"})");
  ASSERT_TRUE(pc.ok()) << pc.error().message();
  EXPECT_EQ(pc->value, 1000);
  EXPECT_TRUE(pc->global_default);
  EXPECT_EQ(pc->preemption_policy, PreemptionPolicy::kNever);
  auto ns = DecodeJson<Namespace>(
      R"({"metadata":{"name":"shop","labels":{"team":"payments"}}})");
  ASSERT_TRUE(ns.ok());
  EXPECT_EQ(*ns->metadata.labels.Find("team"), "payments");
}

}  // namespace
}  // namespace ksched::api
