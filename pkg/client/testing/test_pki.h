// TestPki: a throwaway certificate authority for tests that speak TLS: a
// CA and the server and client certificates it signs, as PEM.
#pragma once

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

namespace ksched::client::testing {

struct CertAndKey {
  std::string cert_pem;
  std::string key_pem;
};

class TestPki {
 public:
  TestPki();

  const std::string& ca_pem() const { return ca_pem_; }
  // A certificate for `subject_alt_names` ("DNS:localhost,IP:127.0.0.1")
  // usable by a server or, with `client`, by a client.
  CertAndKey Issue(const std::string& common_name,
                   const std::string& subject_alt_names, bool client = false);

 private:
  struct KeyFree {
    void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
  };
  struct CertFree {
    void operator()(X509* c) const { X509_free(c); }
  };
  std::unique_ptr<EVP_PKEY, KeyFree> ca_key_;
  std::unique_ptr<X509, CertFree> ca_cert_;
  std::string ca_pem_;
  long serial_ = 1;
};

}  // namespace ksched::client::testing
