#include "test/apiserver/reviews.h"

#include "test/apiserver/json_util.h"
#include "test/apiserver/status.h"

namespace ksched::testing::apiserver {
namespace {

// The answer: the request as sent, with metadata.creationTimestamp null
// and `status`, as kube-apiserver writes a review back.
Response Created(const JsonDocument& doc, const JsonValue& status,
                 const char* api_version, const char* kind, bool pretty) {
  JsonDocument out;
  out.SetObject();
  JsonAllocator& a = out.GetAllocator();
  SetString(out, "kind", kind, a);
  SetString(out, "apiVersion", api_version, a);
  JsonValue meta(rapidjson::kObjectType);
  meta.AddMember("creationTimestamp", JsonValue(rapidjson::kNullType), a);
  SetMember(out, "metadata", std::move(meta), a);
  JsonValue spec(rapidjson::kObjectType);
  if (const JsonValue* s = Member(doc, "spec"); s != nullptr && s->IsObject()) {
    spec.CopyFrom(*s, a);
  }
  SetMember(out, "spec", std::move(spec), a);
  JsonValue copied;
  copied.CopyFrom(status, a);
  SetMember(out, "status", std::move(copied), a);
  return Response{.code = 201,
                  .body = pretty ? ToPrettyJson(out) : ToJson(out)};
}

Response Bad(const std::string& message, bool pretty) {
  const ApiError e = BadRequest(message);
  return Response{.code = e.code, .body = StatusJson(e, pretty)};
}

}  // namespace

void Reviews::AddUser(const std::string& token,
                      TestApiServer::ReviewUser user) {
  std::lock_guard lock(mu_);
  by_token_[token] = std::move(user);
}

bool Reviews::Handles(const Request& request) {
  return request.method == "POST" && (request.path == kTokenReviewPath ||
                                      request.path == kSubjectAccessReviewPath);
}

Response Reviews::Answer(const Request& request) const {
  return request.path == kTokenReviewPath ? TokenReview(request)
                                          : SubjectAccessReview(request);
}

Response Reviews::TokenReview(const Request& request) const {
  JsonDocument doc;
  std::string error;
  if (!ParseJson(request.body, &doc, &error)) return Bad(error, request.pretty);
  const std::string token = StringAt(doc, {"spec", "token"});
  JsonValue status(rapidjson::kObjectType);
  JsonAllocator& a = doc.GetAllocator();
  JsonValue user(rapidjson::kObjectType);
  bool found = false;
  if (!token.empty() && own_token_(token)) {
    SetString(user, "username", own_user_, a);
    JsonValue groups(rapidjson::kArrayType);
    groups.PushBack(MakeString("system:serviceaccounts", a), a);
    groups.PushBack(MakeString("system:authenticated", a), a);
    SetMember(user, "groups", std::move(groups), a);
    found = true;
  } else {
    std::lock_guard lock(mu_);
    auto it = by_token_.find(token);
    if (it != by_token_.end()) {
      SetString(user, "username", it->second.name, a);
      if (!it->second.uid.empty()) SetString(user, "uid", it->second.uid, a);
      JsonValue groups(rapidjson::kArrayType);
      for (const std::string& g : it->second.groups) {
        groups.PushBack(MakeString(g, a), a);
      }
      groups.PushBack(MakeString("system:authenticated", a), a);
      SetMember(user, "groups", std::move(groups), a);
      found = true;
    }
  }
  if (found) status.AddMember("authenticated", true, a);
  SetMember(status, "user", std::move(user), a);
  if (found) {
    JsonValue audiences(rapidjson::kArrayType);
    audiences.PushBack(
        MakeString("https://kubernetes.default.svc.cluster.local", a), a);
    SetMember(status, "audiences", std::move(audiences), a);
  } else {
    SetString(status, "error", "[invalid bearer token, token lookup failed]",
              a);
  }
  return Created(doc, status, "authentication.k8s.io/v1", "TokenReview",
                 request.pretty);
}

Response Reviews::SubjectAccessReview(const Request& request) const {
  JsonDocument doc;
  std::string error;
  if (!ParseJson(request.body, &doc, &error)) return Bad(error, request.pretty);
  const std::string user = StringAt(doc, {"spec", "user"});
  RequestAttributes attributes;
  if (const JsonValue* r = Find(doc, {"spec", "resourceAttributes"});
      r != nullptr && r->IsObject()) {
    attributes.resource_request = true;
    attributes.verb = StringAt(*r, {"verb"});
    attributes.group = StringAt(*r, {"group"});
    attributes.version = StringAt(*r, {"version"});
    attributes.ns = StringAt(*r, {"namespace"});
    attributes.resource = StringAt(*r, {"resource"});
    attributes.subresource = StringAt(*r, {"subresource"});
    attributes.name = StringAt(*r, {"name"});
  } else if (const JsonValue* n = Find(doc, {"spec", "nonResourceAttributes"});
             n != nullptr && n->IsObject()) {
    attributes.verb = StringAt(*n, {"verb"});
    attributes.path = StringAt(*n, {"path"});
  } else {
    // kube's validation: exactly one of the two.
    return Bad(
        "SubjectAccessReview.authorization.k8s.io \"\" is invalid: "
        "spec.resourceAttributes: Invalid value: \"null\": exactly one of "
        "nonResourceAttributes or resourceAttributes must be specified",
        request.pretty);
  }
  bool allowed = false;
  if (user == own_user_) {
    allowed = rbac_.Evaluate(attributes);
  } else {
    std::lock_guard lock(mu_);
    for (const auto& [token, u] : by_token_) {
      if (u.name == user) allowed = PolicyAllows(u.policy, attributes);
    }
  }
  JsonAllocator& a = doc.GetAllocator();
  JsonValue status(rapidjson::kObjectType);
  status.AddMember("allowed", allowed, a);
  if (allowed) {
    SetString(status, "reason", "RBAC: allowed by the test API server's policy",
              a);
  }
  return Created(doc, status, "authorization.k8s.io/v1", "SubjectAccessReview",
                 request.pretty);
}

}  // namespace ksched::testing::apiserver
