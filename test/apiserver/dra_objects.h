// What kube-apiserver's resource.k8s.io/v1 registry does to the objects
// of dynamic resource allocation beyond the generic path: the defaults of
// device requests, the generation of DeviceClasses and ResourceSlices, a
// ResourceClaim's status reset on creation and its metadata kept on
// status updates, and the validation a scheduler's status updates meet.
#pragma once

#include <vector>

#include "test/apiserver/json_util.h"
#include "test/apiserver/status.h"

namespace ksched::testing::apiserver {

struct ResourceInfo;

// resource.k8s.io's DeviceClasses, ResourceClaims, ResourceClaimTemplates
// and ResourceSlices.
bool IsDraResource(const ResourceInfo& resource);

// SetDefaults_ExactDeviceRequest and SetDefaults_DeviceSubRequest (an
// ExactCount of one), and the status a claim always has.
void ApplyDraDefaults(const ResourceInfo& resource, JsonDocument& object);

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

}  // namespace ksched::testing::apiserver
