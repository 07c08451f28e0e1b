// Claim constraints the allocator checks as it picks devices:
// matchAttribute, and distinctAttribute (DRAConsumableCapacity).
#pragma once

#include <map>
#include <string_view>
#include <vector>

#include "pkg/api/resource.h"

namespace ksched::dra {

// One constraint of a claim, as the search adds and removes devices.
class ClaimConstraint {
 public:
  // `requests` must outlive the constraint (it points into the claim).
  explicit ClaimConstraint(const std::vector<std::string>& requests)
      : requests_(requests) {}
  virtual ~ClaimConstraint() = default;

  // Whether the device may join; if so it is counted. `request` is the
  // request's name, `sub_request` the subrequest's ("" for none).
  virtual bool Add(std::string_view request, std::string_view sub_request,
                   const api::Device& device, std::string_view driver) = 0;
  // Undoes one successful Add with the same arguments.
  virtual void Remove(std::string_view request,
                      std::string_view sub_request) = 0;

 protected:
  // Whether the constraint covers the request (every request when it
  // names none; a subrequest by its own or its parent's name).
  bool Applies(std::string_view request, std::string_view sub_request) const;

 private:
  const std::vector<std::string>& requests_;
};

// All devices of the requests it names must carry the attribute, with one
// value. It only counts its devices: the first one fixes the value, and
// constraints are monotonic, so a device that does not fit never fits
// later in the same branch.
class MatchAttributeConstraint final : public ClaimConstraint {
 public:
  // `attribute` must outlive the constraint.
  MatchAttributeConstraint(const std::vector<std::string>& requests,
                           std::string_view attribute)
      : ClaimConstraint(requests), attribute_name_(attribute) {}

  bool Add(std::string_view request, std::string_view sub_request,
           const api::Device& device, std::string_view driver) override;
  void Remove(std::string_view request, std::string_view sub_request) override;

 private:
  std::string_view attribute_name_;
  const api::DeviceAttribute* value_ = nullptr;
  int num_devices_ = 0;
};

// The devices of the requests it names must each carry the attribute, with
// values no two of them share. Like Kubernetes, it remembers one value per
// request name (a request's later device replaces its earlier one) and
// forgets a request's value when any of its devices is removed.
class DistinctAttributeConstraint final : public ClaimConstraint {
 public:
  DistinctAttributeConstraint(const std::vector<std::string>& requests,
                              std::string_view attribute)
      : ClaimConstraint(requests), attribute_name_(attribute) {}

  bool Add(std::string_view request, std::string_view sub_request,
           const api::Device& device, std::string_view driver) override;
  void Remove(std::string_view request, std::string_view sub_request) override;

 private:
  // Whether `attribute` differs from every value held (a kind this version
  // does not know never does).
  bool Distinct(const api::DeviceAttribute& attribute) const;

  std::string_view attribute_name_;
  std::map<std::string_view, const api::DeviceAttribute*> values_;
  int num_devices_ = 0;
};

// Whether the attribute has a value of a kind this version knows.
bool KnownKind(const api::DeviceAttribute& a);
// Whether `held` has `attr`'s kind and value (`attr`'s kind decides; an
// unknown kind never matches).
bool SameValue(const api::DeviceAttribute& held,
               const api::DeviceAttribute& attr);

// The attribute by its fully qualified name, or by its bare id when the
// name's domain is the driver's; null when the device has neither.
const api::DeviceAttribute* LookupAttribute(const api::Device& device,
                                            std::string_view driver,
                                            std::string_view name);

}  // namespace ksched::dra
