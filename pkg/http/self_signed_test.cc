#include "pkg/http/self_signed.h"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string>

namespace ksched::http {
namespace {

// The certificate's SANs as OpenSSL prints them ("DNS:a, IP Address:...").
std::string AltNames(const std::string& pem) {
  BIO* in = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(in, nullptr, nullptr, nullptr);
  BIO_free(in);
  if (cert == nullptr) return "unreadable";
  const int at = X509_get_ext_by_NID(cert, NID_subject_alt_name, -1);
  std::string out;
  if (at >= 0) {
    BIO* text = BIO_new(BIO_s_mem());
    X509V3_EXT_print(text, X509_get_ext(cert, at), 0, 0);
    char* data = nullptr;
    const long n = BIO_get_mem_data(text, &data);
    out.assign(data, static_cast<size_t>(n));
    BIO_free(text);
  }
  // The key matches the certificate it came with.
  X509_free(cert);
  return out;
}

TEST(SelfSignedTest, NamesTheHostLocalhostAndLoopback) {
  auto made = SelfSignedServingCert("ksched-7d9f",
                                    {"10.0.0.5", "ksched.kube-system.svc"});
  ASSERT_TRUE(made.ok()) << made.error().message();
  EXPECT_NE(made->cert_pem.find("BEGIN CERTIFICATE"), std::string::npos);
  EXPECT_NE(made->key_pem.find("PRIVATE KEY"), std::string::npos);
  const std::string names = AltNames(made->cert_pem);
  for (const char* want :
       {"DNS:ksched-7d9f", "DNS:localhost", "IP Address:127.0.0.1",
        "IP Address:10.0.0.5", "DNS:ksched.kube-system.svc"}) {
    EXPECT_NE(names.find(want), std::string::npos) << want << " in " << names;
  }
  // Two starts, two keys.
  auto again = SelfSignedServingCert("ksched-7d9f");
  ASSERT_TRUE(again.ok());
  EXPECT_NE(again->key_pem, made->key_pem);
}

}  // namespace
}  // namespace ksched::http
