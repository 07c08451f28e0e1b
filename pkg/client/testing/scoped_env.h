// ScopedEnv: sets (or, with nullopt, unsets) an environment variable for
// one scope and puts back what was there. For tests only: ctest runs each
// test in a process of its own, so no other thread reads the environment
// meanwhile.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace ksched::client::testing {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value)
      : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace ksched::client::testing
