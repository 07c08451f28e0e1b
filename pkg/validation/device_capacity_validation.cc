// The request policy of a device capacity that several allocations share
// (DRAConsumableCapacity, beta and on in v1.36): validateRequestPolicy
// and the checks of its discrete values and its range.
#include "pkg/validation/dra_internal.h"

namespace ksched::validation::internal::dra {
namespace {

using config::GoQuote;

constexpr size_t kDiscreteMaxOptions = 10;

// A quantity as the API holds it: device capacities are not rounded as
// resource lists are. Zero when absent or unreadable (the decoder has
// refused what cannot be read).
api::Quantity QuantityOf(const Json* v) {
  if (v == nullptr) return api::Quantity();
  std::optional<std::string> text = ScalarText(*v);
  if (!text) return api::Quantity();
  // Quantity.UnmarshalJSON trims surrounding spaces.
  size_t first = text->find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return api::Quantity();
  size_t last = text->find_last_not_of(" \t\r\n");
  auto parsed = api::Quantity::Parse(
      std::string_view(*text).substr(first, last - first + 1));
  return parsed.ok() ? *parsed : api::Quantity();
}

std::string Text(const api::Quantity& q) { return q.ToString(); }

// validateRequestPolicyValidValues: ascending options, none above the
// capacity, none repeated, the default among them.
void ValidateValidValues(const api::Quantity& default_value,
                         const api::Quantity& max, const Json& values,
                         const FieldPath& path, FieldErrors* errs) {
  std::vector<api::Quantity> options;
  for (const Json& v : values.GetArray()) options.push_back(QuantityOf(&v));
  for (size_t i = 0; i + 1 < options.size(); ++i) {
    if (options[i] > options[i + 1]) {
      errs->push_back(
          config::Invalid(path.Index(i + 1), GoQuote(Text(options[i + 1])),
                          "values must be sorted in ascending order"));
    }
  }
  bool found_default = false;
  if (!TooManyItems(&values, kDiscreteMaxOptions, path, errs)) {
    std::vector<std::string> keys;
    for (size_t i = 0; i < options.size(); ++i) {
      if (options[i] > max) {
        errs->push_back(config::Invalid(
            path.Index(i), GoQuote(Text(options[i])),
            "option is larger than capacity value: " + Text(max)));
      }
      if (options[i] == default_value) found_default = true;
      // Options are told apart by their whole value, rounded up.
      keys.push_back(std::to_string(options[i].Value()));
    }
    ReportDuplicates(keys, path, errs);
  }
  if (!found_default) {
    errs->push_back(
        config::Invalid(path, GoQuote(Text(default_value)),
                        "default value is not valid according to the "
                        "requestPolicy"));
  }
}

// validateRequestPolicyRangeStep: `value` lies a whole number of steps
// above min, in whole units.
void ValidateStep(const api::Quantity& value, const api::Quantity& min,
                  const api::Quantity& step, const FieldPath& path,
                  FieldErrors* errs) {
  int64_t step_value = step.Value();
  // Kubernetes divides by the step here without looking; with a zero step
  // the API server answers with an internal error instead. Nothing is
  // reported for it here.
  if (step_value == 0) return;
  // Go's int64 arithmetic wraps.
  auto added = static_cast<int64_t>(static_cast<uint64_t>(value.Value()) -
                                    static_cast<uint64_t>(min.Value()));
  if (step_value != -1 && added % step_value != 0) {
    errs->push_back(
        config::Invalid(path, GoQuote(Text(value)),
                        "value is not a multiple of a given step (" +
                            Text(step) + ") from (" + Text(min) + ")"));
  }
}

// validateRequestPolicyRange.
void ValidateRange(const api::Quantity& default_value, const api::Quantity& max,
                   const Json& range, const FieldPath& path,
                   FieldErrors* errs) {
  const Json* min_json = Field(range, "min");
  if (min_json == nullptr) {
    errs->push_back(config::Required(path.Child("min"),
                                     "required when validRange is defined"));
    return;
  }
  api::Quantity min = QuantityOf(min_json);
  if (min > max) {
    errs->push_back(
        config::Invalid(path.Child("min"), GoQuote(Text(min)),
                        "min is larger than capacity value: " + Text(max)));
  }
  if (default_value < min) {
    errs->push_back(config::Invalid(path.Child("min"),
                                    GoQuote(Text(default_value)),
                                    "default is less than min: " + Text(min)));
  }
  const Json* range_max_json = Field(range, "max");
  api::Quantity range_max = QuantityOf(range_max_json);
  if (range_max_json != nullptr) {
    if (min > range_max) {
      errs->push_back(
          config::Invalid(path.Child("max"), GoQuote(Text(min)),
                          "min is larger than max: " + Text(range_max)));
    }
    if (range_max > max) {
      errs->push_back(
          config::Invalid(path.Child("max"), GoQuote(Text(range_max)),
                          "max is larger than capacity value: " + Text(max)));
    }
    if (default_value > range_max) {
      errs->push_back(
          config::Invalid(path.Child("max"), GoQuote(Text(default_value)),
                          "default is more than max: " + Text(range_max)));
    }
  }
  if (const Json* step_json = Field(range, "step")) {
    api::Quantity step = QuantityOf(step_json);
    api::Quantity one_step = min;
    one_step += step;
    if (one_step > max) {
      errs->push_back(
          config::Invalid(path.Child("step"), GoQuote(Text(step)),
                          "one step " + Text(one_step) +
                              " is larger than capacity value: " + Text(max)));
    }
    ValidateStep(default_value, min, step, path.Child("step"), errs);
    if (range_max_json != nullptr) {
      ValidateStep(range_max, min, step, path.Child("step"), errs);
    }
  }
}

}  // namespace

api::Quantity CapacityValue(const Json& capacity) {
  return QuantityOf(Field(capacity, "value"));
}

void ValidateRequestPolicy(const api::Quantity& max, const Json& policy,
                           const FieldPath& path, FieldErrors* errs) {
  const Json* valid_values = ArrayField(policy, "validValues");
  bool has_values = valid_values != nullptr && !valid_values->Empty();
  const Json* valid_range = ObjectField(policy, "validRange");
  const Json* default_json = Field(policy, "default");
  if (has_values && valid_range != nullptr) {
    errs->push_back(config::Forbidden(
        path,
        "exactly one policy can be specified, cannot specify \"validValues\" "
        "and \"validRange\" at the same time"));
  } else if (has_values) {
    if (default_json == nullptr) {
      errs->push_back(config::Required(path.Child("default"),
                                       "required when validValues is defined"));
    } else {
      ValidateValidValues(QuantityOf(default_json), max, *valid_values,
                          path.Child("validValues"), errs);
    }
  } else if (valid_range != nullptr) {
    if (default_json == nullptr) {
      errs->push_back(config::Required(path.Child("default"),
                                       "required when validRange is defined"));
    } else {
      ValidateRange(QuantityOf(default_json), max, *valid_range,
                    path.Child("validRange"), errs);
    }
  }
}

}  // namespace ksched::validation::internal::dra
