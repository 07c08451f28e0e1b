// CEL selector expressions as ResourceClaims and DeviceClasses carry them:
// compiled in Kubernetes' DRA environment and evaluated against a device,
// and compiled unchecked in the standard environment and evaluated. No
// input may crash, hang or exhaust the stack; every failure has a message,
// and a selector's result is a bool or an error.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/cel/dra.h"
#include "test/fuzz/fuzz_check.h"

namespace {

const ksched::cel::dra::Device& FuzzDevice() {
  static const auto* device = [] {
    auto* d = new ksched::cel::dra::Device();
    d->driver = "gpu.example.com";
    ksched::cel::dra::DeviceAttribute model;
    model.string_value = "h100";
    d->attributes.push_back({"model", model});
    ksched::cel::dra::DeviceAttribute index;
    index.kind = ksched::cel::dra::DeviceAttribute::Kind::kInt;
    index.int_value = 3;
    d->attributes.push_back({"index", index});
    ksched::cel::dra::DeviceAttribute version;
    version.kind = ksched::cel::dra::DeviceAttribute::Kind::kVersion;
    version.string_value = "1.2.3";
    d->attributes.push_back({"driverVersion", version});
    d->capacity.push_back({"memory", *ksched::api::Quantity::Parse("80Gi")});
    return d;
  }();
  return *device;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Kubernetes refuses longer selectors at the API.
  if (size > ksched::cel::dra::kSelectorMaxLength) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // A lower cost limit than the real one keeps each input fast; the limit's
  // own path is the same.
  auto selector = ksched::cel::dra::Selector::Compile(text, {}, 20000);
  if (!selector.ok()) {
    KSCHED_FUZZ_CHECK(!selector.error().message().empty(),
                      "a refused selector has no error message");
  } else {
    static const auto activation =
        ksched::cel::dra::DeviceActivation::Make(FuzzDevice());
    uint64_t cost = 0;
    auto match = (*selector)->Matches(**activation, &cost);
    KSCHED_FUZZ_CHECK(match.ok() || !match.error().message().empty(),
                      "a failed evaluation has no error message");
  }
  static const auto standard =
      std::make_shared<const ksched::cel::Env>(ksched::cel::StandardEnv());
  ksched::cel::CompileOptions options;
  options.check = false;
  options.program.cost_limit = 20000;
  ksched::cel::Compiled compiled =
      ksched::cel::Compile(standard, text, options);
  if (!compiled.program) {
    KSCHED_FUZZ_CHECK(!compiled.error.empty(),
                      "a refused expression has no error message");
    return 0;
  }
  ksched::cel::MapActivation none;
  ksched::cel::Evaluation r = compiled.program->Eval(none);
  (void)r.value.DebugString();
  return 0;
}
