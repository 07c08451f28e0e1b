// Every API object ksched reads from the API server, decoded from one
// input: Pod, Node, the lists, Status (in bodies and as an error answer)
// and the other kinds the informers and writers decode, and the
// TokenReview and SubjectAccessReview answers the secure port reads. A decoded
// Pod, Node or Status must encode to JSON that decodes to the same object,
// unless it holds an enum string the codec does not know (an operator or
// effect the API server's validation refuses): such a value reads as
// kOther and is left out on encode, so only its encoding must then be
// stable.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/api/fields.h"
#include "pkg/api/pod_resources.h"
#include "pkg/auth/rest_reviewer.h"
#include "pkg/client/api_error.h"
#include "test/fuzz/fuzz_check.h"

namespace {

using namespace ksched;

// Walks an object through the same Fields() lists the codec uses and
// notes whether any enum member holds kOther.
class UnknownEnumFinder {
 public:
  bool found() const { return found_; }

  template <typename T>
  void operator()(std::string_view, const T& field,
                  api::codec::Emit = api::codec::Emit::kOmitEmpty) {
    Visit(field);
  }

 private:
  template <typename T>
  void Visit(const T& value) {
    if constexpr (api::codec::KnownEnum<T>) {
      if (value == T::kOther) found_ = true;
    } else if constexpr (requires(UnknownEnumFinder & f, T & t) {
                           Fields(f, t);
                         }) {
      Fields(*this, const_cast<T&>(value));
    }
  }
  template <typename T>
  void Visit(const std::optional<T>& value) {
    if (value) Visit(*value);
  }
  template <typename T>
  void Visit(const api::Box<T>& value) {
    if (value.has_value()) Visit(*value);
  }
  template <typename T>
  void Visit(const std::vector<T>& values) {
    for (const T& value : values) Visit(value);
  }
  template <typename V>
  void Visit(const api::FlatMap<V>& map) {
    for (const auto& entry : map) Visit(entry.second);
  }

  bool found_ = false;
};

template <typename T>
bool HoldsUnknownEnum(const T& object) {
  UnknownEnumFinder finder;
  Fields(finder, const_cast<T&>(object));
  return finder.found();
}

template <typename T>
void RoundTrips(std::string_view text) {
  auto decoded = api::DecodeJson<T>(text);
  if (!decoded.ok()) return;
  const std::string encoded = api::EncodeJson(*decoded);
  auto again = api::DecodeJson<T>(encoded);
  KSCHED_FUZZ_CHECK(again.ok(), "an encoded object does not decode");
  if (HoldsUnknownEnum(*decoded)) {
    KSCHED_FUZZ_CHECK(api::EncodeJson(*again) == encoded,
                      "an encoding changed through decode and encode");
  } else {
    KSCHED_FUZZ_CHECK(*again == *decoded,
                      "an object changed through encode and decode");
  }
}

template <typename T>
void Decodes(std::string_view text) {
  (void)api::DecodeJson<T>(text);
  (void)api::DecodeJson<T>(text, {.lenient_scalars = true});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  RoundTrips<api::Pod>(text);
  RoundTrips<api::Node>(text);
  RoundTrips<api::Status>(text);
  Decodes<api::PodList>(text);
  Decodes<api::NodeList>(text);
  Decodes<api::Binding>(text);
  Decodes<api::Event>(text);
  Decodes<api::Lease>(text);
  Decodes<api::PriorityClass>(text);
  Decodes<api::Namespace>(text);
  Decodes<api::PersistentVolumeClaim>(text);
  Decodes<api::PersistentVolume>(text);
  Decodes<api::StorageClass>(text);
  Decodes<api::PodDisruptionBudget>(text);
  // An error answer's body, as the client reads it.
  (void)client::ErrorFromResponse(409, "POST", text, "");
  (void)client::ErrorFromResponse(429, "GET", text, "1");
  // The delegated authentication and authorization answers.
  (void)auth::DecodeTokenReviewStatus(std::string(text));
  (void)auth::DecodeSubjectAccessReviewStatus(std::string(text));
  if (auto pod = api::DecodeJson<api::Pod>(text); pod.ok()) {
    (void)api::PodRequests(*pod, {});
  }
  return 0;
}
