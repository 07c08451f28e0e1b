#include "pkg/client/tls_trust.h"

#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "pkg/client/testing/scoped_env.h"
#include "pkg/client/testing/test_pki.h"

namespace ksched::client {
namespace {

using testing::ScopedEnv;

int Certificates(const TrustStore& store) {
  return sk_X509_OBJECT_num(X509_STORE_get0_objects(store.get()));
}

TEST(TrustStoreTest, AClusterCaIsTheOnlyCertificate) {
  testing::TestPki pki;
  auto store = BuildTrustStore(pki.ca_pem());
  ASSERT_TRUE(store.ok()) << store.error().message();
  EXPECT_EQ(Certificates(*store), 1);

  testing::TestPki other;
  auto both = BuildTrustStore(pki.ca_pem() + other.ca_pem());
  ASSERT_TRUE(both.ok()) << both.error().message();
  EXPECT_EQ(Certificates(*both), 2);
}

TEST(TrustStoreTest, APemWithoutACertificateIsAnError) {
  auto store = BuildTrustStore("-----BEGIN NOTHING-----\nxyz\n");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().message(),
            "certificate authority: no certificate in the PEM");
}

TEST(TrustStoreTest, WithoutAClusterCaTheUsersRootsAreLoaded) {
  testing::TestPki a, b;
  const std::string roots = ::testing::TempDir() + "/tls_trust_test_roots_" +
                            std::to_string(getpid()) + ".pem";
  std::ofstream(roots) << a.ca_pem() << b.ca_pem();
  ScopedEnv file("SSL_CERT_FILE", roots);
  ScopedEnv saved(kSavedCertFileVar, std::nullopt);
  ScopedEnv dir("SSL_CERT_DIR", "/nonexistent/tls_trust_test");
  auto store = BuildTrustStore("");
  ASSERT_TRUE(store.ok()) << store.error().message();
  EXPECT_EQ(Certificates(*store), 2);
}

TEST(TrustStoreTest, DeferredDefaultsStillMeanTheSystemBundle) {
  // As main leaves the environment: the store holds what OpenSSL's
  // built-in bundle holds, not the nothing the deferred path points at.
  ScopedEnv file("SSL_CERT_FILE", kDeferredTrustPath);
  ScopedEnv saved(kSavedCertFileVar, std::nullopt);
  ScopedEnv dir("SSL_CERT_DIR", "/nonexistent/tls_trust_test");
  auto store = BuildTrustStore("");
  ASSERT_TRUE(store.ok()) << store.error().message();
  TrustStore direct(X509_STORE_new(), X509StoreFree());
  X509_STORE_load_file(direct.get(), X509_get_default_cert_file());
  ERR_clear_error();
  EXPECT_EQ(Certificates(*store), Certificates(direct));
}

TEST(TrustStoreTest, DeferringKeepsTheUsersBundleForTheStore) {
  testing::TestPki a;
  const std::string roots = ::testing::TempDir() + "/tls_trust_test_one_" +
                            std::to_string(getpid()) + ".pem";
  std::ofstream(roots) << a.ca_pem();
  ScopedEnv file("SSL_CERT_FILE", roots);
  ScopedEnv saved(kSavedCertFileVar, std::nullopt);
  ScopedEnv dir("SSL_CERT_DIR", "/nonexistent/tls_trust_test");
  DeferDefaultTlsTrust();
  // Every context now loads nothing by default...
  EXPECT_STREQ(std::getenv("SSL_CERT_FILE"), kDeferredTrustPath);
  // ...and the one store holds the user's bundle.
  auto store = BuildTrustStore("");
  ASSERT_TRUE(store.ok()) << store.error().message();
  EXPECT_EQ(Certificates(*store), 1);
  // Twice is once.
  DeferDefaultTlsTrust();
  EXPECT_STREQ(std::getenv(kSavedCertFileVar), roots.c_str());
}

}  // namespace
}  // namespace ksched::client
