// CEL device selectors evaluated against one device, compiled once: time
// and heap allocations per evaluation (counted by replacing operator new).
#include <benchmark/benchmark.h>

// Replacing the global allocation functions is how allocations are counted.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

#include <atomic>
#include <cstdlib>
#include <new>

#include "pkg/cel/dra.h"

namespace {
std::atomic<uint64_t> allocations{0};
}  // namespace

void* operator new(size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace ksched::cel::dra {
namespace {

Device GpuDevice() {
  Device d;
  d.driver = "gpu.example.com";
  DeviceAttribute model;
  model.kind = DeviceAttribute::Kind::kString;
  model.string_value = "h100";
  d.attributes.push_back({"model", model});
  DeviceAttribute index;
  index.kind = DeviceAttribute::Kind::kInt;
  index.int_value = 3;
  d.attributes.push_back({"index", index});
  DeviceAttribute driver_version;
  driver_version.kind = DeviceAttribute::Kind::kVersion;
  driver_version.string_value = "1.2.3";
  d.attributes.push_back({"driverVersion", driver_version});
  DeviceAttribute numa;
  numa.kind = DeviceAttribute::Kind::kInt;
  numa.int_value = 1;
  d.attributes.push_back({"numa.example.com/node", numa});
  d.capacity.push_back({"memory", *api::Quantity::Parse("80Gi")});
  d.capacity.push_back({"cores", *api::Quantity::Parse("132")});
  return d;
}

void Evaluate(benchmark::State& state, const char* expression) {
  Device device = GpuDevice();
  auto activation = DeviceActivation::Make(device);
  auto selector = Selector::Compile(expression);
  if (!selector || !activation) {
    state.SkipWithError("does not compile");
    return;
  }
  const DeviceActivation& act = **activation;
  uint64_t before = allocations.load();
  for (auto _ : state) {
    auto match = (*selector)->Matches(act);
    benchmark::DoNotOptimize(match);
  }
  state.counters["allocs/eval"] =
      benchmark::Counter(static_cast<double>(allocations.load() - before) /
                         static_cast<double>(state.iterations()));
}

void BM_Equality(benchmark::State& state) {
  Evaluate(state, R"(device.attributes["gpu.example.com"].model == "h100")");
}
BENCHMARK(BM_Equality);

void BM_QuantityComparison(benchmark::State& state) {
  Evaluate(
      state,
      R"(device.capacity["gpu.example.com"].memory.compareTo(quantity("64Gi")) >= 0)");
}
BENCHMARK(BM_QuantityComparison);

void BM_MacroOverAttributes(benchmark::State& state) {
  Evaluate(state,
           R"(device.attributes["gpu.example.com"].exists(k, k == "model"))");
}
BENCHMARK(BM_MacroOverAttributes);

void BM_SemverComparison(benchmark::State& state) {
  Evaluate(
      state,
      R"(device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.0.0")))");
}
BENCHMARK(BM_SemverComparison);

void BM_Compile(benchmark::State& state) {
  for (auto _ : state) {
    auto selector = Selector::Compile(
        R"(device.attributes["gpu.example.com"].model == "h100")");
    benchmark::DoNotOptimize(selector);
  }
}
BENCHMARK(BM_Compile);

}  // namespace
}  // namespace ksched::cel::dra

BENCHMARK_MAIN();
