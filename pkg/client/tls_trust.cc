#include "pkg/client/tls_trust.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstdlib>
#include <string_view>

namespace ksched::client {

namespace {

// The bundle file the user chose, if any: saved by DeferDefaultTlsTrust,
// or still in SSL_CERT_FILE when it did not run.
std::string UserCertFile() {
  if (const char* saved = std::getenv(kSavedCertFileVar)) return saved;
  const char* value = std::getenv("SSL_CERT_FILE");
  if (value == nullptr || std::string_view(value) == kDeferredTrustPath) {
    return "";
  }
  return value;
}

std::string OpenSslError() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "no certificate found";
  char buffer[256];
  ERR_error_string_n(code, buffer, sizeof buffer);
  return buffer;
}

}  // namespace

void DeferDefaultTlsTrust() {
  const char* file = std::getenv("SSL_CERT_FILE");
  if (file != nullptr && std::string_view(file) == kDeferredTrustPath) return;
  if (file != nullptr) setenv(kSavedCertFileVar, file, /*overwrite=*/1);
  setenv("SSL_CERT_FILE", kDeferredTrustPath, /*overwrite=*/1);
}

util::Result<TrustStore> BuildTrustStore(const std::string& ca_pem) {
  TrustStore store(X509_STORE_new(), X509StoreFree());
  if (store == nullptr) return util::Error("X509_STORE_new: " + OpenSslError());
  if (!ca_pem.empty()) {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(
        BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size())),
        BIO_free);
    int added = 0;
    while (true) {
      std::unique_ptr<X509, decltype(&X509_free)> cert(
          PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), X509_free);
      if (cert == nullptr) break;
      if (X509_STORE_add_cert(store.get(), cert.get()) != 1) {
        return util::Error("certificate authority: " + OpenSslError());
      }
      ++added;
    }
    // The loop ends on the error of reading past the last certificate.
    ERR_clear_error();
    if (added == 0) {
      return util::Error("certificate authority: no certificate in the PEM");
    }
    return store;
  }
  // System roots: the user's SSL_CERT_FILE / SSL_CERT_DIR, else OpenSSL's
  // built-in locations (which DeferDefaultTlsTrust kept from being read
  // for every connection), read once here.
  std::string file = UserCertFile();
  if (file.empty()) file = X509_get_default_cert_file();
  std::string dir;
  if (const char* value = std::getenv("SSL_CERT_DIR")) {
    dir = value;
  } else {
    dir = X509_get_default_cert_dir();
  }
  // A missing file or directory leaves fewer roots, as OpenSSL's own
  // default load would; verification then fails with a clear reason.
  if (!file.empty()) {
    X509_STORE_load_file(store.get(), file.c_str());
  }
  if (!dir.empty()) {
    X509_STORE_load_path(store.get(), dir.c_str());
  }
  ERR_clear_error();
  return store;
}

}  // namespace ksched::client
