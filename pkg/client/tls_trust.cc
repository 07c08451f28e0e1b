#include "pkg/client/tls_trust.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstdlib>
#include <string_view>

namespace ksched::client {

namespace {

// The user's setting of `var`, or empty when unset or set by us.
std::string UserSetting(const char* var) {
  const char* value = std::getenv(var);
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
  if (std::getenv("SSL_CERT_FILE") != nullptr ||
      std::getenv("SSL_CERT_DIR") != nullptr) {
    return;  // the user chose their trust; OpenSSL loads it as told
  }
  setenv("SSL_CERT_FILE", kDeferredTrustPath, /*overwrite=*/0);
  setenv("SSL_CERT_DIR", kDeferredTrustPath, /*overwrite=*/0);
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
  // for every connection).
  std::string file = UserSetting("SSL_CERT_FILE");
  std::string dir = UserSetting("SSL_CERT_DIR");
  if (file.empty() && dir.empty()) {
    file = X509_get_default_cert_file();
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
