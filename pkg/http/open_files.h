// RaiseOpenFileLimit: as Go programs (kube-scheduler among them) do at
// start, raises the soft RLIMIT_NOFILE to the hard limit, so that the
// connections a server holds open do not run the process out of file
// descriptors at the customary soft limit of 1024 while the hard limit
// allows far more. ksched uses poll/epoll only, never select(), so
// descriptors above FD_SETSIZE are fine.
#pragma once

#include <cstdint>

#include "pkg/util/result.h"

namespace ksched::http {

struct OpenFileLimit {
  uint64_t before = 0;  // the soft limit found
  uint64_t after = 0;   // the soft limit now
};

// With an unlimited hard limit, raises to the kernel's per-process cap
// (/proc/sys/fs/nr_open). Errors, leaving the limit as it was, when
// setrlimit refuses.
util::Result<OpenFileLimit> RaiseOpenFileLimit();

}  // namespace ksched::http
