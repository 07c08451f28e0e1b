// TestApiServer: an in-process stand-in for kube-apiserver v1.36 (or
// v1.35 or v1.32, TestApiServerOptions::kube_version) that the scheduler
// binary runs against in integration tests and benchmarks.
//
// HTTPS on 127.0.0.1 with its own throwaway CA and bearer-token auth. It
// serves pods (with the binding and status subresources), nodes,
// namespaces, events.k8s.io/v1 events, coordination.k8s.io/v1 leases,
// persistent volumes and claims, storage classes, pod disruption budgets
// and priority classes (and from v1.35 resource.k8s.io/v1's DeviceClasses,
// ResourceClaims, ResourceClaimTemplates and ResourceSlices), with
// discovery (/api, /apis, ...) listing what it serves and /version as the
// real server of that version answers it, answering every request as the
// real server does:
// status line, headers, body shape, messages and reasons (checked against
// recordings of a real server in apiserver_test). Objects are kept as the
// JSON clients sent, stamped with uid, creationTimestamp and one global
// resourceVersion counter, with the history watches replay from.
//
// Tests can also reach the objects in-process (same semantics and watch
// events as the HTTP verbs), inject failures, delays and RBAC denials,
// cut watches, compact history, and stop and restart the server.
#pragma once

#include <chrono>
#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ksched::testing {

// One rbac.authorization.k8s.io/v1 PolicyRule. "*" in api_groups,
// resources or verbs matches anything; a resource "*/status" matches that
// subresource of any resource. Empty resource_names matches every object.
// non_resource_urls ("/metrics", "/ksched/*") grant paths; the server
// itself authorizes none, but answers SubjectAccessReviews with them.
struct RbacRule {
  std::vector<std::string> api_groups, resources, verbs, resource_names,
      non_resource_urls;
  friend bool operator==(const RbacRule&, const RbacRule&) = default;
};

// What a user may do, as RBAC's bindings give it: `cluster` holds the rules
// of the ClusterRoles bound by ClusterRoleBindings (every namespace and the
// cluster scope), `by_namespace` those of the Roles or ClusterRoles bound by
// RoleBindings in that namespace (requests in it only).
struct RbacPolicy {
  std::vector<RbacRule> cluster;
  std::map<std::string, std::vector<RbacRule>> by_namespace;
  friend bool operator==(const RbacPolicy&, const RbacPolicy&) = default;
};

struct TestApiServerOptions {
  int port = 0;  // 0: pick a free one
  std::string token = "ksched-test-token";
  std::chrono::milliseconds bookmark_interval{1000};  // real server ~60s
  std::chrono::seconds default_watch_timeout{1800};   // no timeoutSeconds
  // A bound pod that is deleted gets deletionTimestamp first; with this
  // on, the server then finalizes it (as a kubelet would) right away:
  // MODIFIED then DELETED. Off, it stays until deleted again with
  // gracePeriodSeconds=0.
  bool finalize_deleted_pods = true;
  // Who the token authenticates as; denials from Forbid() name this user.
  std::string user = "system:serviceaccount:kube-system:ksched";
  // Unsent bytes a watch may queue (beyond its initial state) before it is
  // cut, so that a reader that does not keep up never holds up writers.
  size_t watch_backlog_limit_bytes = 64u << 20;
  // Change events retained for watches and reads at old resourceVersions;
  // past this the oldest half is compacted away (as etcd compacts).
  size_t max_history_events = 1'000'000;
  // The kube-apiserver played, as a default server of that version:
  // "1.36" (/version v1.36.3; as 1.35, and nodes' status.declaredFeatures
  // and containers' restartPolicyRules validated as v1.36 validates them,
  // device taints stamped with timeAdded, and a ResourceClaim status write
  // that changes status.allocation or status.reservedFor authorized on
  // resourceclaims/binding as well, see SetRbac), "1.35" (/version
  // v1.35.6, resource.k8s.io/v1 served, pods get metadata.generation and
  // no defaulted resizePolicy) or "1.32" (/version as recorded from v1.32,
  // no resource.k8s.io, pod-level resources dropped as its
  // PodLevelResources gate, off, drops them). Start() refuses any other.
  std::string kube_version = "1.36";
  // Whether scheduler-plugins' PodGroup CRD (podgroups.scheduling.x-k8s.io)
  // is installed, as the chart installs it by default.
  bool pod_group_crd = true;
  // ServiceAccount admission mounts the account's token in every pod
  // (a kube-api-access-* projected volume and each container's mount),
  // as a real cluster's API server does.
  bool mount_service_account_token = true;
};

class TestApiServer {
 public:
  // nullptr if no port could be listened on.
  static std::unique_ptr<TestApiServer> Start(
      const TestApiServerOptions& options = {});
  ~TestApiServer();  // stops cleanly, closes watches
  TestApiServer(const TestApiServer&) = delete;
  TestApiServer& operator=(const TestApiServer&) = delete;

  std::string url() const;  // https://127.0.0.1:PORT
  int port() const;
  std::string ca_pem() const;
  std::string token() const;
  // Writes a kubeconfig (certificate-authority-data + token) for this
  // server; with `token_file`, the user's token is read from that file
  // (tokenFile) instead, as with a projected service-account token.
  void WriteKubeconfig(const std::string& path,
                       const std::string& token_file = "") const;

  // In-process object access, by API path, JSON text in and out, with
  // exactly the semantics (and watch events) of the HTTP verbs, e.g.
  // Create("/api/v1/namespaces/default/pods", json). Paths may carry a
  // query ("...?gracePeriodSeconds=0", "...?labelSelector=app%3Dweb").
  struct Reply {
    int code;
    std::string body;
  };
  Reply Create(const std::string& collection_path, const std::string& json);
  Reply Get(const std::string& path);
  Reply Update(const std::string& path, const std::string& json);
  Reply Patch(const std::string& path, const std::string& patch,
              const std::string& content_type =
                  "application/strategic-merge-patch+json");
  Reply Delete(const std::string& path);
  Reply List(const std::string& path_and_query);

  // Every binding request answered, in order: namespace, name, uid (the
  // pod's, when it exists), node, HTTP code, and the steady_clock time it
  // was answered.
  struct BindingRecord {
    std::string ns, name, uid, node;
    int code;
    std::chrono::steady_clock::time_point at;
  };
  std::vector<BindingRecord> Bindings() const;
  // Binding requests answered with `code` (201: pods bound), for polling
  // loops that must not copy every record.
  int CountBindings(int code) const;

  // Creation time (steady_clock) of an object, by path, for latency
  // figures; also for objects deleted since. nullopt if never created.
  std::optional<std::chrono::steady_clock::time_point> CreationTime(
      const std::string& path) const;

  // The current resourceVersion (etcd revision).
  int64_t ResourceVersion() const;
  // Watches open now (those the server has registered).
  int ActiveWatchCount() const;

  // Fault switches.
  // Ends every open watch stream now (connection closed mid-stream).
  void DropWatches();
  // Forgets event history: watches from older resourceVersions get the
  // ERROR 410 event, old continue tokens and exact reads 410.
  void CompactHistory();
  struct Fault {
    std::string method;          // "" or "*": any
    std::string path_substring;  // in path and query
    int code;
    int count = -1;  // -1: every matching request
    double probability = 1.0;
    // Only every `every`-th matching request (1: each one): a schedule
    // that a test can count on, where a probability leaves it to chance.
    int every = 1;
    int retry_after_seconds = 0;
  };
  // Answers matching requests with this code and a kube-style Status body
  // (429 with Retry-After, 500, 409 ...).
  void InjectFault(const Fault& fault);
  void SetResponseDelay(const std::string& path_substring,
                        std::chrono::milliseconds delay);
  // For `duration` from now the server accepts connections and answers
  // nothing, as kube-apiserver does while its etcd is down: each request
  // that arrives meanwhile is held until the end, then answered 504
  // (Timeout) without taking effect. Watches already open stay open.
  void Hang(std::chrono::milliseconds duration);
  // 403 exactly as the recorded RBAC denial, for verb ("list", "create",
  // "*", ...) on resource ("nodes", "pods/binding", "*"), served here or
  // not.
  void Forbid(const std::string& verb, const std::string& resource);
  void ClearFaults();  // not the RBAC policy

  // RBAC, decided as kube-apiserver's RBAC authorizer decides: from now on
  // the token's user may do exactly what `policy` allows, and every other
  // resource request (served here or not, as authorization comes before
  // routing) gets the 403 the real server answers. Forbid() denials still
  // apply on top. Non-resource requests (/healthz, /version, discovery)
  // are not authorized. At v1.36 a ResourceClaim status write (PUT or
  // PATCH of resourceclaims/<name>/status) that changes status.allocation
  // or status.reservedFor is also authorized, as the real strategy asks,
  // for the same verb on resourceclaims/binding at the cluster scope (and
  // one that changes status.devices of an allocated claim for
  // "arbitrary-node:<verb>" on resourceclaims/driver, named by the
  // driver): denied, the write is answered 422 (FieldValueForbidden), as
  // recorded. The in-process API is never authorized. Resets the access
  // record.
  void SetRbac(RbacPolicy policy);
  // Back to allowing everything (the default); the access record stays
  // until the next SetRbac, to be read after the fact.
  void ClearRbac();
  // A resource request as RBAC saw it: `resource` includes the subresource
  // ("pods/binding"); `name` is the object named in the path (or by a
  // fieldSelector on metadata.name), "" for create, list and watch;
  // `allowed` is the policy's answer (a Forbid() on top does not change
  // it). The checks the server makes up itself (v1.36's
  // resourceclaims/binding, with no namespace and no name) are accesses
  // too.
  struct Access {
    std::string verb, group, resource, ns, name;
    bool allowed;
    friend auto operator<=>(const Access&, const Access&) = default;
  };
  // Every distinct resource request received since SetRbac while a policy
  // was set, allowed or not, in sorted order.
  std::vector<Access> Accesses() const;
  // Another identity, for delegated authentication and authorization: a
  // TokenReview of `token` authenticates it (as user `name`, in `groups`
  // and system:authenticated), and SubjectAccessReviews about it are
  // answered from `policy`. Requests to this server with the token are
  // still 401: it exists to be reviewed. (The server's own token reviews
  // as options.user, authorized by the policy SetRbac gave.)
  struct ReviewUser {
    std::string name;
    std::string uid;
    std::vector<std::string> groups;
    RbacPolicy policy;
  };
  void AddReviewUser(const std::string& token, ReviewUser user);
  // The bearer tokens accepted from now on, in place of options.token
  // (several at once while a rotated-out token is still valid).
  void SetTokens(const std::vector<std::string>& tokens);
  // Stop listening / listen again on the same port, with the same CA and
  // stored objects; open watches are cut.
  void Stop();
  void Restart();
  int RequestCount(const std::string& method,
                   const std::string& path_substring) const;
  // Every request received since Start, in order: method and target
  // (path and query).
  std::vector<std::pair<std::string, std::string>> Requests() const;

  // What the fault switches served since Start, counted as it was
  // answered: injected failures by HTTP code, requests answered after a
  // delay, 401s to a token not (or no longer) accepted, 410s and watch
  // ERROR 410 events for compacted history, and watches cut by
  // DropWatches or Stop.
  struct FaultsServed {
    std::map<int, int> injected;
    int delayed = 0;
    int hung = 0;  // held by a Hang, then timed out
    int unauthorized = 0;
    int expired = 0;
    int watches_cut = 0;
  };
  FaultsServed Served() const;

 private:
  struct State;
  explicit TestApiServer(std::unique_ptr<State> state);
  bool Listen();

  std::unique_ptr<State> state_;
};

}  // namespace ksched::testing
