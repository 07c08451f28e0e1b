#include "pkg/client/split_transport.h"

namespace ksched::client {

util::Result<HttpResponse> SplitTransport::RoundTrip(
    const HttpRequest& request) {
  const bool read = request.method == "GET" || request.method == "HEAD";
  return (read ? reads_ : writes_)->RoundTrip(request);
}

}  // namespace ksched::client
