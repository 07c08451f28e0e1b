#include "pkg/client/split_transport.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ksched::client {
namespace {

// Answers with its own name and remembers what it was asked.
class NamedTransport final : public Transport {
 public:
  NamedTransport(std::string name, std::vector<std::string>* seen)
      : name_(std::move(name)), seen_(seen) {}
  util::Result<HttpResponse> RoundTrip(const HttpRequest& request) override {
    seen_->push_back(name_ + " " + request.method);
    return HttpResponse{.code = 200, .body = name_};
  }
  util::Result<StreamedResponse> Stream(const HttpRequest& request,
                                        util::Cancellation&) override {
    seen_->push_back(name_ + " stream " + request.method);
    return StreamedResponse{.code = 200};
  }

 private:
  std::string name_;
  std::vector<std::string>* seen_;
};

TEST(SplitTransportTest, WritesGoToTheirOwnTransport) {
  std::vector<std::string> seen;
  SplitTransport split(std::make_unique<NamedTransport>("reads", &seen),
                       std::make_unique<NamedTransport>("writes", &seen));
  for (const char* method : {"GET", "POST", "PATCH", "PUT", "DELETE", "HEAD"}) {
    auto r = split.RoundTrip({.method = method, .path = "/api/v1/pods"});
    ASSERT_TRUE(r.ok());
  }
  util::Cancellation cancel;
  ASSERT_TRUE(split.Stream({.path = "/api/v1/pods?watch=true"}, cancel).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "reads GET", "writes POST", "writes PATCH", "writes PUT",
                      "writes DELETE", "reads HEAD", "reads stream GET"}));
}

}  // namespace
}  // namespace ksched::client
