// Kubernetes' field-error vocabulary (apimachinery util/validation/field),
// so that ksched reports a bad configuration in the words kube-scheduler
// uses: `profiles[1].schedulerName: Duplicate value: "x"`, and several
// errors as one "[first, second]" message.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::config {

// field.Path: "profiles[0].pluginConfig[1].args.weight", "values[0][key]".
class FieldPath {
 public:
  FieldPath() = default;
  explicit FieldPath(std::string_view root) : text_(root) {}

  FieldPath Child(std::string_view name) const;
  FieldPath Index(size_t index) const;
  FieldPath Key(std::string_view key) const;
  const std::string& String() const { return text_; }

 private:
  std::string text_;
};

// Renderings of a bad value as Go's field errors print it.
std::string GoQuote(std::string_view s);  // strconv.Quote
std::string GoValue(int64_t v);           // %v of an integer
std::string GoQuotedList(const std::vector<std::string>& values);  // %#v

// field.Error; String() is its Error().
struct FieldError {
  enum class Type {
    kRequired,
    kInvalid,
    kDuplicate,
    kNotSupported,
    kForbidden,
    kTooLong,
    kTooMany,
    kNotFound,
    kInternal
  };
  Type type;
  std::string field;
  std::optional<std::string> value;  // already rendered
  std::string detail;

  std::string String() const;
};

FieldError Required(const FieldPath& path, std::string_view detail);
FieldError Forbidden(const FieldPath& path, std::string_view detail);
FieldError Invalid(const FieldPath& path, std::string value,
                   std::string_view detail);
FieldError Duplicate(const FieldPath& path, std::string value);
FieldError NotSupported(const FieldPath& path, std::string value,
                        const std::vector<std::string>& supported);
// field.TooLong: the value itself is never shown.
FieldError TooLong(const FieldPath& path, int64_t max_length);
// field.TooMany: "Too many: 33: must have at most 32 items".
FieldError TooMany(const FieldPath& path, int64_t actual, int64_t max_items);
// field.NotFound; callers may set a detail, as some of kube's do.
FieldError NotFound(const FieldPath& path, std::string value);
// field.InternalError: "Internal error: <the error's text>".
FieldError InternalError(const FieldPath& path, std::string_view error);

using FieldErrors = std::vector<FieldError>;

// utilerrors.NewAggregate(...).Error(): one message as is, several as
// "[a, b]" with repeated messages dropped; "" when there are none.
std::string AggregateMessage(const FieldErrors& errors);

}  // namespace ksched::config
