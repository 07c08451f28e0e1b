// The certificates the API client trusts, built once per process.
//
// cpprestsdk gives every new TLS connection a fresh OpenSSL context and
// loads OpenSSL's default trust into it (SSL_CTX_set_default_verify_paths:
// the system bundle, about 140 certificates and 20 ms of CPU) before the
// client may configure it. ksched opens dozens of connections (a watch per
// informer, one per binding worker, and new ones whenever an idle one
// closed), so that load cost more than listing the cluster at start-up.
// Instead: the default load is pointed at nothing (DeferDefaultTlsTrust,
// once, first thing in main) and each connection gets a reference to one
// store built here.
//
// Which certificates, as client-go decides: the cluster CA alone when the
// kubeconfig (or the service account) gives one, otherwise the system
// roots (SSL_CERT_FILE / SSL_CERT_DIR when set, else OpenSSL's built-in
// locations).
#pragma once

#include <openssl/x509_vfy.h>

#include <memory>
#include <string>

#include "pkg/util/result.h"

namespace ksched::client {

// Where DeferDefaultTlsTrust points OpenSSL's default trust: a path that
// does not exist, so loading it costs nothing and adds nothing.
inline constexpr char kDeferredTrustPath[] =
    "/nonexistent/ksched-managed-trust";

// The variable DeferDefaultTlsTrust keeps the user's SSL_CERT_FILE in.
inline constexpr char kSavedCertFileVar[] = "KSCHED_SYSTEM_SSL_CERT_FILE";

// Points SSL_CERT_FILE (the bundle OpenSSL loads into every context) at
// kDeferredTrustPath, keeping a value the user set in kSavedCertFileVar
// for BuildTrustStore. SSL_CERT_DIR is left alone: a directory is only
// looked into during verification, and the contexts get BuildTrustStore's
// store instead. Changes the environment: call it while the process has a
// single thread, before any TLS connection.
void DeferDefaultTlsTrust();

struct X509StoreFree {
  void operator()(X509_STORE* store) const { X509_STORE_free(store); }
};
using TrustStore = std::shared_ptr<X509_STORE>;

// The store to verify the API server with: `ca_pem` alone when not empty
// (an error when it holds no certificate), else the system roots.
util::Result<TrustStore> BuildTrustStore(const std::string& ca_pem);

}  // namespace ksched::client
