#include "test/apiserver/rbac.h"

#include <algorithm>
#include <cctype>

#include "test/apiserver/selectors.h"

namespace ksched::testing::apiserver {

namespace {

// Go's strings.Split of the path with its slashes trimmed: empty segments
// in the middle stay, as they do in RequestInfoFactory.
std::vector<std::string> SplitPath(std::string_view path) {
  const size_t first = path.find_first_not_of('/');
  if (first == std::string_view::npos) return {};
  path = path.substr(first, path.find_last_not_of('/') - first + 1);
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t slash = path.find('/', start);
    out.emplace_back(path.substr(start, slash - start));
    if (slash == std::string_view::npos) return out;
    start = slash + 1;
  }
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

// The terms of a field selector, split at commas that are not escaped
// (fields.splitTerms); escapes stay in.
std::vector<std::string_view> SplitTerms(std::string_view selector) {
  std::vector<std::string_view> terms;
  if (selector.empty()) return terms;
  size_t start = 0;
  bool escaped = false;
  for (size_t i = 0; i < selector.size(); ++i) {
    if (escaped) {
      escaped = false;
    } else if (selector[i] == '\\') {
      escaped = true;
    } else if (selector[i] == ',') {
      terms.push_back(selector.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.push_back(selector.substr(start));
  return terms;
}

// fields.UnescapeValue: "\\", "\," and "\=" are the only escapes, and an
// unescaped ',' or '=' is an error.
std::optional<std::string> UnescapeValue(std::string_view value) {
  std::string out;
  bool escaped = false;
  for (char c : value) {
    if (escaped) {
      if (c != '\\' && c != ',' && c != '=') return std::nullopt;
      out.push_back(c);
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == ',' || c == '=') {
      return std::nullopt;
    } else {
      out.push_back(c);
    }
  }
  if (escaped) return std::nullopt;
  return out;
}

// path.IsValidPathSegmentName: a name that can stand in a URL path.
bool IsValidPathSegmentName(std::string_view name) {
  return name != "." && name != ".." &&
         name.find_first_of("/%") == std::string_view::npos;
}

bool Contains(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool ResourceMatches(const RbacRule& rule, const std::string& combined,
                     std::string_view subresource) {
  for (const std::string& r : rule.resources) {
    if (r == "*" || r == combined) return true;
    // "*/status" grants that subresource of every resource; nothing else
    // reaches across from a resource to its subresources.
    if (!subresource.empty() && r.size() == subresource.size() + 2 &&
        r.starts_with("*/") && r.ends_with(subresource)) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool WantsWatch(const QueryParams& query) {
  if (!query.Has("watch")) return false;
  const std::string value = Lower(query.Get("watch"));
  return value != "0" && value != "false";
}

std::optional<std::string> ExactMetadataName(std::string_view field_selector) {
  std::vector<std::string_view> terms = SplitTerms(field_selector);
  // fields.ParseSelector sorts the terms; the first exact match wins.
  std::sort(terms.begin(), terms.end());
  std::optional<std::string> name;
  for (std::string_view term : terms) {
    if (term.empty()) continue;
    // The first operator in the term, trying "!=" and "==" before "=" at
    // each position (fields.splitTerm).
    size_t at = 0;
    std::string_view op;
    for (; at < term.size(); ++at) {
      const std::string_view rest = term.substr(at);
      if (rest.starts_with("!=")) {
        op = "!=";
      } else if (rest.starts_with("==")) {
        op = "==";
      } else if (rest.starts_with("=")) {
        op = "=";
      }
      if (!op.empty()) break;
    }
    if (op.empty()) return std::nullopt;  // the whole selector fails
    std::optional<std::string> value =
        UnescapeValue(term.substr(at + op.size()));
    if (!value.has_value()) return std::nullopt;
    if (!name.has_value() && op != "!=" &&
        term.substr(0, at) == "metadata.name") {
      name = std::move(value);
    }
  }
  return name;
}

RequestAttributes AttributesOf(std::string_view method, std::string_view path,
                               const QueryParams& query) {
  RequestAttributes a;
  a.path = std::string(path);
  a.verb = Lower(method);
  std::vector<std::string> parts = SplitPath(path);
  // /api/{version}/... and /apis/{group}/{version}/...: anything shorter,
  // or elsewhere, is a non-resource request.
  if (parts.size() < 3 || (parts[0] != "api" && parts[0] != "apis")) return a;
  size_t next = 1;
  if (parts[0] == "apis") {
    if (parts.size() < 4) return a;
    a.group = parts[next++];
  }
  a.version = parts[next++];
  std::vector<std::string> rest(parts.begin() + next, parts.end());
  bool verb_from_path = false;
  if (rest[0] == "watch" || rest[0] == "proxy") {
    // The real server fails such a request with a 500 before authorizing
    // it; here it stays unauthorized and finds no route.
    if (rest.size() < 2) return a;
    a.verb = rest[0];
    rest.erase(rest.begin());
    verb_from_path = true;
  }
  a.resource_request = true;
  if (!verb_from_path) {
    if (method == "POST") {
      a.verb = "create";
    } else if (method == "GET" || method == "HEAD") {
      a.verb = "get";
    } else if (method == "PUT") {
      a.verb = "update";
    } else if (method == "PATCH") {
      a.verb = "patch";
    } else if (method == "DELETE") {
      a.verb = "delete";
    } else {
      a.verb = "";
    }
  }
  // /namespaces/{ns}/{resource}/...; /namespaces/{ns} and its status and
  // finalize subresources are the namespace object itself, which is then
  // also the request's namespace.
  if (rest[0] == "namespaces" && rest.size() > 1) {
    a.ns = rest[1];
    if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize") {
      rest.erase(rest.begin(), rest.begin() + 2);
    }
  }
  if (rest.size() >= 3 && a.verb != "proxy") a.subresource = rest[2];
  if (rest.size() >= 2) a.name = rest[1];
  a.resource = rest[0];

  if (a.name.empty() && a.verb == "get") {
    a.verb = WantsWatch(query) ? "watch" : "list";
    // A list or watch pinned to one object by its name is authorized for
    // that name (so resourceNames can allow it), unless the list options
    // do not decode.
    LabelSelector labels;
    std::string error;
    if (labels.Parse(query.Get("labelSelector"), &error)) {
      std::optional<std::string> name =
          ExactMetadataName(query.Get("fieldSelector"));
      if (name.has_value() && IsValidPathSegmentName(*name)) a.name = *name;
    }
  }
  if (a.name.empty() && a.verb == "delete") a.verb = "deletecollection";
  return a;
}

std::string DenialReason(const std::string& user,
                         const RequestAttributes& request) {
  std::string reason = "User \"" + user + "\" cannot " + request.verb +
                       " resource \"" + request.CombinedResource() +
                       "\" in API group \"" + request.group + "\"";
  reason += request.ns.empty() ? " at the cluster scope"
                               : " in the namespace \"" + request.ns + "\"";
  return reason;
}

// RBAC's NonResourceURLMatches: the URL itself, "*", or a prefix that
// ends in "*".
static bool NonResourceUrlMatches(const RbacRule& rule,
                                  const std::string& path) {
  for (const std::string& url : rule.non_resource_urls) {
    if (url == "*" || url == path) return true;
    if (url.ends_with("*") &&
        path.starts_with(std::string_view(url).substr(0, url.size() - 1))) {
      return true;
    }
  }
  return false;
}

bool RuleAllows(const RbacRule& rule, const RequestAttributes& request) {
  if (!request.resource_request) {
    return (Contains(rule.verbs, "*") || Contains(rule.verbs, request.verb)) &&
           NonResourceUrlMatches(rule, request.path);
  }
  const bool verb =
      Contains(rule.verbs, "*") || Contains(rule.verbs, request.verb);
  const bool group = Contains(rule.api_groups, "*") ||
                     Contains(rule.api_groups, request.group);
  // Empty resourceNames allows any object; otherwise only requests that
  // name one of them: never create, nor a list or watch of everything.
  const bool name = rule.resource_names.empty() ||
                    Contains(rule.resource_names, request.name);
  return verb && group && name &&
         ResourceMatches(rule, request.CombinedResource(), request.subresource);
}

bool PolicyAllows(const RbacPolicy& policy, const RequestAttributes& request) {
  for (const RbacRule& rule : policy.cluster) {
    if (RuleAllows(rule, request)) return true;
  }
  // Non-resource URLs are granted by ClusterRoles bound cluster-wide only.
  if (!request.resource_request) return false;
  // RoleBindings count only inside their namespace, and never for
  // cluster-scoped requests.
  if (request.ns.empty()) return false;
  auto it = policy.by_namespace.find(request.ns);
  if (it == policy.by_namespace.end()) return false;
  for (const RbacRule& rule : it->second) {
    if (RuleAllows(rule, request)) return true;
  }
  return false;
}

void Rbac::SetPolicy(RbacPolicy policy) {
  std::lock_guard lock(mu_);
  policy_ = std::move(policy);
  accesses_.clear();
}

void Rbac::Clear() {
  std::lock_guard lock(mu_);
  policy_.reset();
}

bool Rbac::Allows(const RequestAttributes& request) {
  std::lock_guard lock(mu_);
  if (!policy_.has_value()) return true;
  const bool allowed = PolicyAllows(*policy_, request);
  accesses_.insert(TestApiServer::Access{.verb = request.verb,
                                         .group = request.group,
                                         .resource = request.CombinedResource(),
                                         .ns = request.ns,
                                         .name = request.name,
                                         .allowed = allowed});
  return allowed;
}

bool Rbac::Evaluate(const RequestAttributes& request) const {
  std::lock_guard lock(mu_);
  return !policy_.has_value() || PolicyAllows(*policy_, request);
}

std::vector<TestApiServer::Access> Rbac::Accesses() const {
  std::lock_guard lock(mu_);
  return {accesses_.begin(), accesses_.end()};
}

}  // namespace ksched::testing::apiserver
