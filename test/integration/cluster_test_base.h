// ClusterTestBase: a test API server per test, the real ksched binary
// pointed at it, and the helpers the integration tests share to create
// objects and check what was bound.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pkg/api/objects.h"
#include "pkg/client/rest_config.h"
#include "pkg/client/transport.h"
#include "pkg/util/result.h"
#include "test/apiserver/test_api_server.h"
#include "test/integration/ksched_process.h"

namespace ksched::testing {

// GET `path` of `config`'s server, whatever it serves (ksched, Prometheus);
// code -1 when nothing answered.
client::HttpResponse GetFrom(const client::RestConfig& config,
                             const std::string& path);

class ClusterTestBase : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Starts ksched with the kubeconfig written in SetUp, at --v 2, without
  // the extender or metrics unless `extra_args` gives their bind address.
  void StartKsched(const std::vector<std::string>& extra_args = {});
  // StartKsched with scheduler-plugins' profile (Coscheduling at every
  // point it has, and as the queue's order), `args` the plugin's, and no
  // leader election.
  void StartGangScheduler(
      const std::string& args = "permitWaitingTimeSeconds: 60");
  // Another ksched process, as StartKsched starts one (replicas).
  std::unique_ptr<KschedProcess> LaunchKsched(
      const std::vector<std::string>& extra_args = {});

  void Create(const std::string& collection, const std::string& json);
  void CreateNode(const std::string& name, const std::string& cpu);
  void CreatePod(const std::string& name, const std::string& cpu,
                 const std::string& scheduler = "ksched");
  // Binds the pod as another scheduler would; the server's answer code.
  int BindElsewhere(const std::string& pod, const std::string& node);

  // GET http://127.0.0.1:<port><path> (ksched's metrics and health);
  // code -1 when nothing answered.
  client::HttpResponse HttpGet(int port, const std::string& path);
  // The same over HTTPS (the secure port, its certificate not verified),
  // with a bearer token unless empty.
  client::HttpResponse HttpsGet(int port, const std::string& path,
                                const std::string& token = "");
  // POST http://127.0.0.1:<port><path> with a JSON body (an extender
  // verb); code -1 when nothing answered.
  client::HttpResponse HttpPost(int port, const std::string& path,
                                const std::string& json);
  // A token the test API server's TokenReview authenticates as the service
  // account `sa_namespace`/`sa_name`, whose SubjectAccessReviews it
  // answers from what manifests/ksched.yaml grants that account.
  void AddChartReviewUser(const std::string& token,
                          const std::string& sa_namespace,
                          const std::string& sa_name);

  // A replica with leader election on a short lease (3 s lease, 2 s
  // renew deadline, 500 ms retry), as the leader tests run them;
  // `extra_args` as LaunchKsched takes them (a secure port, say).
  std::unique_ptr<KschedProcess> LaunchReplica(
      const std::vector<std::string>& extra_args = {});
  // The holder the ksched Lease names now ("" if none).
  std::string LeaseHolder();
  // Whether `p` is the replica that acquired the lease as `holder`.
  static bool Leads(const KschedProcess& p, const std::string& holder);

  // The cluster of the extender fixtures (pkg/extender/testdata): node-1
  // fits their pod's 500m, node-2 has 250m, node-3 a taint the pod does not
  // tolerate.
  void CreateExtenderFixtureCluster();

  // Replaces `path` with `text` in one rename, as kubelet rotates a
  // projected token, so a reader never sees it half written.
  static void WriteFileAtomically(const std::filesystem::path& path,
                                  const std::string& text);

  std::vector<api::Pod> Pods();
  api::Pod GetPod(const std::string& name);
  std::vector<api::Event> Events();
  // Pods of ours not bound yet.
  int Unbound();
  // Whether an event with this reason was written about the pod.
  bool HasEvent(const std::string& pod, const std::string& reason);

  // Every bound pod got exactly one successful (201) binding, and no node
  // holds more CPU than it has (millicores by node).
  void ExpectBoundOnceAndFitting(const std::map<std::string, int>& node_cpu);

  // The RBAC policy manifests/ksched.yaml grants ksched's service account,
  // which SetUp makes the server enforce.
  static util::Result<RbacPolicy> ChartPolicy();

  std::unique_ptr<TestApiServer> server_;
  std::filesystem::path dir_;
  std::unique_ptr<KschedProcess> ksched_;
  int starts_ = 0;
};

}  // namespace ksched::testing
