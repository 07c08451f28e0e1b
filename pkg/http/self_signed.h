// A self-signed serving certificate, made in memory at start-up, for a
// secure port the user gave no certificate for (as kube-scheduler makes
// one for its secure port). Clients cannot verify it against a CA; they
// skip verification (Prometheus' insecure_skip_verify, the kubelet's
// probes) or pin it, and the connection is still encrypted.
#pragma once

#include <string>
#include <vector>

#include "pkg/util/result.h"

namespace ksched::http {

struct PemCertAndKey {
  std::string cert_pem;
  std::string key_pem;
};

// An ECDSA P-256 key and a certificate for it, valid for a year from an
// hour ago, named "<host>@<unix seconds>" as kube names its own, with
// `host`, "localhost" and 127.0.0.1 as subject alternative names, and
// `extra_names` (DNS names, or IP addresses) too.
util::Result<PemCertAndKey> SelfSignedServingCert(
    const std::string& host, const std::vector<std::string>& extra_names = {});

}  // namespace ksched::http
