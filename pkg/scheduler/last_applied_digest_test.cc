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
  const std::string* digest = meta.annotations.Find(kLastAppliedAnnotation);
  ASSERT_NE(digest, nullptr);
  // SHA-256 of the annotation as the API server sent it (sha256sum).
  EXPECT_EQ(*digest,
            "sha256:"
            "2373732d98791823862db47f5b715b7abdee58ba98874c64d8f2c725c9e2a83e");
  EXPECT_EQ(*meta.annotations.Find("team"), "ml");

  api::ObjectMeta same = WithLastApplied(applied);
  DigestLastAppliedConfiguration(same);
  EXPECT_EQ(same.annotations, meta.annotations);

  api::ObjectMeta changed = WithLastApplied(applied + " ");
  DigestLastAppliedConfiguration(changed);
  EXPECT_NE(changed.annotations, meta.annotations);

  // A digest is left as it is (an object transformed twice).
  api::ObjectMeta again = meta;
  DigestLastAppliedConfiguration(again);
  EXPECT_EQ(again.annotations, meta.annotations);
}

TEST(LastAppliedDigestTest, ObjectsWithoutItAreUntouched) {
  api::ObjectMeta meta;
  meta.annotations.Set("team", "ml");
  const api::ObjectMeta before = meta;
  DigestLastAppliedConfiguration(meta);
  EXPECT_EQ(meta, before);
}

}  // namespace
}  // namespace ksched::scheduler
