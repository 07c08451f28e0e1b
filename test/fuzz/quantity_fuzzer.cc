// Resource quantities ("100m", "1.5Gi", "1e3") as Kubernetes writes them
// in requests, limits and capacities. A parsed quantity must print in a
// canonical form that parses back to the same value and, printed again,
// settles, and its integer views must not overflow.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pkg/api/quantity.h"
#include "test/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto quantity = ksched::api::Quantity::Parse(text);
  if (!quantity.ok()) {
    KSCHED_FUZZ_CHECK(!quantity.error().message().empty(),
                      "a refused quantity has no error message");
    return 0;
  }
  (void)quantity->Value();
  (void)quantity->MilliValue();
  const std::string canonical = quantity->ToString();
  auto again = ksched::api::Quantity::Parse(canonical);
  KSCHED_FUZZ_CHECK(again.ok(), "a quantity's canonical form does not parse");
  KSCHED_FUZZ_CHECK(*again == *quantity,
                    "a quantity's canonical form has another value");
  // Printing may change the format once, as Kubernetes' does: a binary
  // quantity that is no whole number of Ki prints without a suffix, and a
  // plain number reads back as decimal ("62.5Ki" prints "64000", which
  // prints "64k"). From then on the form must stay put.
  const std::string reprinted = again->ToString();
  auto third = ksched::api::Quantity::Parse(reprinted);
  KSCHED_FUZZ_CHECK(third.ok() && *third == *quantity,
                    "a reprinted canonical form has another value");
  KSCHED_FUZZ_CHECK(third->ToString() == reprinted,
                    "a canonical form is not canonical");
  return 0;
}
