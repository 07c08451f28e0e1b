#include "pkg/client/cpprest_threads.h"

#include <algorithm>
#include <exception>
#include <thread>

// boost/asio, under pplx, uses std::exchange without including <utility>.
// clang-format off
#include <utility>
#include <pplx/threadpool.h>
// clang-format on

namespace ksched::client {

int DefaultCpprestThreads() {
  const int hw = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(4, 2 * hw);
}

bool ConfigureCpprestThreads(int threads) {
  if (threads < 1) return false;
  try {
    crossplat::threadpool::initialize_with_threads(
        static_cast<size_t>(threads));
  } catch (const std::exception&) {
    return false;  // already started
  }
  return true;
}

}  // namespace ksched::client
