#include "pkg/client/token_source.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

namespace ksched::client {
namespace {

// Tokens end at the first line break; files written by hand often have
// one after it.
std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' ||
                        s.back() == ' ' || s.back() == '\t')) {
    s.pop_back();
  }
  return s;
}

}  // namespace

TokenSource::TokenSource(const util::Clock& clock, const RestConfig& config,
                         util::Clock::Duration recheck)
    : clock_(clock),
      file_(config.token_file),
      recheck_(recheck),
      token_(Trim(config.bearer_token)) {}

std::string TokenSource::Token() {
  std::lock_guard lock(mu_);
  if (file_.empty()) return token_;
  const util::Clock::TimePoint now = clock_.Now();
  if (now < next_check_) return token_;
  next_check_ = now + recheck_;
  struct stat st {};
  if (::stat(file_.c_str(), &st) != 0) return token_;
  const int64_t mtime =
      static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  const int64_t size = static_cast<int64_t>(st.st_size);
  if (mtime == seen_mtime_ && size == seen_size_) return token_;
  std::ifstream in(file_);
  if (!in) return token_;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string fresh = Trim(ss.str());
  if (!fresh.empty()) token_ = std::move(fresh);
  seen_mtime_ = mtime;
  seen_size_ = size;
  return token_;
}

void TokenSource::Invalidate() {
  std::lock_guard lock(mu_);
  next_check_ = util::Clock::TimePoint{};
}

}  // namespace ksched::client
