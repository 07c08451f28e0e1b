// The checks kube-apiserver v1.35 makes on create that matter to a
// scheduler, run on objects as a person wrote them (YAML or JSON decoded
// to RapidJSON values), so that `ksched simulate` refuses what the API
// server would refuse, in the API server's words:
//
//   spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must
//   be greater than or equal to 0
//
// The objects have already been decoded into ksched's typed objects, so
// their types are right; a value of another type is skipped here, never an
// error and never a crash. YAML scalars may arrive as strings where numbers
// are expected and the other way round, as the lenient decoder reads them.
//
// Each function checks the object as the API server sees it after
// defaulting (a container's requests default to its limits, a host-network
// pod's host ports to its container ports, ...) and returns every error in
// kube's order where that order is fixed (Go visits maps in random order;
// here they go in document order). An empty list means valid.
#pragma once

#include <string>
#include <string_view>

#include "pkg/config/field_errors.h"
#include "pkg/util/json.h"

namespace ksched::validation {

using config::FieldError;
using config::FieldErrors;

// ValidatePodCreate: metadata, spec, and what the pod strategy adds on
// create (selectors merged from matchLabelKeys and mismatchLabelKeys).
FieldErrors ValidatePod(const rapidjson::Value& pod);
// ValidateNode: metadata, taints, status capacity, allocatable and
// declaredFeatures.
FieldErrors ValidateNode(const rapidjson::Value& node);
// scheduling.k8s.io PriorityClass.
FieldErrors ValidatePriorityClass(const rapidjson::Value& pc);
// policy PodDisruptionBudget: its spec, then (only when the spec is valid,
// as the API server does) its metadata.
FieldErrors ValidatePodDisruptionBudget(const rapidjson::Value& pdb);
// scheduler-plugins' scheduling.x-k8s.io PodGroup, a custom resource: its
// CRD sets no bounds on minMember, scheduleTimeoutSeconds or minResources,
// so only its metadata is checked.
FieldErrors ValidatePodGroup(const rapidjson::Value& pg);
// Deployment, ReplicaSet, StatefulSet, DaemonSet, Job and CronJob: their
// counts, selector, and pod template (labels, annotations and the pod spec
// under spec.template.spec, or spec.jobTemplate.spec.template.spec); any
// other kind gives no errors.
FieldErrors ValidateWorkload(std::string_view kind,
                             const rapidjson::Value& obj);
// resource.k8s.io/v1 (Dynamic Resource Allocation), as kube-apiserver
// v1.36 validates them on create with its default feature gates:
// DeviceClass: its name, CEL selectors (compiled), opaque configuration
// and extended resource name.
FieldErrors ValidateDeviceClass(const rapidjson::Value& device_class);
// ResourceSlice: driver, pool, node selection, devices (names, attributes,
// capacities, taints, counters, binding conditions) or shared counters.
FieldErrors ValidateResourceSlice(const rapidjson::Value& slice);
// ResourceClaim: metadata, then its device requests (exactly or
// firstAvailable, counts, selectors, tolerations), constraints and config.
FieldErrors ValidateResourceClaim(const rapidjson::Value& claim);
// ResourceClaimTemplate: metadata, the template's own metadata (labels
// and annotations only), and the claim spec under spec.spec.
FieldErrors ValidateResourceClaimTemplate(const rapidjson::Value& tmpl);
// By kind ("Pod", "Node", "Deployment", ...); kinds not covered give no
// errors.
FieldErrors ValidateObject(std::string_view kind, const rapidjson::Value& obj);

// The message of the API server's 422 (errors.NewInvalid(...).Error()):
// `Pod "web" is invalid: <error>`, `Deployment.apps "web" is invalid:
// [<error>, <error>]`.
std::string InvalidMessage(std::string_view kind, std::string_view name,
                           const FieldErrors& errors);

}  // namespace ksched::validation
