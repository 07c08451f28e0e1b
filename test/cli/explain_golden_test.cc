// Golden tests of `ksched simulate --explain` on the bundled example: the
// table and the JSON a user gets, checked byte for byte. After a deliberate
// change, regenerate with KSCHED_UPDATE_GOLDEN=1 and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "pkg/util/json.h"
#include "test/cli/run_command.h"

namespace ksched::explain_golden {

using testing::ExpectGolden;
using testing::RunCommand;

const std::string kKsched = KSCHED_BINARY;
const std::string kSource = KSCHED_SOURCE_DIR;
const std::string kExample = kSource + "/examples/cluster.yaml";

// Pods that show each part of a report: scores, a nominated node, an
// unschedulable pod with preemption, a PreFilter rejection, a gated pod.
const std::string kPods =
    " shop/web-0 shop/search-0 shop/ledger-0 ml/notebook-0 ci/builder-0 "
    "shop/archiver-0 batch/etl-0";

TEST(ExplainGoldenTest, TableOnTheExample) {
  auto r = RunCommand(kKsched + " simulate --quiet --cluster " + kExample +
                      " --explain" + kPods);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  ExpectGolden("explain_example.txt", r.out);
}

TEST(ExplainGoldenTest, JsonOnTheExample) {
  auto r = RunCommand(kKsched + " simulate --quiet -o json --cluster " +
                      kExample + " --explain-top 3 --explain" + kPods);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectGolden("explain_example.json", r.out);
  // Beyond the bytes: the scores reported are the scores that decided.
  rapidjson::Document doc;
  doc.Parse(r.out.c_str());
  ASSERT_FALSE(doc.HasParseError());
  int explained = 0;
  for (const auto& pod : doc["pods"].GetArray()) {
    if (!pod.HasMember("explain")) continue;
    ++explained;
    const auto& e = pod["explain"];
    if (pod["node"].IsNull()) {
      EXPECT_STREQ(e["selected-node"].GetString(), "");
      continue;
    }
    EXPECT_STREQ(e["selected-node"].GetString(), pod["node"].GetString());
    const auto& final_scores = e["finalscore-result"];
    if (final_scores.MemberCount() < 2) continue;  // not scored
    int64_t best = -1, selected = -1;
    for (auto n = final_scores.MemberBegin(); n != final_scores.MemberEnd();
         ++n) {
      int64_t total = 0;
      for (auto p = n->value.MemberBegin(); p != n->value.MemberEnd(); ++p) {
        total += std::atoll(p->value.GetString());
      }
      best = std::max(best, total);
      if (n->name == pod["node"]) selected = total;
    }
    EXPECT_EQ(selected, best) << pod["name"].GetString();
  }
  EXPECT_EQ(explained, 7);
}

TEST(ExplainGoldenTest, UnknownPodsAreNamedAndBadTopIsRefused) {
  auto r = RunCommand(kKsched + " simulate --quiet --cluster " + kExample +
                      " --explain shop/nope");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: shop/nope is not a pending pod of this "
                       "simulation: nothing to explain"),
            std::string::npos)
      << r.err;
  r = RunCommand(kKsched + " simulate --cluster " + kExample +
                 " --explain --explain-top -1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--explain-top must not be negative"),
            std::string::npos);
  r = RunCommand(kKsched + " simulate --cluster " + kExample + " shop/web-0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pods to explain follow --explain"), std::string::npos);
}

// Gangs: a PodGroup placed whole, one short of members, one that does not
// fit (and leaves its room free), as `simulate` reports them.
TEST(ExplainGoldenTest, GangsOnTheGangExample) {
  const std::string gang = kSource + "/examples/gang/";
  auto r =
      RunCommand(kKsched + " simulate --quiet --cluster " + gang +
                 "cluster.yaml --config " + gang + "scheduler-config.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  ExpectGolden("gang_example.txt", r.out);
  r = RunCommand(kKsched + " simulate --quiet -o json --cluster " + gang +
                 "cluster.yaml --config " + gang + "scheduler-config.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectGolden("gang_example.json", r.out);
}

}  // namespace ksched::explain_golden
