// Responses recorded from real kube-apiservers, v1.32 (under
// KSCHED_SHARED_DIR/apiserver), v1.35 (apiserver/v1.35) and v1.36
// (apiserver/v1.36), and how the tests hold the test server's answers
// against them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pkg/util/json.h"
#include "test/apiserver/https_test_client.h"

namespace ksched::testing {

struct Recording {
  std::string name;
  std::string method;
  std::string target;
  std::string request_content_type;
  bool http2 = false;  // lower-case headers, no reason phrase
  int code = 0;
  std::string reason;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string request_body;

  std::string Header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? "" : it->second;
  }
};

// Loads NAME.txt, NAME.json and NAME.request.json (and NAME.request.txt,
// where the request line is kept apart, as in v1.35/ and v1.36/).
Recording LoadRecording(const std::string& name);

// Status line and the headers a client reads. Adds test failures.
void ExpectSameHead(const Recording& want, const HttpResult& got);

// The JSON bodies side by side, recursively: the same keys and JSON types
// everywhere; the same values except where they naturally differ (uids,
// timestamps, resourceVersions, continue tokens, version build data);
// messages equal once numbers and uids are masked; managedFields matched
// by manager, their field sets by type only. Adds test failures naming
// the path of each difference.
void ExpectSameJson(const rapidjson::Value& want, const rapidjson::Value& got,
                    const std::string& path = "$");
void ExpectSameBody(const Recording& want, const HttpResult& got);
// For watch recordings: event by event.
void ExpectSameEvents(const Recording& want,
                      const std::vector<std::string>& got_lines);

// A JSON value as compact text.
std::string JsonText(const rapidjson::Value& v);

// The pod with its ServiceAccount token volume (kube-api-access-<random>)
// and the mounts of it named kube-api-access-xxxxx, so that two servers'
// pods compare equal when all but the random suffix is.
rapidjson::Document WithTokenVolumeNamed(const std::string& pod_json);

// A pod answered against the recorded one: the head but its framing (the
// body may be short enough for a Content-Length where the real one was
// chunked), every field and value but those that differ between any two
// servers (and the token volume's random suffix), and each manager's field
// set exactly. Adds test failures.
void ExpectSamePod(const Recording& want, const HttpResult& got);

// The recorded object made into what a client would send to create it:
// without uid, resourceVersion, timestamps and managedFields.
std::string ClientObject(const std::string& recorded_object_json);

}  // namespace ksched::testing
