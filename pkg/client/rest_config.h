// RestConfig: where the API server is and how to authenticate to it, as
// client-go's rest.Config holds it once a kubeconfig or the in-cluster
// service account has been read.
#pragma once

#include <string>

namespace ksched::client {

struct RestConfig {
  // "https://host:port", without a trailing slash.
  std::string server;

  // PEM certificates that sign the server's; empty: the system's roots.
  std::string ca_pem;
  // Only when the kubeconfig says so (a warning is logged when honoured).
  bool insecure_skip_tls_verify = false;
  // Name to verify the server certificate against instead of the host.
  std::string tls_server_name;

  // Mutual TLS, PEM.
  std::string client_cert_pem;
  std::string client_key_pem;

  // Bearer token. When token_file is set it is re-read as it changes
  // (bound service-account tokens rotate) and bearer_token is only the
  // fallback while the file cannot be read, as in client-go.
  std::string bearer_token;
  std::string token_file;

  // Basic auth (rare; some test clusters).
  std::string username;
  std::string password;

  // The context's namespace, or the service account's; "default" if unset.
  std::string ns = "default";
};

}  // namespace ksched::client
