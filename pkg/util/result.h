// Result<T>: a value or an Error carrying a human-readable message.
//
// ksched reports bad input (JSON, YAML, flags, quantities) as values, never by
// throwing across component boundaries, so that a malformed object from the
// API server costs one log line and never the process.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace ksched::util {

class Error {
 public:
  explicit Error(std::string message) : message_(std::move(message)) {}

  const std::string& message() const { return message_; }

  // Returns a copy whose message is "<context>: <message>".
  Error Wrap(std::string_view context) const {
    return Error(std::string(context) + ": " + message_);
  }

  friend bool operator==(const Error&, const Error&) = default;

 private:
  std::string message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT
  Result(Error error)
      : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT

  static Result Ok() { return Result(); }

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_{""};
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace ksched::util
