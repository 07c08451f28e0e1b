#include "pkg/leader/elector.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "pkg/util/fake_clock.h"

namespace ksched::leader {
namespace {

using std::chrono::seconds;

// One Lease in memory with resourceVersions, as the API server keeps it.
class MemoryLeaseLock final : public LeaseLock {
 public:
  client::ApiOr<api::Lease> Get() override {
    if (!lease_.has_value()) return NotFound();
    return *lease_;
  }
  client::ApiOr<api::Lease> Create(const api::Lease& lease) override {
    if (lease_.has_value()) return client::ApiError{};
    lease_ = lease;
    lease_->metadata.resource_version = std::to_string(++rv_);
    return *lease_;
  }
  client::ApiOr<api::Lease> Update(const api::Lease& lease) override {
    if (!lease_.has_value()) return NotFound();
    if (lease.metadata.resource_version != lease_->metadata.resource_version) {
      ++conflicts;
      client::ApiError conflict;
      conflict.status.code = 409;
      conflict.status.reason = "Conflict";
      return conflict;
    }
    lease_ = lease;
    lease_->metadata.resource_version = std::to_string(++rv_);
    return *lease_;
  }
  // Another replica writes the lease behind our back.
  void Overwrite(const std::string& holder) {
    lease_->spec.holder_identity = holder;
    lease_->metadata.resource_version = std::to_string(++rv_);
  }
  std::optional<api::Lease> lease_;
  int conflicts = 0;

 private:
  static client::ApiError NotFound() {
    client::ApiError e;
    e.status.code = 404;
    e.status.reason = "NotFound";
    return e;
  }
  int rv_ = 0;
};

class ElectorTest : public ::testing::Test {
 protected:
  std::unique_ptr<LeaderElector> Elector(const std::string& id) {
    return std::make_unique<LeaderElector>(
        lock_, clock_, random_, log_,
        ElectionConfig{.identity = id,
                       .lease_duration = seconds(15),
                       .renew_deadline = seconds(10),
                       .retry_period = seconds(2)},
        [this](util::Clock::Duration d) {
          clock_.Advance(d);
          return --waits_left_ > 0;
        });
  }
  util::FakeClock clock_;
  util::DefaultRandom random_{3};
  util::RecordingLogger log_;
  MemoryLeaseLock lock_;
  int waits_left_ = 1000;
};

TEST_F(ElectorTest, CreatesTheLeaseAndRenewsIt) {
  auto a = Elector("a");
  EXPECT_TRUE(a->TryAcquireOrRenew());
  EXPECT_TRUE(a->IsLeader());
  EXPECT_EQ(lock_.lease_->spec.holder_identity, "a");
  EXPECT_EQ(lock_.lease_->spec.lease_duration_seconds, 15);
  const auto acquired = lock_.lease_->spec.acquire_time;
  clock_.Advance(seconds(2));
  EXPECT_TRUE(a->TryAcquireOrRenew());
  EXPECT_EQ(lock_.lease_->spec.acquire_time, acquired) << "kept on renewal";
  EXPECT_NE(lock_.lease_->spec.renew_time, acquired);
  EXPECT_EQ(lock_.lease_->spec.lease_transitions, 0);
}

TEST_F(ElectorTest, TakesOverOnlyAfterTheLeaseExpires) {
  auto a = Elector("a");
  auto b = Elector("b");
  ASSERT_TRUE(a->TryAcquireOrRenew());
  EXPECT_FALSE(b->TryAcquireOrRenew());
  clock_.Advance(seconds(14));
  EXPECT_FALSE(b->TryAcquireOrRenew()) << "b saw the lease unchanged 14 s";
  clock_.Advance(seconds(2));
  EXPECT_TRUE(b->TryAcquireOrRenew());
  EXPECT_EQ(lock_.lease_->spec.holder_identity, "b");
  EXPECT_EQ(lock_.lease_->spec.lease_transitions, 1);
  // a's renewal now finds b holding a fresh lease.
  EXPECT_FALSE(a->TryAcquireOrRenew());
}

// Expiry counts from when this replica saw the lease change, not from the
// holder's renewTime: a holder renewing every 2 s is never taken over.
TEST_F(ElectorTest, ARenewingHolderKeepsTheLease) {
  auto a = Elector("a");
  auto b = Elector("b");
  ASSERT_TRUE(a->TryAcquireOrRenew());
  for (int i = 0; i < 20; ++i) {
    clock_.Advance(seconds(2));
    ASSERT_TRUE(a->TryAcquireOrRenew());
    EXPECT_FALSE(b->TryAcquireOrRenew());
  }
}

TEST_F(ElectorTest, AConcurrentWriterWins) {
  auto a = Elector("a");
  ASSERT_TRUE(a->TryAcquireOrRenew());
  clock_.Advance(seconds(16));
  lock_.Overwrite("c");
  // a reads c's fresh write: not ours, not expired.
  EXPECT_FALSE(a->TryAcquireOrRenew());
  EXPECT_FALSE(a->IsLeader());
}

TEST_F(ElectorTest, LosesLeadershipAfterTheRenewDeadline) {
  auto a = Elector("a");
  ASSERT_TRUE(a->Acquire());
  // b takes the lease over (a's renewals will now fail).
  lock_.Overwrite("b");
  EXPECT_FALSE(a->KeepRenewing()) << "lost";
  EXPECT_FALSE(a->IsLeader());
  // IsLeader turned false no later than the renew deadline.
  EXPECT_LE(clock_.Now().time_since_epoch(), seconds(2 + 10 + 2));
}

TEST_F(ElectorTest, LeadershipLapsesWithoutRenewal) {
  auto a = Elector("a");
  ASSERT_TRUE(a->TryAcquireOrRenew());
  clock_.Advance(seconds(9));
  EXPECT_TRUE(a->IsLeader());
  clock_.Advance(seconds(1));
  EXPECT_FALSE(a->IsLeader()) << "no binding after the renew deadline";
  EXPECT_EQ(a->Check(seconds(20)), std::nullopt);
  clock_.Advance(seconds(30));
  EXPECT_TRUE(a->Check(seconds(20)).has_value());
}

TEST_F(ElectorTest, ReleaseLetsTheNextReplicaInAtOnce) {
  auto a = Elector("a");
  auto b = Elector("b");
  ASSERT_TRUE(a->TryAcquireOrRenew());
  EXPECT_FALSE(b->TryAcquireOrRenew());
  a->Release();
  EXPECT_FALSE(a->IsLeader());
  EXPECT_EQ(lock_.lease_->spec.holder_identity, "");
  EXPECT_EQ(lock_.lease_->spec.lease_duration_seconds, 1);
  EXPECT_TRUE(b->TryAcquireOrRenew()) << "an empty holder is free";
  EXPECT_EQ(lock_.lease_->spec.lease_transitions, 1);
}

TEST_F(ElectorTest, AcquireStopsWhenTheWaitIsCut) {
  auto a = Elector("a");
  auto b = Elector("b");
  ASSERT_TRUE(a->TryAcquireOrRenew());
  waits_left_ = 3;
  EXPECT_FALSE(b->Acquire());
}

// A lease request can take up to the renew deadline, and /healthz calls
// Check meanwhile on the thread that carries the client's I/O: Check and
// IsLeader must answer while a request is in flight, never wait for it.
TEST_F(ElectorTest, ChecksAnswerWhileALeaseRequestIsInFlight) {
  class SlowLeaseLock final : public LeaseLock {
   public:
    explicit SlowLeaseLock(LeaseLock& inner) : inner_(inner) {}
    client::ApiOr<api::Lease> Get() override { return inner_.Get(); }
    client::ApiOr<api::Lease> Create(const api::Lease& l) override {
      return inner_.Create(l);
    }
    client::ApiOr<api::Lease> Update(const api::Lease& l) override {
      entered.set_value();
      release.get_future().wait();
      return inner_.Update(l);
    }
    std::promise<void> entered, release;

   private:
    LeaseLock& inner_;
  };
  auto a = Elector("a");
  ASSERT_TRUE(a->TryAcquireOrRenew());  // creates the lease: no Update
  SlowLeaseLock slow(lock_);
  LeaderElector renewing(slow, clock_, random_, log_,
                         ElectionConfig{.identity = "a",
                                        .lease_duration = seconds(15),
                                        .renew_deadline = seconds(10),
                                        .retry_period = seconds(2)},
                         [](util::Clock::Duration) { return false; });
  std::thread renewal([&] { renewing.TryAcquireOrRenew(); });
  slow.entered.get_future().wait();
  auto check = std::async(std::launch::async, [&] {
    return std::make_pair(renewing.Check(seconds(20)), renewing.IsLeader());
  });
  const bool answered =
      check.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  slow.release.set_value();
  renewal.join();
  ASSERT_TRUE(answered) << "Check waited for the lease request";
  EXPECT_EQ(check.get().first, std::nullopt);
}

}  // namespace
}  // namespace ksched::leader
