#include "pkg/http/open_files.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

namespace ksched::http {

util::Result<OpenFileLimit> RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return util::Error(std::string("getrlimit(RLIMIT_NOFILE): ") +
                       std::strerror(errno));
  }
  OpenFileLimit result{.before = limit.rlim_cur, .after = limit.rlim_cur};
  rlim_t target = limit.rlim_max;
  if (target == RLIM_INFINITY) {
    // The kernel refuses a soft limit above nr_open.
    uint64_t nr_open = 1 << 20;
    std::ifstream("/proc/sys/fs/nr_open") >> nr_open;
    target = static_cast<rlim_t>(nr_open);
  }
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur >= target) {
    return result;
  }
  limit.rlim_cur = target;
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return util::Error("raising the open file limit from " +
                       std::to_string(result.before) + " to " +
                       std::to_string(target) + ": " + std::strerror(errno));
  }
  result.after = target;
  return result;
}

}  // namespace ksched::http
