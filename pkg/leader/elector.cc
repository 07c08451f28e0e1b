#include "pkg/leader/elector.h"

#include <chrono>

namespace ksched::leader {
namespace {

api::MicroTime ToMicroTime(util::Clock::WallTime t) {
  return {std::chrono::time_point_cast<std::chrono::microseconds>(t)};
}

int32_t Seconds(util::Clock::Duration d) {
  return static_cast<int32_t>(
      std::chrono::duration_cast<std::chrono::seconds>(d).count());
}

}  // namespace

LeaderElector::LeaderElector(LeaseLock& lock, const util::Clock& clock,
                             util::Random& random, util::Logger& log,
                             ElectionConfig config, WaitFn wait)
    : lock_(lock),
      clock_(clock),
      random_(random),
      log_(log),
      config_(std::move(config)),
      wait_(std::move(wait)) {}

api::LeaseSpec LeaderElector::Record(util::Clock::WallTime now) const {
  api::LeaseSpec spec;
  spec.holder_identity = config_.identity;
  spec.lease_duration_seconds = Seconds(config_.lease_duration);
  spec.acquire_time = ToMicroTime(now);
  spec.renew_time = ToMicroTime(now);
  spec.lease_transitions = 0;
  return spec;
}

// mu_ guards what IsLeader, Check and Release read from other threads, and
// is never held across a request to the API server: /healthz calls Check on
// cpprestsdk's one pool thread, which also carries the client's I/O, so a
// Check waiting for a lease request would wait for itself (a shutdown once
// hung this way under load).
bool LeaderElector::TryAcquireOrRenew() {
  const util::Clock::TimePoint now = clock_.Now();
  api::LeaseSpec record = Record(clock_.WallNow());

  client::ApiOr<api::Lease> current = lock_.Get();
  if (!current.ok()) {
    if (!client::IsNotFound(current.error())) {
      log_.Warning("leader election: reading the lease: " +
                   current.error().message());
      return false;
    }
    api::Lease fresh;
    fresh.spec = record;
    client::ApiOr<api::Lease> created = lock_.Create(fresh);
    if (!created.ok()) {
      log_.Warning("leader election: creating the lease: " +
                   created.error().message());
      return false;
    }
    std::lock_guard lock(mu_);
    observed_ = *created;
    observed_time_ = now;
    renewed_ = now;
    return true;
  }

  const api::Lease& old = *current;
  const std::string holder = old.spec.holder_identity.value_or("");
  const bool held_by_us = holder == config_.identity;
  {
    std::lock_guard lock(mu_);
    if (!observed_.has_value() || observed_->spec != old.spec) {
      observed_ = old;
      observed_time_ = now;
    }
    const auto duration =
        std::chrono::seconds(old.spec.lease_duration_seconds.value_or(0));
    if (!holder.empty() && !held_by_us && observed_time_ + duration > now) {
      renewed_.reset();
      return false;  // someone else holds a lease that has not expired
    }
  }

  api::Lease update = old;
  if (held_by_us) {
    record.acquire_time = old.spec.acquire_time;
    record.lease_transitions = old.spec.lease_transitions.value_or(0);
  } else {
    record.lease_transitions = old.spec.lease_transitions.value_or(0) + 1;
  }
  update.spec = record;
  client::ApiOr<api::Lease> written = lock_.Update(update);
  if (!written.ok()) {
    if (!client::IsConflict(written.error())) {
      log_.Warning("leader election: updating the lease: " +
                   written.error().message());
    }
    return false;
  }
  std::lock_guard lock(mu_);
  observed_ = *written;
  observed_time_ = now;
  renewed_ = now;
  return true;
}

util::Clock::Duration LeaderElector::Jittered(util::Clock::Duration d) {
  // client-go's JitterFactor 1.2: up to 120 % longer.
  const auto extra =
      static_cast<util::Clock::Duration::rep>(random_.Intn(1000) * 12 / 10);
  return d + d * extra / 1000;
}

bool LeaderElector::Acquire() {
  log_.Info(0, "attempting to acquire leader lease as " + config_.identity);
  while (true) {
    if (TryAcquireOrRenew()) {
      log_.Info(0, "successfully acquired lease as " + config_.identity);
      return true;
    }
    if (!wait_(Jittered(config_.retry_period))) return false;
  }
}

bool LeaderElector::KeepRenewing() {
  while (true) {
    if (!wait_(config_.retry_period)) return true;
    // Retry until the renew deadline, counted from the last success.
    while (!TryAcquireOrRenew()) {
      std::optional<util::Clock::TimePoint> last;
      {
        std::lock_guard lock(mu_);
        last = renewed_;
      }
      const auto now = clock_.Now();
      if (!last.has_value() || now - *last >= config_.renew_deadline) {
        std::lock_guard lock(mu_);
        renewed_.reset();
        log_.Warning(
            "leader election lost: the lease was not renewed within "
            "the renew deadline");
        return false;
      }
      if (!wait_(config_.retry_period)) return true;
    }
  }
}

bool LeaderElector::IsLeader() const {
  std::lock_guard lock(mu_);
  return renewed_.has_value() &&
         clock_.Now() - *renewed_ < config_.renew_deadline;
}

void LeaderElector::Release() {
  {
    std::lock_guard lock(mu_);
    if (!renewed_.has_value() || !observed_.has_value()) return;
  }
  api::Lease update;
  {
    std::lock_guard lock(mu_);
    update = *observed_;
  }
  const auto now = ToMicroTime(clock_.WallNow());
  update.spec.holder_identity = "";  // as client-go writes it
  update.spec.lease_duration_seconds = 1;
  update.spec.acquire_time = now;
  update.spec.renew_time = now;
  client::ApiOr<api::Lease> written = lock_.Update(update);
  std::lock_guard lock(mu_);
  renewed_.reset();
  if (!written.ok()) {
    log_.Warning("leader election: releasing the lease: " +
                 written.error().message());
    return;
  }
  observed_ = *written;
  log_.Info(0, "released the leader lease");
}

std::optional<std::string> LeaderElector::Check(
    util::Clock::Duration tolerance) const {
  std::lock_guard lock(mu_);
  if (!renewed_.has_value()) return std::nullopt;  // not leading: fine
  if (clock_.Now() - *renewed_ > config_.lease_duration + tolerance) {
    return "the leader lease has not been renewed";
  }
  return std::nullopt;
}

}  // namespace ksched::leader
