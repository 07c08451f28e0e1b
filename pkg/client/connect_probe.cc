#include "pkg/client/connect_probe.h"

#include <fcntl.h>
#include <netdb.h>
#include <openssl/err.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>

namespace ksched::client {
namespace {

// The lower-case strerror text Go's net package prints.
std::string Cause(int error) {
  if (error == ETIMEDOUT) return "timeout";
  std::string text = std::strerror(error);
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(text[0]));
  return text;
}

struct AddrInfoFree {
  void operator()(addrinfo* a) const { freeaddrinfo(a); }
};

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// One address: 0 when connected, else the errno.
int ConnectOnce(const addrinfo& a, std::chrono::milliseconds limit) {
  Fd fd(::socket(a.ai_family, a.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                 a.ai_protocol));
  if (fd.get() < 0) return errno;
  if (::connect(fd.get(), a.ai_addr, a.ai_addrlen) == 0) return 0;
  if (errno != EINPROGRESS) return errno;
  pollfd p{.fd = fd.get(), .events = POLLOUT, .revents = 0};
  const int ready = ::poll(&p, 1, static_cast<int>(limit.count()));
  if (ready == 0) return ETIMEDOUT;
  if (ready < 0) return errno;
  int error = 0;
  socklen_t len = sizeof(error);
  if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &len) != 0) {
    return errno;
  }
  return error;
}

}  // namespace

std::string ProbeConnect(const std::string& host, const std::string& port,
                         std::chrono::milliseconds limit) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* raw = nullptr;
  const int resolved = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &raw);
  std::unique_ptr<addrinfo, AddrInfoFree> addresses(raw);
  if (resolved == EAI_NONAME || resolved == EAI_NODATA) return "no such host";
  if (resolved != 0) return std::string("lookup: ") + gai_strerror(resolved);
  int last = EHOSTUNREACH;
  for (const addrinfo* a = addresses.get(); a != nullptr; a = a->ai_next) {
    last = ConnectOnce(*a, limit);
    if (last == 0) return "connected";
  }
  return Cause(last);
}

std::string OpenSslReason(unsigned long code) {
  // Packed OpenSSL codes carry a library number above the reason bits;
  // errno values do not.
  if (ERR_GET_LIB(code) == 0) return "";
  const char* reason = ERR_reason_error_string(code);
  return reason == nullptr ? "" : reason;
}

}  // namespace ksched::client
