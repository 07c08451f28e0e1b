#include "cmd/ksched/secure_serving.h"

#include "pkg/http/self_signed.h"

namespace ksched::cmd {

void SecureServingFlags::Register(util::FlagSet& flags) {
  flags.Int("secure-port", &secure_port,
            "HTTPS port for /metrics and the health checks, with delegated "
            "authentication and authorization; 0: none");
  flags.String("bind-address", &bind_address,
               "The address the secure port listens on");
  flags.String("tls-cert-file", &tls_cert_file,
               "PEM certificate chain for the secure port (default: a "
               "self-signed certificate made at start-up)");
  flags.String("tls-private-key-file", &tls_key_file,
               "PEM private key of --tls-cert-file");
  flags.String("authorization-always-allow-paths", &always_allow_paths,
               "Paths of the secure port served without a token, comma "
               "separated (a trailing * matches a prefix)");
}

std::vector<std::string> SplitList(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string item = list.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.erase(0, 1);
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) out.push_back(std::move(item));
    start = comma + 1;
  }
  return out;
}

util::Result<metrics::MetricsServerOptions> SecureServingOptions(
    const SecureServingFlags& flags, metrics::MetricsServerOptions base,
    auth::DelegatingAuthorizer* authorizer, const std::string& host) {
  if (flags.secure_port < 0 || flags.secure_port > 65535) {
    return util::Error("--secure-port must be between 0 and 65535");
  }
  if (flags.tls_cert_file.empty() != flags.tls_key_file.empty()) {
    return util::Error(
        "--tls-cert-file and --tls-private-key-file go together");
  }
  const bool v6 = flags.bind_address.find(':') != std::string::npos;
  base.bind_address =
      (v6 ? "[" + flags.bind_address + "]" : flags.bind_address) + ":" +
      std::to_string(flags.secure_port);
  base.tls_cert_file = flags.tls_cert_file;
  base.tls_key_file = flags.tls_key_file;
  if (flags.tls_cert_file.empty()) {
    auto made = http::SelfSignedServingCert(host);
    if (!made.ok()) return made.error();
    base.tls_cert_pem = made->cert_pem;
    base.tls_key_pem = made->key_pem;
  }
  base.authorizer = authorizer;
  base.always_allow_paths = SplitList(flags.always_allow_paths);
  base.name = "secure port";
  return base;
}

}  // namespace ksched::cmd
