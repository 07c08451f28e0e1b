// Discovery: which Kubernetes the API server is (GET /version) and which
// group-versions and resources it serves (GET /api/v1 and
// /apis/<group>/<version>, the APIResourceLists client-go's discovery
// client reads), so that ksched watches only what is there: a resource
// the server does not have would be listed, refused with 404, and listed
// again for ever, and the caches would never sync.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/client/rest_client.h"
#include "pkg/util/result.h"

namespace ksched::client {

// The answer of GET /version.
struct ServerVersion {
  int major = 0;
  int minor = 0;
  std::string git_version;  // "v1.35.6"; may be empty
  // emulationMajor/emulationMinor, which v1.31+ servers report; 0 when
  // absent.
  int emulation_major = 0;
  int emulation_minor = 0;
  // The minor the server behaves as: its emulated one when it reports one
  // (a v1.35 kube-apiserver run with --emulated-version=1.33 serves 1.33's
  // APIs), else its own.
  int EffectiveMinor() const {
    return emulation_major == 1 && emulation_minor > 0 ? emulation_minor
                                                       : minor;
  }
  // "v1.35.6", or "v1.35" without a gitVersion; "v1.35.6 emulating v1.33"
  // when it emulates another minor.
  std::string String() const;
};

// What start-up should say about running against `server` when ksched
// decides as kube-scheduler v1.<emulated_minor> (binary v1.<binary_minor>,
// emulating back to v1.<floor_minor>), or nullopt when the pairing is one
// kube supports: kube-scheduler may not be newer than the API server, and
// may be one minor older. An older server (by the version it emulates, if
// it does) gets the --emulated-version to match it.
std::optional<std::string> VersionSkewNote(const ServerVersion& server,
                                           int emulated_minor, int binary_minor,
                                           int floor_minor);

// Reads a /version body. "minor" may carry a suffix, as some providers'
// do ("27+"): the leading digits count.
util::Result<ServerVersion> ParseServerVersion(std::string_view body);

// What one group-version's discovery said.
struct GroupVersionDiscovery {
  enum class State {
    kServed,     // 200: `resources` lists what it serves
    kNotServed,  // 404: the server has no such group-version
    kUnknown,    // anything else (an error, no answer): `error` says what
  };
  State state = State::kUnknown;
  // Resource names as the list gives them, subresources too
  // ("pods", "pods/status").
  std::set<std::string> resources;
  std::string error;
  // kUnknown: no answer came at all (refused, timed out), rather than an
  // answer that was an error.
  bool no_answer = false;
};

// Reads an APIResourceList body for `group_version` ("v1",
// "storage.k8s.io/v1"): the names of its resources.
util::Result<std::set<std::string>> ParseResourceList(
    std::string_view body, std::string_view group_version);

// The group-version path of a ResourceOf ("/api/v1", "/apis/policy/v1")
// as discovery names it ("v1", "policy/v1").
std::string GroupVersionOfPath(std::string_view path);

// What discovery found, by group-version path. What was not asked about,
// or could not be found out, counts as served: without an answer ksched
// watches as it would without discovery, and the informer reports its own
// errors.
class ServedResources {
 public:
  void Set(std::string group_version_path, GroupVersionDiscovery found);
  // Whether `resource` of `group_version_path` is there to be watched.
  bool Serves(std::string_view group_version_path,
              std::string_view resource) const;
  // nullptr when the group-version was not asked about.
  const GroupVersionDiscovery* Find(std::string_view group_version_path) const;

 private:
  std::map<std::string, GroupVersionDiscovery, std::less<>> found_;
};

struct DiscoveryResult {
  std::optional<ServerVersion> version;
  std::string version_error;       // why `version` is missing
  bool version_no_answer = false;  // no answer came at all
  ServedResources served;
};

// GET /version and each of `group_version_paths`, all at once, each given
// one attempt (no retry): the whole takes about the longest single
// answer, which `client`'s transport timeout bounds. Never fails: what
// could not be read is said in the result.
DiscoveryResult Discover(RestClient& client,
                         const std::vector<std::string>& group_version_paths);

}  // namespace ksched::client
