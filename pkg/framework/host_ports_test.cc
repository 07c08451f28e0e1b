#include "pkg/framework/host_ports.h"

#include <gtest/gtest.h>

namespace ksched::framework {
namespace {

// Cases after kube-scheduler's TestHostPortInfo_Check.
TEST(HostPortInfoTest, ConflictRules) {
  struct Entry {
    const char* ip;
    const char* protocol;
    int32_t port;
  };
  struct Case {
    const char* name;
    std::vector<Entry> used;
    Entry check;
    bool conflict;
  } cases[] = {
      {"same ip, protocol, port",
       {{"127.0.0.1", "TCP", 80}},
       {"127.0.0.1", "TCP", 80},
       true},
      {"different ip",
       {{"127.0.0.1", "TCP", 80}},
       {"127.0.0.2", "TCP", 80},
       false},
      {"different protocol",
       {{"127.0.0.1", "TCP", 80}},
       {"127.0.0.1", "UDP", 80},
       false},
      {"different port",
       {{"127.0.0.1", "TCP", 80}},
       {"127.0.0.1", "TCP", 81},
       false},
      {"wildcard checked against a specific ip",
       {{"127.0.0.1", "TCP", 80}},
       {"0.0.0.0", "TCP", 80},
       true},
      {"specific ip checked against a wildcard",
       {{"0.0.0.0", "TCP", 80}},
       {"127.0.0.1", "TCP", 80},
       true},
      {"empty ip and protocol mean 0.0.0.0 and TCP",
       {{"", "", 8080}},
       {"10.0.0.1", "TCP", 8080},
       true},
      {"port 0 never conflicts", {{"", "", 0}}, {"", "", 0}, false},
  };
  for (const Case& c : cases) {
    HostPortInfo info;
    for (const Entry& e : c.used) info.Add(e.ip, e.protocol, e.port);
    EXPECT_EQ(info.CheckConflict(c.check.ip, c.check.protocol, c.check.port),
              c.conflict)
        << c.name;
  }
}

TEST(HostPortInfoTest, RemoveFreesThePort) {
  HostPortInfo info;
  info.Add("", "TCP", 443);
  info.Add("", "TCP", 443);  // idempotent
  EXPECT_EQ(info.size(), 1u);
  info.Remove("0.0.0.0", "", 443);
  EXPECT_TRUE(info.empty());
  EXPECT_FALSE(info.CheckConflict("", "TCP", 443));
}

}  // namespace
}  // namespace ksched::framework
