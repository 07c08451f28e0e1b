// Device selectors (validateSelectorSlice, validateCELSelector): each CEL
// expression compiled as the API server compiles a new one, and its
// compile error reported as convertCELErrorToValidationError does.
#include "pkg/cel/dra.h"
#include "pkg/validation/dra_internal.h"

namespace ksched::validation::internal::dra {
namespace {

using config::GoQuote;

// The features of v1.36's default gates the compiler is given:
// DRAConsumableCapacity is on (device.allowMultipleAllocations exists),
// DRAListTypeAttributes off.
constexpr cel::dra::Features kSelectorFeatures{.consumable_capacity = true};

}  // namespace

// kube-apiserver refuses a selector whose worst-case cost, as cel-go
// estimates it with Kubernetes' and DRA's size estimates, exceeds the
// limit (validateCELSelector).
FieldErrors SelectorCostErrors(const cel::dra::Selector& selector,
                               const FieldPath& expression_path) {
  if (selector.estimated_max_cost() <= cel::dra::kSelectorMaxCost) return {};
  return {
      config::Forbidden(expression_path, "too complex, exceeds cost limit")};
}

namespace {

void ValidateCelSelector(const Json& cel, const FieldPath& path,
                         FieldErrors* errs) {
  FieldPath expression_path = path.Child("expression");
  std::string expression = StringField(cel, "expression");
  if (expression.size() > cel::dra::kSelectorMaxLength) {
    // Too long to be worth compiling.
    errs->push_back(
        config::TooLong(expression_path, cel::dra::kSelectorMaxLength));
    return;
  }
  auto compiled = cel::dra::Selector::Compile(expression, kSelectorFeatures);
  if (!compiled.ok()) {
    const std::string& message = compiled.error().message();
    // Kubernetes' compiler calls a failure to plan the program internal
    // (cel.ErrorTypeInternal), a failure of the expression invalid.
    if (message.starts_with("program instantiation failed: ")) {
      errs->push_back(config::InternalError(expression_path, message));
    } else {
      errs->push_back(
          config::Invalid(expression_path, GoQuote(expression), message));
    }
    return;
  }
  FieldErrors cost = SelectorCostErrors(**compiled, expression_path);
  errs->insert(errs->end(), cost.begin(), cost.end());
}

}  // namespace

void ValidateDeviceSelectors(const Json* selectors, const FieldPath& path,
                             FieldErrors* errs) {
  if (selectors == nullptr ||
      TooManyItems(selectors, kDeviceSelectorsMaxSize, path, errs)) {
    return;
  }
  for (size_t i = 0; i < selectors->Size(); ++i) {
    const Json& selector = (*selectors)[static_cast<rapidjson::SizeType>(i)];
    FieldPath cel_path = path.Index(i).Child("cel");
    if (const Json* cel = ObjectField(selector, "cel")) {
      ValidateCelSelector(*cel, cel_path, errs);
    } else {
      errs->push_back(config::Required(cel_path, ""));
    }
  }
}

}  // namespace ksched::validation::internal::dra
