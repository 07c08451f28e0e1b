#include "pkg/client/testing/test_pki.h"

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <stdexcept>

namespace ksched::client::testing {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};

void Check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("test PKI: ") + what);
}

std::string ToPem(X509* cert) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  Check(PEM_write_bio_X509(bio.get(), cert) == 1, "writing a certificate");
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

std::string ToPem(EVP_PKEY* key) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  Check(PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr,
                                 nullptr) == 1,
        "writing a key");
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

void AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  Check(ext != nullptr, "making an extension");
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// A certificate for `key`, named `cn`, valid from an hour ago for a day.
X509* NewCert(EVP_PKEY* key, const std::string& cn, long serial) {
  X509* cert = X509_new();
  Check(cert != nullptr, "allocating a certificate");
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), serial);
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
  X509_set_pubkey(cert, key);
  X509_NAME_add_entry_by_txt(X509_get_subject_name(cert), "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()),
                             -1, -1, 0);
  return cert;
}

}  // namespace

TestPki::TestPki() : ca_key_(EVP_EC_gen("P-256")) {
  Check(ca_key_ != nullptr, "making the CA key");
  ca_cert_.reset(NewCert(ca_key_.get(), "ksched test CA", serial_++));
  X509* ca = ca_cert_.get();
  X509_set_issuer_name(ca, X509_get_subject_name(ca));
  AddExtension(ca, ca, NID_basic_constraints, "critical,CA:TRUE");
  AddExtension(ca, ca, NID_key_usage, "critical,keyCertSign,cRLSign");
  AddExtension(ca, ca, NID_subject_key_identifier, "hash");
  Check(X509_sign(ca, ca_key_.get(), EVP_sha256()) > 0, "signing the CA");
  ca_pem_ = ToPem(ca);
}

CertAndKey TestPki::Issue(const std::string& common_name,
                          const std::string& subject_alt_names, bool client) {
  std::unique_ptr<EVP_PKEY, KeyFree> key(EVP_EC_gen("P-256"));
  Check(key != nullptr, "making a key");
  std::unique_ptr<X509, CertFree> cert(
      NewCert(key.get(), common_name, serial_++));
  X509_set_issuer_name(cert.get(), X509_get_subject_name(ca_cert_.get()));
  AddExtension(cert.get(), ca_cert_.get(), NID_basic_constraints,
               "critical,CA:FALSE");
  AddExtension(cert.get(), ca_cert_.get(), NID_key_usage,
               "critical,digitalSignature");
  AddExtension(cert.get(), ca_cert_.get(), NID_ext_key_usage,
               client ? "clientAuth" : "serverAuth");
  if (!subject_alt_names.empty()) {
    AddExtension(cert.get(), ca_cert_.get(), NID_subject_alt_name,
                 subject_alt_names);
  }
  Check(X509_sign(cert.get(), ca_key_.get(), EVP_sha256()) > 0,
        "signing a certificate");
  return {ToPem(cert.get()), ToPem(key.get())};
}

}  // namespace ksched::client::testing
