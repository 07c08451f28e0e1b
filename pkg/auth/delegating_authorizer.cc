#include "pkg/auth/delegating_authorizer.h"

#include <openssl/sha.h>

#include <optional>

#include "pkg/util/json.h"

namespace ksched::auth {
namespace {

// Tokens are kept only as digests, as kube's token cache keeps them.
std::string Digest(std::string_view token) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(),
         md);
  return std::string(reinterpret_cast<const char*>(md), sizeof(md));
}

// Every field, each ended by a separator no field can hold.
std::string AccessKey(const UserInfo& user, const Attributes& a) {
  std::string key;
  auto add = [&key](const std::string& field) {
    key += field;
    key += '\0';
  };
  add(user.name);
  add(user.uid);
  for (const std::string& g : user.groups) add(g);
  add("\x01");
  for (const auto& [k, values] : user.extra) {
    add(k);
    for (const std::string& v : values) add(v);
  }
  add("\x01");
  add(a.verb);
  add(a.resource_request ? "r" : "n");
  add(a.path);
  add(a.ns);
  add(a.group);
  add(a.resource);
  add(a.subresource);
  add(a.name);
  return key;
}

}  // namespace

std::string ForbiddenMessage(const std::string& user, const Attributes& a,
                             const std::string& reason) {
  std::string message;
  if (!a.resource_request) {
    message = "forbidden: User \"" + user + "\" cannot " + a.verb + " path \"" +
              a.path + "\"";
  } else {
    // apimachinery's NewForbidden: `<resource>[.<group>] ["<name>"] is
    // forbidden: ` and the authorization filter's sentence.
    const std::string resource =
        a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
    std::string what = a.resource;
    if (!a.group.empty()) what += "." + a.group;
    if (!a.name.empty()) what += " \"" + a.name + "\"";
    message = what + " is forbidden: User \"" + user + "\" cannot " + a.verb +
              " resource \"" + resource + "\" in API group \"" + a.group +
              "\"" +
              (a.ns.empty() ? " at the cluster scope"
                            : " in the namespace \"" + a.ns + "\"");
  }
  if (!reason.empty()) message += ": " + reason;
  return message;
}

std::string StatusBody(const Decision& d) {
  const char* reason = d.code == 401   ? "Unauthorized"
                       : d.code == 403 ? "Forbidden"
                                       : "InternalError";
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w(out);
  w.StartObject();
  w.Key("kind");
  w.String("Status");
  w.Key("apiVersion");
  w.String("v1");
  w.Key("metadata");
  w.StartObject();
  w.EndObject();
  w.Key("status");
  w.String("Failure");
  w.Key("message");
  w.String(d.message.data(),
           static_cast<rapidjson::SizeType>(d.message.size()));
  w.Key("reason");
  w.String(reason);
  if (d.code == 403) {
    w.Key("details");
    w.StartObject();
    if (!d.details_name.empty()) {
      w.Key("name");
      w.String(d.details_name.data(),
               static_cast<rapidjson::SizeType>(d.details_name.size()));
    }
    if (!d.details_kind.empty()) {
      w.Key("kind");
      w.String(d.details_kind.data(),
               static_cast<rapidjson::SizeType>(d.details_kind.size()));
    }
    w.EndObject();
  }
  w.Key("code");
  w.Int(d.code);
  w.EndObject();
  return out.GetString();
}

DelegatingAuthorizer::DelegatingAuthorizer(Reviewer& reviewer,
                                           const util::Clock& clock,
                                           DelegatingOptions options)
    : reviewer_(reviewer), clock_(clock), options_(options) {}

template <typename T>
void DelegatingAuthorizer::Put(std::map<std::string, Entry<T>>& cache,
                               std::string key, T value,
                               util::Clock::Duration ttl) {
  const util::Clock::TimePoint now = clock_.Now();
  if (cache.size() >= options_.max_entries) {
    std::erase_if(cache,
                  [now](const auto& e) { return e.second.expires <= now; });
    if (cache.size() >= options_.max_entries) cache.clear();
  }
  cache[std::move(key)] = Entry<T>{std::move(value), now + ttl};
}

Decision DelegatingAuthorizer::Check(std::string_view authorization,
                                     const Attributes& a) {
  Decision unauthorized{.code = 401, .message = "Unauthorized"};
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization.size() <= kBearer.size() ||
      authorization.substr(0, kBearer.size()) != kBearer) {
    return unauthorized;
  }
  const std::string_view token = authorization.substr(kBearer.size());

  // 1. Who.
  const std::string digest = Digest(token);
  std::optional<TokenReview> who;
  {
    std::lock_guard lock(mu_);
    auto it = tokens_.find(digest);
    if (it != tokens_.end() && it->second.expires > clock_.Now()) {
      who = it->second.value;
    }
  }
  if (!who.has_value()) {
    util::Result<TokenReview> reviewed =
        reviewer_.ReviewToken(std::string(token));
    std::lock_guard lock(mu_);
    ++counts_.token_reviews;
    if (!reviewed.ok()) return unauthorized;  // not cached: ask again
    who = *reviewed;
    Put(tokens_, digest, *reviewed, options_.token_ttl);
  }
  if (!who->authenticated) return unauthorized;

  // 2. May they.
  const std::string key = AccessKey(who->user, a);
  std::optional<AccessReview> may;
  {
    std::lock_guard lock(mu_);
    auto it = access_.find(key);
    if (it != access_.end() && it->second.expires > clock_.Now()) {
      may = it->second.value;
    }
  }
  if (!may.has_value()) {
    util::Result<AccessReview> reviewed = reviewer_.ReviewAccess(who->user, a);
    std::lock_guard lock(mu_);
    ++counts_.access_reviews;
    if (!reviewed.ok()) {
      return {.code = 500,
              .user = who->user.name,
              .message = "Internal Server Error: \"" +
                         (a.resource_request ? a.resource : a.path) +
                         "\": " + reviewed.error().message()};
    }
    may = *reviewed;
    Put(access_, key, *reviewed,
        reviewed->allowed ? options_.allowed_ttl : options_.denied_ttl);
  }
  if (may->allowed) return {.code = 200, .user = who->user.name};
  return {.code = 403,
          .user = who->user.name,
          .message = ForbiddenMessage(who->user.name, a, may->reason),
          .details_kind = a.resource_request ? a.resource : "",
          .details_name = a.resource_request ? a.name : ""};
}

DelegatingAuthorizer::Counts DelegatingAuthorizer::counts() const {
  std::lock_guard lock(mu_);
  return counts_;
}

}  // namespace ksched::auth
