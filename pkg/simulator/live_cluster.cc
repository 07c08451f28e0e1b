#include "pkg/simulator/live_cluster.h"

#include "pkg/client/api_error.h"
#include "pkg/client/list_watch.h"
#include "pkg/client/rest_list_watch.h"

// ResourceClaimTemplates are read by simulate alone (the resourceclaim
// controller's part it plays), not by the scheduler's clients, so their
// place in the API is given here.
namespace ksched::client {
template <>
struct ResourceOf<api::ResourceClaimTemplate> {
  static constexpr Resource kResource{"/apis/resource.k8s.io/v1",
                                      "resourceclaimtemplates", true};
};
}  // namespace ksched::client

namespace ksched::simulator {
namespace {

// The API server, and how many objects its lists have given so far.
struct Lister {
  client::RestClient& rest;
  const std::function<void(uint64_t)>& on_listed;
  uint64_t listed = 0;

  void Listed(int64_t more) {
    listed += more;
    if (on_listed) on_listed(listed);
  }
};

// Pages of 500, as client-go's reflector asks; an expired continue token
// (the list took longer than the server keeps its snapshot) restarts the
// list in one answer, as the reflector does.
template <typename T>
client::ApiOr<std::vector<T>> ListAll(Lister& api) {
  client::RestListerWatcher<T> lister(api.rest);
  client::ListOptions options{.limit = 500};
  std::vector<T> out;
  while (true) {
    client::ApiOr<client::ListPage<T>> page = lister.List(options);
    if (!page.ok()) {
      if (!options.continue_token.empty() &&
          client::IsResourceExpired(page.error())) {
        api.Listed(-static_cast<int64_t>(out.size()));
        out.clear();
        options = client::ListOptions{};
        continue;
      }
      return page.error();
    }
    for (T& item : page->items) out.push_back(std::move(item));
    api.Listed(static_cast<int64_t>(page->items.size()));
    if (page->continue_token.empty()) return out;
    options.continue_token = page->continue_token;
  }
}

std::string Describe(const client::ApiError& e) {
  return e.code() == 0
             ? e.message()
             : e.message() + " (HTTP " + std::to_string(e.code()) + ")";
}

// `may_be_absent`: a custom resource whose definition the cluster may not
// have, or an API group it may not serve (404): then there are none, and
// `absent` (when given) says so.
template <typename T>
util::Status Read(Lister& api, bool required, std::vector<T>* into,
                  std::vector<std::string>* warnings,
                  bool may_be_absent = false, bool* absent = nullptr) {
  const std::string plural(client::ResourceOf<T>::kResource.plural);
  client::ApiOr<std::vector<T>> items = ListAll<T>(api);
  if (items.ok()) {
    *into = std::move(*items);
    return util::Status();
  }
  if (may_be_absent && client::IsNotFound(items.error())) {
    if (absent != nullptr) *absent = true;
    return {};
  }
  if (!required && client::IsForbidden(items.error())) {
    warnings->push_back("cannot list " + plural + ": " +
                        Describe(items.error()) +
                        "; plugins that read them see none");
    return util::Status();
  }
  return util::Error("listing " + plural + ": " + Describe(items.error()));
}

// Whether a pod has a template claim entry the resourceclaim controller
// has not recorded a claim for (simulate then makes it from the template).
bool NeedsClaimTemplates(const std::vector<api::Pod>& pods) {
  for (const api::Pod& pod : pods) {
    for (const api::PodResourceClaim& claim : pod.spec.resource_claims) {
      if (!claim.resource_claim_template_name) continue;
      bool recorded = false;
      for (const auto& status : pod.status.resource_claim_statuses) {
        recorded |= status.name == claim.name;
      }
      if (!recorded) return true;
    }
  }
  return false;
}

// resource.k8s.io/v1, served from Kubernetes v1.34 on: when the server
// answers 404 for DeviceClasses it has no DRA at v1, and the simulation
// holds pods with claims as a ksched running there would.
util::Status ReadDra(Lister& api, Cluster& c, std::vector<std::string>* w,
                     bool templates) {
  bool absent = false;
  util::Status s = Read(api, false, &c.device_classes, w,
                        /*may_be_absent=*/true, &absent);
  if (s.ok() && absent) {
    c.dra_served = false;
    return s;
  }
  if (s.ok()) s = Read(api, false, &c.resource_slices, w);
  if (s.ok()) s = Read(api, false, &c.resource_claims, w);
  if (s.ok() && (templates || NeedsClaimTemplates(c.pods))) {
    s = Read(api, false, &c.resource_claim_templates, w);
  }
  return s;
}

}  // namespace

util::Result<LiveCluster> ReadLiveCluster(client::RestClient& rest,
                                          const LiveReadOptions& options) {
  Lister api{rest, options.on_listed};
  LiveCluster out;
  Cluster& c = out.cluster;
  std::vector<std::string>* w = &out.warnings;
  // PriorityClasses are not read: admission has already resolved each
  // pod's priority. Stops at the first failure: a server that is down answers
  // no list.
  util::Status s = Read(api, true, &c.nodes, w);
  if (s.ok()) s = Read(api, true, &c.pods, w);
  if (s.ok()) s = Read(api, false, &c.namespaces, w);
  if (s.ok()) s = Read(api, false, &c.persistent_volume_claims, w);
  if (s.ok()) s = Read(api, false, &c.persistent_volumes, w);
  if (s.ok()) s = Read(api, false, &c.storage_classes, w);
  if (s.ok()) s = Read(api, false, &c.csi_nodes, w);
  if (s.ok()) s = Read(api, false, &c.csi_drivers, w);
  if (s.ok()) s = Read(api, false, &c.volume_attachments, w);
  if (s.ok()) s = Read(api, false, &c.pod_disruption_budgets, w);
  if (s.ok()) s = Read(api, false, &c.pod_groups, w, /*may_be_absent=*/true);
  if (s.ok()) s = ReadDra(api, c, w, options.resource_claim_templates);
  if (!s.ok()) return s.error();
  return out;
}

}  // namespace ksched::simulator
