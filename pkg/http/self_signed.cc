#include "pkg/http/self_signed.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <chrono>
#include <memory>
#include <set>

namespace ksched::http {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CertFree {
  void operator()(X509* c) const { X509_free(c); }
};

std::string MemoryText(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return n > 0 ? std::string(data, static_cast<size_t>(n)) : "";
}

bool IsIp(const std::string& name) {
  unsigned char buf[16];
  return inet_pton(AF_INET, name.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, name.c_str(), buf) == 1;
}

bool AddExtension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return false;
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

}  // namespace

util::Result<PemCertAndKey> SelfSignedServingCert(
    const std::string& host, const std::vector<std::string>& extra_names) {
  auto fail = [](const char* what) {
    return util::Error(std::string("self-signed certificate: ") + what);
  };
  std::unique_ptr<EVP_PKEY, KeyFree> key(EVP_EC_gen("P-256"));
  if (key == nullptr) return fail("generating a key");
  std::unique_ptr<X509, CertFree> cert(X509_new());
  if (cert == nullptr) return fail("allocating a certificate");

  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const long seconds = static_cast<long>(
      std::chrono::duration_cast<std::chrono::seconds>(now).count());
  const std::string cn = host + "@" + std::to_string(seconds);
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), seconds);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()),
                             -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);

  std::set<std::string> names = {host, "localhost", "127.0.0.1"};
  names.insert(extra_names.begin(), extra_names.end());
  std::string san;
  for (const std::string& n : names) {
    if (n.empty()) continue;
    san += (san.empty() ? "" : ",") + std::string(IsIp(n) ? "IP:" : "DNS:") + n;
  }
  if (!AddExtension(cert.get(), NID_basic_constraints, "critical,CA:FALSE") ||
      !AddExtension(cert.get(), NID_key_usage,
                    "critical,digitalSignature,keyEncipherment") ||
      !AddExtension(cert.get(), NID_ext_key_usage, "serverAuth") ||
      !AddExtension(cert.get(), NID_subject_alt_name, san)) {
    return fail("adding extensions");
  }
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) {
    return fail("signing");
  }

  std::unique_ptr<BIO, BioFree> cert_bio(BIO_new(BIO_s_mem()));
  std::unique_ptr<BIO, BioFree> key_bio(BIO_new(BIO_s_mem()));
  if (cert_bio == nullptr || key_bio == nullptr ||
      PEM_write_bio_X509(cert_bio.get(), cert.get()) != 1 ||
      PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0,
                               nullptr, nullptr) != 1) {
    return fail("writing PEM");
  }
  return PemCertAndKey{MemoryText(cert_bio.get()), MemoryText(key_bio.get())};
}

}  // namespace ksched::http
