#include "pkg/client/cpprest_threads.h"

#include <openssl/crypto.h>

#include <exception>

// boost/asio, under pplx, uses std::exchange without including <utility>.
// clang-format off
#include <utility>
#include <pplx/threadpool.h>
// clang-format on

namespace ksched::client {

int DefaultCpprestThreads() { return 1; }

bool ConfigureCpprestThreads(int threads) {
  if (threads < 1) return false;
  // The pool threads are never joined, so they still run when the process
  // exits; OpenSSL's exit-time cleanup would free shared state under them
  // and leave their per-thread state dangling. The process ends anyway.
  OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr);
  try {
    crossplat::threadpool::initialize_with_threads(
        static_cast<size_t>(threads));
  } catch (const std::exception&) {
    return false;  // already started
  }
  return true;
}

}  // namespace ksched::client
