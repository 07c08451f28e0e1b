// SplitTransport: reads and writes over two transports, so each kind of
// request gets its own deadline behind one REST client (one rate limiter):
// a GET may carry a large list slowly, while a write (a Binding, an Event,
// a status patch, a delete) that gets no answer should be given up soon,
// well within the bound on a graceful shutdown.
#pragma once

#include <memory>

#include "pkg/client/transport.h"

namespace ksched::client {

class SplitTransport final : public Transport {
 public:
  SplitTransport(std::unique_ptr<Transport> reads,
                 std::unique_ptr<Transport> writes)
      : reads_(std::move(reads)), writes_(std::move(writes)) {}

  // GET and HEAD go to `reads`; every other method to `writes`.
  util::Result<HttpResponse> RoundTrip(const HttpRequest& request) override;
  // Streams (watches) are reads.
  util::Result<StreamedResponse> Stream(const HttpRequest& request,
                                        util::Cancellation& cancel) override {
    return reads_->Stream(request, cancel);
  }
  void CloseIdleConnections() override {
    reads_->CloseIdleConnections();
    writes_->CloseIdleConnections();
  }

 private:
  std::unique_ptr<Transport> reads_;
  std::unique_ptr<Transport> writes_;
};

}  // namespace ksched::client
