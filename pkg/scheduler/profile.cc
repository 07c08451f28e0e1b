#include "pkg/scheduler/profile.h"

namespace ksched::scheduler {

util::Result<ProfileMap> BuildProfiles(
    const config::KubeSchedulerConfiguration& cfg,
    const framework::Registry& registry,
    const framework::Framework::Options& options) {
  ProfileMap profiles;
  for (const config::Profile& p : cfg.profiles) {
    if (profiles.count(p.scheduler_name)) {
      return util::Error("duplicate profile with scheduler name " +
                         p.scheduler_name);
    }
    auto fwk = framework::Framework::Create(p, registry, options);
    if (!fwk.ok()) return fwk.error();
    profiles.emplace(p.scheduler_name, std::move(*fwk));
  }
  return profiles;
}

}  // namespace ksched::scheduler
