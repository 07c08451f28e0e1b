// RestWriter's ResourceClaim reads and writes against the test API server
// (which answers as the recorded kube-apiserver v1.35 does): PreBind's
// finalizer and allocation, a stale write (409), an allocation for no
// request of the claim (422), and Unreserve's strategic merge patch, its
// body exactly kube-scheduler's.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "pkg/api/codec.h"
#include "pkg/apiwriter/requests.h"
#include "pkg/apiwriter/rest_writer.h"
#include "pkg/client/cpprest_transport.h"
#include "pkg/client/rest_client.h"
#include "pkg/util/clock.h"
#include "pkg/util/logger.h"
#include "pkg/util/random.h"
#include "test/apiserver/test_api_server.h"

namespace ksched::apiwriter {
namespace rest_writer_claims_test {
namespace {

constexpr char kClaims[] =
    "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims";
constexpr char kFinalizer[] = "resource.kubernetes.io/delete-protection";

constexpr char kClaim[] = R"({"apiVersion":"resource.k8s.io/v1",
  "kind":"ResourceClaim","metadata":{"name":"gpu","namespace":"default"},
  "spec":{"devices":{"requests":[{"name":"gpu","exactly":{
    "deviceClassName":"gpu.example.com"}}]}}})";

class RestWriterClaimsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = ksched::testing::TestApiServer::Start();
    ASSERT_NE(server_, nullptr);
    client::RestConfig config;
    config.server = server_->url();
    config.ca_pem = server_->ca_pem();
    config.bearer_token = server_->token();
    auto transport = client::CpprestTransport::Create(config, clock_, {});
    ASSERT_TRUE(transport.ok()) << transport.error().message();
    client::RestClientOptions options;
    options.qps = 1e6;
    options.burst = 1000000;
    // An unreachable server fails fast (the client's retries have their
    // own tests).
    options.backoff.max_retries = 1;
    client_ = std::make_unique<client::RestClient>(
        std::move(*transport), clock_, random_,
        [](util::Clock::Duration d) { std::this_thread::sleep_for(d); },
        options);
    writer_ = std::make_unique<RestWriter>(*client_, clock_, log_,
                                           RestWriterOptions{.host = "test"});
    ASSERT_EQ(server_->Create(kClaims, kClaim).code, 201);
  }

  // The claim allocated to node-1's gpu-0 and reserved for `pod_uid`.
  static api::ResourceClaim Allocated(api::ResourceClaim claim,
                                      const std::string& request,
                                      const std::string& pod_uid) {
    api::AllocationResult allocation;
    api::DeviceRequestAllocationResult result;
    result.request = request;
    result.driver = "gpu.example.com";
    result.pool = "node-1";
    result.device = "gpu-0";
    allocation.devices.results.push_back(result);
    claim.status.allocation = allocation;
    api::ResourceClaimConsumerReference consumer;
    consumer.resource = "pods";
    consumer.name = "pod-" + pod_uid;
    consumer.uid = pod_uid;
    claim.status.reserved_for.push_back(consumer);
    return claim;
  }

  util::RealClock clock_;
  util::DefaultRandom random_;
  util::RecordingLogger log_;
  std::unique_ptr<ksched::testing::TestApiServer> server_;
  std::unique_ptr<client::RestClient> client_;
  std::unique_ptr<RestWriter> writer_;
};

TEST_F(RestWriterClaimsTest, PreBindWritesThenUnreserve) {
  framework::ClaimWrite got = writer_->GetResourceClaim("default", "gpu");
  ASSERT_TRUE(got.ok()) << got.error;
  EXPECT_EQ(got.code, 200);
  EXPECT_EQ(got.claim->spec.devices.requests.size(), 1u);

  // The finalizer, with an update of the object.
  api::ResourceClaim claim = *got.claim;
  claim.metadata.finalizers.push_back(kFinalizer);
  framework::ClaimWrite finalized = writer_->UpdateResourceClaim(claim);
  ASSERT_TRUE(finalized.ok()) << finalized.error;
  EXPECT_EQ(finalized.claim->metadata.finalizers,
            std::vector<std::string>{kFinalizer});
  EXPECT_NE(finalized.claim->metadata.resource_version,
            claim.metadata.resource_version);

  // Allocation and reservation, with an update of the status.
  framework::ClaimWrite reserved = writer_->UpdateResourceClaimStatus(
      Allocated(*finalized.claim, "gpu", "pod-uid-1"));
  ASSERT_TRUE(reserved.ok()) << reserved.error;
  ASSERT_TRUE(reserved.claim->status.allocation.has_value());
  EXPECT_EQ(reserved.claim->status.allocation->devices.results[0].device,
            "gpu-0");
  ASSERT_EQ(reserved.claim->status.reserved_for.size(), 1u);

  // The same update again: its resourceVersion is stale.
  framework::ClaimWrite stale = writer_->UpdateResourceClaimStatus(
      Allocated(*finalized.claim, "gpu", "pod-uid-1"));
  EXPECT_FALSE(stale.ok());
  EXPECT_TRUE(stale.conflict());
  EXPECT_EQ(stale.error,
            "Operation cannot be fulfilled on resourceclaims.resource.k8s.io "
            "\"gpu\": the object has been modified; please apply your changes "
            "to the latest version and try again");

  // Unreserve: the pod leaves reservedFor, the allocation stays.
  EXPECT_TRUE(writer_->UnreserveResourceClaim(*reserved.claim, "pod-uid-1")
                  .IsSuccess());
  framework::ClaimWrite after = writer_->GetResourceClaim("default", "gpu");
  ASSERT_TRUE(after.ok()) << after.error;
  EXPECT_TRUE(after.claim->status.reserved_for.empty());
  EXPECT_TRUE(after.claim->status.allocation.has_value());
  EXPECT_EQ(after.claim->metadata.finalizers,
            std::vector<std::string>{kFinalizer});
  EXPECT_EQ(server_->RequestCount("PATCH", "/resourceclaims/gpu/status"), 1);

  // A claim recreated under the same name is not unreserved (422).
  api::ResourceClaim other = *reserved.claim;
  other.metadata.uid = "00000000-0000-0000-0000-000000000000";
  const framework::Status refused =
      writer_->UnreserveResourceClaim(other, "pod-uid-1");
  EXPECT_FALSE(refused.IsSuccess());
  EXPECT_EQ(refused.Message(),
            "ResourceClaim.resource.k8s.io \"gpu\" is invalid: metadata.uid: "
            "Invalid value: \"00000000-0000-0000-0000-000000000000\": field "
            "is immutable");
}

TEST_F(RestWriterClaimsTest, AllocationForNoRequestIsInvalid) {
  framework::ClaimWrite got = writer_->GetResourceClaim("default", "gpu");
  ASSERT_TRUE(got.ok()) << got.error;
  framework::ClaimWrite invalid = writer_->UpdateResourceClaimStatus(
      Allocated(*got.claim, "no-such-request", "pod-uid-1"));
  EXPECT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.code, 422);
  EXPECT_FALSE(invalid.conflict());
  EXPECT_EQ(invalid.error,
            "ResourceClaim.resource.k8s.io \"gpu\" is invalid: "
            "status.allocation.devices.results[0].request: Invalid value: "
            "\"no-such-request\": must be the name of a request in the claim "
            "or the name of a request and a subrequest separated by '/'");
}

TEST_F(RestWriterClaimsTest, MissingClaimAndNoServer) {
  framework::ClaimWrite missing = writer_->GetResourceClaim("default", "none");
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(missing.code, 404);
  EXPECT_EQ(missing.error, "resourceclaims.resource.k8s.io \"none\" not found");
  server_->Stop();
  framework::ClaimWrite unreachable =
      writer_->GetResourceClaim("default", "gpu");
  EXPECT_FALSE(unreachable.ok());
  EXPECT_EQ(unreachable.code, 0);
  EXPECT_FALSE(unreachable.error.empty());
}

// kube-scheduler's Unreserve body, byte for byte (its spacing included).
TEST(UnreservePatchTest, IsKubeSchedulersBody) {
  EXPECT_EQ(UnreservePatch("claim-uid", "pod-uid"),
            R"({"metadata": {"uid": "claim-uid"}, "status": { "reservedFor": )"
            R"([ {"$patch": "delete", "uid": "pod-uid"} ] }})");
}

}  // namespace
}  // namespace rest_writer_claims_test
}  // namespace ksched::apiwriter
