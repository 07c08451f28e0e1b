// ApiOr<T>: what an API call returns: the value, or the ApiError the server
// (or the connection) answered with, so callers can tell a 404 from a 410.
#pragma once

#include <utility>
#include <variant>

#include "pkg/client/api_error.h"

namespace ksched::client {

template <typename T>
class [[nodiscard]] ApiOr {
 public:
  ApiOr(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT
  ApiOr(ApiError error)                                             // NOLINT
      : v_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const ApiError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, ApiError> v_;
};

}  // namespace ksched::client
