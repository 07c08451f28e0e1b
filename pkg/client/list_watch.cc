#include "pkg/client/list_watch.h"

#include "pkg/client/resources.h"

namespace ksched::client {
namespace {

void Add(std::string& query, std::string_view key, std::string_view value) {
  if (value.empty()) return;
  query += query.empty() ? '?' : '&';
  query += key;
  query += '=';
  query += EscapeQueryValue(value);
}

}  // namespace

std::string EscapeQueryValue(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    const bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '_' ||
                            c == '.' || c == '~';
    if (unreserved) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

std::string ListQuery(const ListOptions& options) {
  std::string query;
  Add(query, "fieldSelector", options.field_selector);
  Add(query, "labelSelector", options.label_selector);
  Add(query, "resourceVersion", options.resource_version);
  Add(query, "resourceVersionMatch", options.resource_version_match);
  if (options.limit > 0) Add(query, "limit", std::to_string(options.limit));
  Add(query, "continue", options.continue_token);
  return query;
}

std::string WatchQuery(const WatchOptions& options) {
  std::string query = "?watch=true";
  if (options.allow_bookmarks) query += "&allowWatchBookmarks=true";
  std::string rest;
  Add(rest, "fieldSelector", options.field_selector);
  Add(rest, "labelSelector", options.label_selector);
  Add(rest, "resourceVersion", options.resource_version);
  if (options.timeout_seconds > 0) {
    Add(rest, "timeoutSeconds", std::to_string(options.timeout_seconds));
  }
  if (!rest.empty()) query += "&" + rest.substr(1);
  return query;
}

std::string CollectionPath(const Resource& resource, std::string_view ns) {
  std::string path(resource.group_version_path);
  if (resource.namespaced && !ns.empty()) {
    path += "/namespaces/";
    path += ns;
  }
  path += '/';
  path += resource.plural;
  return path;
}

std::string ObjectPath(const Resource& resource, std::string_view ns,
                       std::string_view name, std::string_view subresource) {
  std::string path = CollectionPath(resource, ns);
  path += '/';
  path += name;
  if (!subresource.empty()) {
    path += '/';
    path += subresource;
  }
  return path;
}

}  // namespace ksched::client
