// Failure answers as kube-apiserver writes them: a metav1.Status body whose
// reason, message and details follow apimachinery's error constructors
// word for word, so clients classify them exactly as they would the real
// server's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ksched::testing::apiserver {

struct ResourceInfo;

struct StatusCause {
  std::string reason;  // "FieldValueRequired"
  std::string message;
  std::string field;
};

// An answer with a Status body. `code` 0 never leaves the server.
struct ApiError {
  int code = 500;
  std::string status = "Failure";
  std::string reason;  // empty: omitted, as for StatusReasonUnknown
  std::string message;
  bool has_details = false;
  std::string detail_name;
  std::string detail_group;
  std::string detail_kind;
  std::string detail_uid;
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;  // details.retryAfterSeconds + Retry-After
  std::string continue_token;   // metadata.continue (expired continue)
};

// The Status JSON for `error`.
std::string StatusJson(const ApiError& error, bool pretty);

// The HTTP reason phrase for `code` ("Not Found").
std::string_view ReasonPhrase(int code);

// apimachinery's errors.NewX, for a resource in the registry.
ApiError NotFound(const ResourceInfo& resource, std::string_view name);
ApiError AlreadyExists(const ResourceInfo& resource, std::string_view name);
// "Operation cannot be fulfilled on <qualified> "<name>": <cause>".
ApiError Conflict(std::string_view group, std::string_view resource,
                  std::string_view name, std::string_view cause);
ApiError ConflictModified(const ResourceInfo& resource, std::string_view name);
// A storage precondition (UID or resourceVersion) that did not hold.
ApiError PreconditionConflict(const ResourceInfo& resource, std::string_view ns,
                              std::string_view name, std::string_view what,
                              std::string_view wanted, std::string_view actual);
// 422: "<Kind> "<name>" is invalid: <causes>".
ApiError Invalid(const ResourceInfo& resource, std::string_view name,
                 std::vector<StatusCause> causes);
// 403: "<qualified> ["<name>"] is forbidden: <reason>", as RBAC and
// admission plugins deny.
ApiError Forbidden(const ResourceInfo& resource, std::string_view name,
                   std::string_view reason);
// The same for any group and resource, served here or not, as the
// authorization filter denies requests before they are routed.
ApiError Forbidden(std::string_view group, std::string_view resource,
                   std::string_view name, std::string_view reason);
ApiError BadRequest(std::string message);
ApiError Expired(std::string message);
ApiError Unauthorized();
ApiError TooManyRequests(int retry_after_seconds);
ApiError InternalError(std::string message);
// errors.NewTimeoutError as the API server's timeout filter answers a
// request that did not complete in time (etcd down, say): 504.
ApiError GatewayTimeout();
ApiError RouteNotFound();
ApiError MethodNotAllowed();
ApiError RequestEntityTooLarge(size_t limit);
ApiError UnsupportedMediaType(std::string message);
// A failure of `code` with the reason the real server gives that code.
ApiError FromCode(int code, std::string message);

// A success Status ({"status":"Success","code":N}), as binding answers.
std::string SuccessJson(int code, bool pretty);

// A field error: "<field>: <body>", as field.ErrorList renders it.
StatusCause FieldRequired(std::string field, std::string detail = "");
StatusCause FieldInvalid(std::string field, std::string value_json,
                         std::string detail);
StatusCause FieldForbidden(std::string field, std::string detail);
StatusCause FieldNotSupported(std::string field, std::string value_json,
                              const std::vector<std::string>& supported);
StatusCause FieldDuplicate(std::string field, std::string value_json);
// "Too many: <actual>: must have at most <max> items".
StatusCause FieldTooMany(std::string field, size_t actual, size_t max);

}  // namespace ksched::testing::apiserver
