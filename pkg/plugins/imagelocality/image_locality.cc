#include "pkg/plugins/imagelocality/image_locality.h"

#include <algorithm>
#include <array>

#include "pkg/framework/signature.h"

namespace ksched::plugins {
namespace {

// Bounds of the summed image score, as in kube-scheduler: most compressed
// images in registries fall between 23MB and 1000MB per container.
constexpr int64_t kMb = 1024 * 1024;
constexpr int64_t kMinThreshold = 23 * kMb;
constexpr int64_t kMaxContainerThreshold = 1000 * kMb;

// An image's size scaled by the fraction of nodes that have it.
int64_t ScaledImageScore(const framework::ImageStateSummary& state,
                         size_t total_nodes) {
  const double spread =
      static_cast<double>(state.num_nodes) / static_cast<double>(total_nodes);
  return static_cast<int64_t>(static_cast<double>(state.size) * spread);
}

// Maps the summed scores linearly from [min, max * containers] onto
// [0, kMaxNodeScore], clamping outside the range.
int64_t CalculatePriority(int64_t sum, size_t num_containers) {
  const int64_t max_threshold =
      kMaxContainerThreshold * static_cast<int64_t>(num_containers);
  if (sum < kMinThreshold) {
    sum = kMinThreshold;
  } else if (sum > max_threshold) {
    sum = max_threshold;
  }
  // With no containers the denominator is negative and the numerator zero.
  return framework::kMaxNodeScore * (sum - kMinThreshold) /
         (max_threshold - kMinThreshold);
}

}  // namespace

namespace {

bool HasTag(std::string_view image) {
  const size_t colon = image.rfind(':');
  const size_t slash = image.rfind('/');
  // Go's LastIndex returns -1 when absent; npos compares as "greatest", so
  // spell the comparison out.
  return colon != std::string_view::npos &&
         (slash == std::string_view::npos || colon > slash);
}

// The node's state for `image`, looked up under its normalised name. Score
// runs for every container on every feasible node, so the usual cases
// (a tagged name, or a short untagged one) must not allocate.
const framework::ImageStateSummary* FindImage(
    const api::FlatMap<framework::ImageStateSummary>& states,
    std::string_view image) {
  if (states.empty()) return nullptr;
  if (HasTag(image)) return states.Find(image);
  constexpr std::string_view kLatest = ":latest";
  std::array<char, 256> buffer;
  if (image.size() + kLatest.size() <= buffer.size()) {
    char* end = std::copy(image.begin(), image.end(), buffer.data());
    end = std::copy(kLatest.begin(), kLatest.end(), end);
    return states.Find(std::string_view(buffer.data(), end - buffer.data()));
  }
  return states.Find(NormalizedImageName(image));
}

}  // namespace

std::string NormalizedImageName(std::string_view image) {
  std::string out(image);
  if (!HasTag(image)) out += ":latest";
  return out;
}

framework::Status ImageLocality::Score(const framework::CycleState& /*state*/,
                                       const framework::PodInfo& pod_info,
                                       const framework::NodeInfo& node,
                                       int64_t* score) const {
  // The node being scored is in the snapshot, so there is at least one.
  const size_t total_nodes = std::max<size_t>(handle_.snapshot().size(), 1);
  const auto& states = node.image_states();
  const api::Pod& pod = pod_info.pod();
  int64_t sum = 0;
  auto add = [&](const api::Container& c) {
    if (const auto* s = FindImage(states, c.image)) {
      sum += ScaledImageScore(*s, total_nodes);
    }
  };
  for (const api::Container& c : pod.spec.init_containers) add(c);
  for (const api::Container& c : pod.spec.containers) add(c);
  // v1.36 also counts the images mounted as volumes, with no gate; the
  // spread below still counts containers only, as kube's does.
  for (const api::Volume& v : pod.spec.volumes) {
    if (!v.image) continue;
    if (const auto* s = FindImage(states, v.image->reference)) {
      sum += ScaledImageScore(*s, total_nodes);
    }
  }
  *score = CalculatePriority(
      sum, pod.spec.init_containers.size() + pod.spec.containers.size());
  return framework::Status();
}

util::Result<std::unique_ptr<framework::Plugin>> NewImageLocality(
    const config::PluginArgs* /*args*/, framework::Handle& handle) {
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<ImageLocality>(handle));
}

bool ImageLocality::SignPod(const api::Pod& pod, api::Pod& into) const {
  framework::signature::CopyImages(pod, into);
  return true;
}

}  // namespace ksched::plugins
