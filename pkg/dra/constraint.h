// Claim constraints the allocator checks as it picks devices. Only
// matchAttribute exists in the allocator ksched ports (distinctAttribute
// belongs to Kubernetes' experimental one).
#pragma once

#include <string_view>
#include <vector>

#include "pkg/api/resource.h"

namespace ksched::dra {

// All devices of the requests it names (every request when it names none)
// must carry the attribute, with one value. It only counts its devices:
// the first one fixes the value, and constraints are monotonic, so a
// device that does not fit never fits later in the same branch.
class MatchAttributeConstraint {
 public:
  // `requests` and `attribute` must outlive the constraint (they point into
  // the claim).
  MatchAttributeConstraint(const std::vector<std::string>& requests,
                           std::string_view attribute)
      : requests_(requests), attribute_name_(attribute) {}

  // Whether the device may join; if so it is counted. `request` is the
  // request's name, `sub_request` the subrequest's ("" for none).
  bool Add(std::string_view request, std::string_view sub_request,
           const api::Device& device, std::string_view driver);
  // Undoes one successful Add with the same arguments.
  void Remove(std::string_view request, std::string_view sub_request);

 private:
  bool Applies(std::string_view request, std::string_view sub_request) const;

  const std::vector<std::string>& requests_;
  std::string_view attribute_name_;
  const api::DeviceAttribute* value_ = nullptr;
  int num_devices_ = 0;
};

// The attribute by its fully qualified name, or by its bare id when the
// name's domain is the driver's; null when the device has neither.
const api::DeviceAttribute* LookupAttribute(const api::Device& device,
                                            std::string_view driver,
                                            std::string_view name);

}  // namespace ksched::dra
