// The secure port, as kube-scheduler's: HTTPS on --bind-address and
// --secure-port (10259), with the certificate the user gives or one
// self-signed at start-up; /metrics (and anything but the health checks)
// for bearer tokens the API server authenticates and authorizes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pkg/metrics/metrics_server.h"
#include "pkg/util/flags.h"
#include "pkg/util/result.h"

namespace ksched::cmd {

struct SecureServingFlags {
  int64_t secure_port = 10259;
  std::string bind_address = "0.0.0.0";
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string always_allow_paths = "/healthz,/readyz,/livez";

  void Register(util::FlagSet& flags);
  bool enabled() const { return secure_port != 0; }
};

// `base` (what to serve) for the secure port: its address, its TLS
// (self-signed for `host` unless files are given) and `authorizer`.
util::Result<metrics::MetricsServerOptions> SecureServingOptions(
    const SecureServingFlags& flags, metrics::MetricsServerOptions base,
    auth::DelegatingAuthorizer* authorizer, const std::string& host);

// "a,b,,c" -> {"a", "b", "c"}.
std::vector<std::string> SplitList(const std::string& list);

}  // namespace ksched::cmd
