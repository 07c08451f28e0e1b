// What kube-apiserver's resource.k8s.io/v1 registry does to the objects
// of dynamic resource allocation beyond the generic path: the defaults of
// device requests, the generation of DeviceClasses and ResourceSlices, a
// ResourceClaim's status reset on creation and its metadata kept on
// status updates, and the validation a scheduler's status updates meet.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "test/apiserver/json_util.h"
#include "test/apiserver/rbac.h"
#include "test/apiserver/status.h"

namespace ksched::testing::apiserver {

struct ResourceInfo;

// resource.k8s.io's DeviceClasses, ResourceClaims, ResourceClaimTemplates
// and ResourceSlices.
bool IsDraResource(const ResourceInfo& resource);

// SetDefaults_ExactDeviceRequest and SetDefaults_DeviceSubRequest (an
// ExactCount of one), and the status a claim always has; from v1.36
// (DRADeviceTaints on by default, so that a slice's device taints are
// kept) SetDefaults_DeviceTaint: a taint without timeAdded is stamped with
// the time it is written, to the second.
void ApplyDraDefaults(const ResourceInfo& resource, JsonDocument& object,
                      int kube_minor);

// ValidateResourceSlice's rules that depend on the version played: from
// v1.36 (DRAPartitionableDevices on by default, so that sharedCounters are
// kept) a slice holds sharedCounters or devices, not both.
std::vector<StatusCause> ValidateDraObject(const ResourceInfo& resource,
                                           const JsonValue& object,
                                           int kube_minor);

// The strategies' PrepareForCreate: generation 1 for classes and slices, a
// claim's status cleared.
void PrepareDraForCreate(const ResourceInfo& resource, JsonDocument& object);

// The strategies' PrepareForUpdate of the object itself: a changed spec
// bumps a class's or slice's generation.
void PrepareDraForUpdate(const ResourceInfo& resource,
                         const JsonValue& previous, JsonDocument& next);

// The claim status strategy's ResetObjectMetaForStatus: labels,
// annotations, finalizers and owner references do not change through
// /status.
void KeepMetadataOnDraStatusUpdate(const ResourceInfo& resource,
                                   const JsonValue& previous,
                                   JsonDocument& next);

// ValidateResourceClaimUpdate and ValidateResourceClaimStatusUpdate, for
// what a scheduler could trip: the spec is immutable; reservedFor holds at
// most 256 distinct complete consumers, only with an allocation, and gets
// no new ones once the claim is being deleted; an allocation is immutable
// once set, and a new one names requests of the claim.
std::vector<StatusCause> ValidateDraUpdate(const ResourceInfo& resource,
                                           const JsonValue& previous,
                                           const JsonValue& next);

// Asks the authorizer about a request the server makes up itself (a
// synthetic subresource); true when it is allowed.
using SyntheticAuthorizer = std::function<bool(const RequestAttributes&)>;

// What v1.36's claim status strategy asks the authorizer itself
// (DRAResourceClaimGranularStatusAuthorization) before a status write of
// `user` with `verb` ("update" for a PUT, "patch") in namespace `ns` may
// change `previous` into `next`: a change of status.allocation or
// status.reservedFor needs the same verb on resourceclaims/binding at the
// cluster scope (AuthorizedForBinding), and, while the claim is
// allocated, a change of a driver's status.devices entries needs
// "arbitrary-node:<verb>" on resourceclaims/driver named by the driver in
// the claim's namespace (AuthorizedForDeviceStatus; no user here is a
// service account bound to a node, for the associated-node verb). A
// denial is a FieldValueForbidden cause on status.allocation or
// status.devices that embeds the authorization filter's 403 message.
std::vector<StatusCause> AuthorizeClaimStatusUpdate(
    const JsonValue& previous, const JsonValue& next, const std::string& user,
    const std::string& verb, const std::string& ns,
    const SyntheticAuthorizer& authorize);

}  // namespace ksched::testing::apiserver
