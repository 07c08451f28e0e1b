// Box<T>: an optional value kept on the heap, copied deeply.
//
// For large, mostly absent parts of an object (a pod's affinity): an empty Box
// costs one pointer where std::optional<T> would cost sizeof(T) in every pod.
#pragma once

#include <memory>
#include <utility>

namespace ksched::api {

template <typename T>
class Box {
 public:
  Box() = default;
  Box(T value) : ptr_(std::make_unique<T>(std::move(value))) {}  // NOLINT
  Box(const Box& other)
      : ptr_(other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr) {}
  Box(Box&&) noexcept = default;
  Box& operator=(const Box& other) {
    if (this != &other) {
      ptr_ = other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr;
    }
    return *this;
  }
  Box& operator=(Box&&) noexcept = default;

  bool has_value() const { return ptr_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  const T& operator*() const { return *ptr_; }
  T& operator*() { return *ptr_; }
  const T* operator->() const { return ptr_.get(); }
  T* operator->() { return ptr_.get(); }
  const T* get() const { return ptr_.get(); }

  T& emplace() {
    ptr_ = std::make_unique<T>();
    return *ptr_;
  }
  void reset() { ptr_.reset(); }

  friend bool operator==(const Box& a, const Box& b) {
    if (!a.ptr_ || !b.ptr_) return a.ptr_ == b.ptr_;
    return *a.ptr_ == *b.ptr_;
  }

 private:
  std::unique_ptr<T> ptr_;
};

}  // namespace ksched::api
