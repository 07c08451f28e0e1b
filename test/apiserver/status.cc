#include "test/apiserver/status.h"

#include <algorithm>

#include "test/apiserver/json_util.h"
#include "test/apiserver/resources.h"

namespace ksched::testing::apiserver {

std::string StatusJson(const ApiError& error, bool pretty) {
  JsonDocument doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  SetString(doc, "kind", "Status", a);
  SetString(doc, "apiVersion", "v1", a);
  JsonValue& metadata = EnsureObject(doc, "metadata", a);
  if (!error.continue_token.empty()) {
    SetString(metadata, "continue", error.continue_token, a);
  }
  SetString(doc, "status", error.status, a);
  if (!error.message.empty()) SetString(doc, "message", error.message, a);
  if (!error.reason.empty()) SetString(doc, "reason", error.reason, a);
  if (error.has_details || error.retry_after_seconds > 0) {
    JsonValue& details = EnsureObject(doc, "details", a);
    if (!error.detail_name.empty()) {
      SetString(details, "name", error.detail_name, a);
    }
    if (!error.detail_group.empty()) {
      SetString(details, "group", error.detail_group, a);
    }
    if (!error.detail_kind.empty()) {
      SetString(details, "kind", error.detail_kind, a);
    }
    if (!error.detail_uid.empty()) {
      SetString(details, "uid", error.detail_uid, a);
    }
    if (!error.causes.empty()) {
      JsonValue causes(rapidjson::kArrayType);
      for (const StatusCause& c : error.causes) {
        JsonValue cause(rapidjson::kObjectType);
        if (!c.reason.empty()) SetString(cause, "reason", c.reason, a);
        if (!c.message.empty()) SetString(cause, "message", c.message, a);
        if (!c.field.empty()) SetString(cause, "field", c.field, a);
        causes.PushBack(cause, a);
      }
      SetMember(details, "causes", std::move(causes), a);
    }
    if (error.retry_after_seconds > 0) {
      SetMember(details, "retryAfterSeconds",
                JsonValue(error.retry_after_seconds), a);
    }
  }
  if (error.code != 0) SetMember(doc, "code", JsonValue(error.code), a);
  return pretty ? ToPrettyJson(doc) : ToJson(doc) + "\n";
}

std::string SuccessJson(int code, bool pretty) {
  ApiError success;
  success.status = "Success";
  success.code = code;
  return StatusJson(success, pretty);
}

std::string_view ReasonPhrase(int code) {
  switch (code) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "Request Entity Too Large";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "Unknown";
  }
}

namespace {

ApiError WithResourceDetails(ApiError e, std::string_view group,
                             std::string_view kind, std::string_view name) {
  e.has_details = true;
  e.detail_name = std::string(name);
  e.detail_group = std::string(group);
  e.detail_kind = std::string(kind);
  return e;
}

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

}  // namespace

ApiError NotFound(const ResourceInfo& resource, std::string_view name) {
  ApiError e{.code = 404, .reason = "NotFound"};
  e.message = resource.Qualified() + " " + Quoted(name) + " not found";
  return WithResourceDetails(std::move(e), resource.group, resource.resource,
                             name);
}

ApiError AlreadyExists(const ResourceInfo& resource, std::string_view name) {
  ApiError e{.code = 409, .reason = "AlreadyExists"};
  e.message = resource.Qualified() + " " + Quoted(name) + " already exists";
  return WithResourceDetails(std::move(e), resource.group, resource.resource,
                             name);
}

ApiError Conflict(std::string_view group, std::string_view resource,
                  std::string_view name, std::string_view cause) {
  ApiError e{.code = 409, .reason = "Conflict"};
  std::string qualified(resource);
  if (!group.empty()) qualified += "." + std::string(group);
  e.message = "Operation cannot be fulfilled on " + qualified + " " +
              Quoted(name) + ": " + std::string(cause);
  return WithResourceDetails(std::move(e), group, resource, name);
}

ApiError ConflictModified(const ResourceInfo& resource, std::string_view name) {
  return Conflict(resource.group, resource.resource, name,
                  "the object has been modified; please apply your changes "
                  "to the latest version and try again");
}

ApiError PreconditionConflict(const ResourceInfo& resource, std::string_view ns,
                              std::string_view name, std::string_view what,
                              std::string_view wanted,
                              std::string_view actual) {
  // The storage layer's InvalidObj error, as the registry wraps it.
  std::string key = "/registry/" + resource.StorageDirectory() + "/";
  if (!ns.empty()) key += std::string(ns) + "/";
  key += std::string(name);
  return Conflict(
      resource.group, resource.resource, name,
      "StorageError: invalid object, Code: 4, Key: " + key +
          ", ResourceVersion: 0, AdditionalErrorMsg: "
          "Precondition failed: " +
          std::string(what) + " in precondition: " + std::string(wanted) +
          ", " + std::string(what) + " in object meta: " + std::string(actual));
}

ApiError Invalid(const ResourceInfo& resource, std::string_view name,
                 std::vector<StatusCause> causes) {
  ApiError e{.code = 422, .reason = "Invalid"};
  std::string kind = resource.kind;
  if (!resource.group.empty()) kind += "." + resource.group;
  // The message is the causes' aggregate, which says each distinct one
  // once (the causes themselves keep every repeat).
  std::string joined;
  std::vector<std::string> seen;
  for (const StatusCause& c : causes) {
    std::string text = c.field.empty() ? c.message : c.field + ": " + c.message;
    if (std::find(seen.begin(), seen.end(), text) != seen.end()) continue;
    if (!joined.empty()) joined += ", ";
    joined += text;
    seen.push_back(std::move(text));
  }
  if (seen.size() > 1) joined = "[" + joined + "]";
  e.message = kind + " " + Quoted(name) + " is invalid: " + joined;
  e = WithResourceDetails(std::move(e), resource.group, resource.kind, name);
  e.causes = std::move(causes);
  return e;
}

ApiError Forbidden(const ResourceInfo& resource, std::string_view name,
                   std::string_view reason) {
  return Forbidden(resource.group, resource.resource, name, reason);
}

ApiError Forbidden(std::string_view group, std::string_view resource,
                   std::string_view name, std::string_view reason) {
  ApiError e{.code = 403, .reason = "Forbidden"};
  std::string qualified(resource);
  if (!group.empty()) qualified += "." + std::string(group);
  // errors.NewForbidden: an empty group and resource name nothing.
  if (qualified.empty()) {
    e.message = "forbidden: " + std::string(reason);
  } else {
    e.message = qualified;
    if (!name.empty()) e.message += " " + Quoted(name);
    e.message += " is forbidden: " + std::string(reason);
  }
  return WithResourceDetails(std::move(e), group, resource, name);
}

ApiError BadRequest(std::string message) {
  return ApiError{
      .code = 400, .reason = "BadRequest", .message = std::move(message)};
}

ApiError Expired(std::string message) {
  return ApiError{
      .code = 410, .reason = "Expired", .message = std::move(message)};
}

ApiError Unauthorized() {
  return ApiError{
      .code = 401, .reason = "Unauthorized", .message = "Unauthorized"};
}

ApiError TooManyRequests(int retry_after_seconds) {
  ApiError e{.code = 429,
             .reason = "TooManyRequests",
             .message = "Too many requests, please try again later."};
  e.has_details = true;
  e.retry_after_seconds = retry_after_seconds;
  return e;
}

ApiError InternalError(std::string message) {
  ApiError e{.code = 500,
             .reason = "InternalError",
             .message = "Internal error occurred: " + message};
  e.has_details = true;
  e.causes.push_back(StatusCause{.message = std::move(message)});
  return e;
}

ApiError GatewayTimeout() {
  ApiError e{.code = 504,
             .reason = "Timeout",
             .message =
                 "Timeout: request did not complete within the "
                 "allotted timeout"};
  e.has_details = true;
  return e;
}

ApiError RouteNotFound() {
  ApiError e{.code = 404,
             .reason = "NotFound",
             .message = "the server could not find the requested resource"};
  e.has_details = true;
  return e;
}

ApiError MethodNotAllowed() {
  ApiError e{
      .code = 405,
      .reason = "MethodNotAllowed",
      .message =
          "the server does not allow this method on the requested resource"};
  e.has_details = true;
  return e;
}

ApiError RequestEntityTooLarge(size_t limit) {
  return ApiError{
      .code = 413,
      .reason = "RequestEntityTooLarge",
      .message = "Request entity too large: limit is " + std::to_string(limit)};
}

ApiError UnsupportedMediaType(std::string message) {
  return ApiError{.code = 415,
                  .reason = "UnsupportedMediaType",
                  .message = std::move(message)};
}

ApiError FromCode(int code, std::string message) {
  switch (code) {
    case 400:
      return BadRequest(std::move(message));
    case 401:
      return Unauthorized();
    case 404:
      return ApiError{
          .code = 404, .reason = "NotFound", .message = std::move(message)};
    case 405:
      return MethodNotAllowed();
    case 409:
      return ApiError{
          .code = 409, .reason = "Conflict", .message = std::move(message)};
    case 410:
      return Expired(std::move(message));
    case 422:
      return ApiError{
          .code = 422, .reason = "Invalid", .message = std::move(message)};
    case 429:
      return TooManyRequests(0);
    case 500:
      return InternalError(std::move(message));
    case 503:
      return ApiError{.code = 503,
                      .reason = "ServiceUnavailable",
                      .message = std::move(message)};
    case 504:
      return ApiError{
          .code = 504, .reason = "Timeout", .message = std::move(message)};
    default:
      return ApiError{.code = code, .message = std::move(message)};
  }
}

StatusCause FieldRequired(std::string field, std::string detail) {
  std::string message = "Required value";
  if (!detail.empty()) message += ": " + detail;
  return StatusCause{.reason = "FieldValueRequired",
                     .message = std::move(message),
                     .field = std::move(field)};
}

StatusCause FieldInvalid(std::string field, std::string value_json,
                         std::string detail) {
  std::string message = "Invalid value: " + value_json;
  if (!detail.empty()) message += ": " + detail;
  return StatusCause{.reason = "FieldValueInvalid",
                     .message = std::move(message),
                     .field = std::move(field)};
}

StatusCause FieldForbidden(std::string field, std::string detail) {
  return StatusCause{.reason = "FieldValueForbidden",
                     .message = "Forbidden: " + detail,
                     .field = std::move(field)};
}

StatusCause FieldNotSupported(std::string field, std::string value_json,
                              const std::vector<std::string>& supported) {
  std::string message = "Unsupported value: " + value_json;
  if (!supported.empty()) {
    message += ": supported values: ";
    for (size_t i = 0; i < supported.size(); ++i) {
      if (i > 0) message += ", ";
      message += "\"" + supported[i] + "\"";
    }
  }
  return StatusCause{.reason = "FieldValueNotSupported",
                     .message = std::move(message),
                     .field = std::move(field)};
}

StatusCause FieldDuplicate(std::string field, std::string value_json) {
  return StatusCause{.reason = "FieldValueDuplicate",
                     .message = "Duplicate value: " + value_json,
                     .field = std::move(field)};
}

StatusCause FieldTooMany(std::string field, size_t actual, size_t max) {
  return StatusCause{.reason = "FieldValueTooMany",
                     .message = "Too many: " + std::to_string(actual) +
                                ": must have at most " + std::to_string(max) +
                                " items",
                     .field = std::move(field)};
}

}  // namespace ksched::testing::apiserver
