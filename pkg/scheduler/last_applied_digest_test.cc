#include "pkg/scheduler/last_applied_digest.h"

#include <gtest/gtest.h>

#include <string>

namespace ksched::scheduler {
namespace {

api::ObjectMeta WithLastApplied(const std::string& applied) {
  api::ObjectMeta meta;
  meta.annotations.Set("team", "ml");
  meta.annotations.Set(kLastAppliedAnnotation, applied);
  return meta;
}

TEST(LastAppliedDigestTest, TheCopyBecomesADigestThatStillTellsChanges) {
  const std::string applied =
      R"({"apiVersion":"v1","kind":"Node","metadata":{"annotations":{},)"
      R"("name":"node-1"}})"
      "\n";
  api::ObjectMeta meta = WithLastApplied(applied);
  DigestLastAppliedConfiguration(meta);
  EXPECT_EQ(meta.annotations.Find(kLastAppliedAnnotation), nullptr);
  // The first 64 bits of SHA-256 of the annotation as the API server sent
  // it (sha256sum: 2373732d98791823...).
  EXPECT_EQ(meta.last_applied_digest, 0x2373732d98791823u);
  EXPECT_EQ(meta.annotations.size(), 1u);
  EXPECT_EQ(*meta.annotations.Find("team"), "ml");

  api::ObjectMeta same = WithLastApplied(applied);
  DigestLastAppliedConfiguration(same);
  EXPECT_EQ(same, meta);

  api::ObjectMeta changed = WithLastApplied(applied + " ");
  DigestLastAppliedConfiguration(changed);
  EXPECT_NE(changed.last_applied_digest, meta.last_applied_digest);
  EXPECT_NE(changed, meta);

  // An object transformed twice keeps its digest.
  api::ObjectMeta again = meta;
  DigestLastAppliedConfiguration(again);
  EXPECT_EQ(again, meta);
}

TEST(LastAppliedDigestTest, ObjectsWithoutItAreUntouched) {
  api::ObjectMeta meta;
  meta.annotations.Set("team", "ml");
  const api::ObjectMeta before = meta;
  DigestLastAppliedConfiguration(meta);
  EXPECT_EQ(meta, before);
  EXPECT_EQ(meta.last_applied_digest, 0u);
}

}  // namespace
}  // namespace ksched::scheduler
