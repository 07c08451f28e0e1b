#include "pkg/auth/rest_reviewer.h"

#include "pkg/util/json.h"

namespace ksched::auth {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void String(Writer& w, const char* key, const std::string& value) {
  w.Key(key);
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

// A string member, or "" when absent or not a string.
std::string StringAt(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return "";
  auto it = v.FindMember(key);
  return it != v.MemberEnd() && it->value.IsString() ? it->value.GetString()
                                                     : "";
}

bool BoolAt(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return false;
  auto it = v.FindMember(key);
  return it != v.MemberEnd() && it->value.IsBool() && it->value.GetBool();
}

util::Result<rapidjson::Document> ParseStatus(const std::string& body,
                                              const char* kind) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return util::Error(std::string(kind) + ": the answer is not JSON");
  }
  return doc;
}

}  // namespace

std::string EncodeTokenReview(const std::string& token) {
  rapidjson::StringBuffer out;
  Writer w(out);
  w.StartObject();
  String(w, "apiVersion", "authentication.k8s.io/v1");
  String(w, "kind", "TokenReview");
  w.Key("spec");
  w.StartObject();
  String(w, "token", token);
  w.EndObject();
  w.EndObject();
  return out.GetString();
}

std::string EncodeSubjectAccessReview(const UserInfo& user,
                                      const Attributes& a) {
  rapidjson::StringBuffer out;
  Writer w(out);
  w.StartObject();
  String(w, "apiVersion", "authorization.k8s.io/v1");
  String(w, "kind", "SubjectAccessReview");
  w.Key("spec");
  w.StartObject();
  if (a.resource_request) {
    w.Key("resourceAttributes");
    w.StartObject();
    if (!a.ns.empty()) String(w, "namespace", a.ns);
    String(w, "verb", a.verb);
    String(w, "group", a.group);
    if (a.group.empty()) String(w, "version", "v1");
    String(w, "resource", a.resource);
    if (!a.subresource.empty()) String(w, "subresource", a.subresource);
    if (!a.name.empty()) String(w, "name", a.name);
    w.EndObject();
  } else {
    w.Key("nonResourceAttributes");
    w.StartObject();
    String(w, "path", a.path);
    String(w, "verb", a.verb);
    w.EndObject();
  }
  String(w, "user", user.name);
  if (!user.uid.empty()) String(w, "uid", user.uid);
  w.Key("groups");
  w.StartArray();
  for (const std::string& g : user.groups) {
    w.String(g.data(), static_cast<rapidjson::SizeType>(g.size()));
  }
  w.EndArray();
  if (!user.extra.empty()) {
    w.Key("extra");
    w.StartObject();
    for (const auto& [key, values] : user.extra) {
      w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
      w.StartArray();
      for (const std::string& v : values) {
        w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
      }
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return out.GetString();
}

util::Result<TokenReview> DecodeTokenReviewStatus(const std::string& body) {
  auto doc = ParseStatus(body, "TokenReview");
  if (!doc.ok()) return doc.error();
  TokenReview review;
  auto status = doc->FindMember("status");
  if (status == doc->MemberEnd() || !status->value.IsObject()) return review;
  const rapidjson::Value& s = status->value;
  review.authenticated = BoolAt(s, "authenticated");
  review.error = StringAt(s, "error");
  auto user = s.FindMember("user");
  if (user != s.MemberEnd() && user->value.IsObject()) {
    const rapidjson::Value& u = user->value;
    review.user.name = StringAt(u, "username");
    review.user.uid = StringAt(u, "uid");
    auto groups = u.FindMember("groups");
    if (groups != u.MemberEnd() && groups->value.IsArray()) {
      for (const auto& g : groups->value.GetArray()) {
        if (g.IsString()) review.user.groups.push_back(g.GetString());
      }
    }
    auto extra = u.FindMember("extra");
    if (extra != u.MemberEnd() && extra->value.IsObject()) {
      for (const auto& m : extra->value.GetObject()) {
        std::vector<std::string>& values =
            review.user.extra[m.name.GetString()];
        if (!m.value.IsArray()) continue;
        for (const auto& v : m.value.GetArray()) {
          if (v.IsString()) values.push_back(v.GetString());
        }
      }
    }
  }
  // An answer that authenticates nobody authenticates nothing.
  if (review.user.name.empty()) review.authenticated = false;
  return review;
}

util::Result<AccessReview> DecodeSubjectAccessReviewStatus(
    const std::string& body) {
  auto doc = ParseStatus(body, "SubjectAccessReview");
  if (!doc.ok()) return doc.error();
  AccessReview review;
  auto status = doc->FindMember("status");
  if (status == doc->MemberEnd() || !status->value.IsObject()) return review;
  const rapidjson::Value& s = status->value;
  review.allowed = BoolAt(s, "allowed");
  review.denied = BoolAt(s, "denied");
  review.reason = StringAt(s, "reason");
  review.evaluation_error = StringAt(s, "evaluationError");
  if (review.denied) review.allowed = false;
  return review;
}

util::Result<TokenReview> RestReviewer::ReviewToken(const std::string& token) {
  client::ApiResult r =
      client_.Do({.method = "POST",
                  .path = "/apis/authentication.k8s.io/v1/tokenreviews",
                  .body = EncodeTokenReview(token)});
  if (!r.ok()) return util::Error("TokenReview: " + r.error->message());
  return DecodeTokenReviewStatus(r.response.body);
}

util::Result<AccessReview> RestReviewer::ReviewAccess(const UserInfo& user,
                                                      const Attributes& a) {
  client::ApiResult r =
      client_.Do({.method = "POST",
                  .path = "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                  .body = EncodeSubjectAccessReview(user, a)});
  if (!r.ok()) return util::Error("SubjectAccessReview: " + r.error->message());
  return DecodeSubjectAccessReviewStatus(r.response.body);
}

}  // namespace ksched::auth
