#include "test/apiserver/recording.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "test/apiserver/apiserver_test_util.h"

namespace ksched::testing {

namespace {

std::string ReadFile(const std::string& path, bool required) {
  std::ifstream in(path);
  if (!in && required) ADD_FAILURE() << "cannot read " << path;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(c));
  return s;
}

std::string Trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \r");
  const size_t end = s.find_last_not_of(" \r");
  return begin == std::string::npos ? "" : s.substr(begin, end - begin + 1);
}

// Values that differ between any two servers.
bool NaturallyDiffers(const std::string& key) {
  static const std::set<std::string>* const kKeys =
      new std::set<std::string>{"uid",
                                "resourceVersion",
                                "creationTimestamp",
                                "deletionTimestamp",
                                "time",
                                "lastTransitionTime",
                                "timeAdded",
                                "continue",
                                "gitVersion",
                                "gitCommit",
                                "buildDate",
                                "goVersion"};
  return kKeys->count(key) > 0;
}

std::string MaskMessage(const std::string& message) {
  static const std::regex* const kUid = new std::regex(
      "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  static const std::regex* const kNumber = new std::regex("[0-9]+");
  return std::regex_replace(std::regex_replace(message, *kUid, "<uid>"),
                            *kNumber, "#");
}

std::string TypeOf(const rapidjson::Value& v) {
  if (v.IsObject()) return "object";
  if (v.IsArray()) return "array";
  if (v.IsString()) return "string";
  if (v.IsNumber()) return "number";
  if (v.IsBool()) return "bool";
  return "null";
}

std::string Text(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return buffer.GetString();
}

void ExpectSameManagedFields(const rapidjson::Value& want,
                             const rapidjson::Value& got,
                             const std::string& path) {
  ASSERT_EQ(want.Size(), got.Size()) << path << ": " << Text(want) << "\nvs\n"
                                     << Text(got);
  // An entry is a manager's, by operation and subresource: one manager may
  // have several (its updates of the object and of its status).
  auto entry_key = [](const rapidjson::Value& e) {
    std::string key;
    for (const char* field : {"manager", "operation", "subresource"}) {
      auto it = e.FindMember(field);
      key += "|";
      if (it != e.MemberEnd() && it->value.IsString()) {
        key += it->value.GetString();
      }
    }
    return key;
  };
  for (const auto& w : want.GetArray()) {
    bool found = false;
    for (const auto& g : got.GetArray()) {
      if (entry_key(g) == entry_key(w)) {
        ExpectSameJson(w, g, path + "[" + entry_key(w) + "]");
        found = true;
      }
    }
    EXPECT_TRUE(found) << path << ": no entry " << entry_key(w) << " in "
                       << Text(got);
  }
}

}  // namespace

Recording LoadRecording(const std::string& name) {
  const std::string base =
      std::string(KSCHED_SHARED_DIR) + "/apiserver/" + name;
  Recording r;
  r.name = name;
  r.body = ReadFile(base + ".json", false);
  r.request_body = ReadFile(base + ".request.json", false);
  const std::string head = ReadFile(base + ".txt", true);
  std::string line;
  // The v1.35 recordings keep the request apart (NAME.request.txt: request
  // line and headers) and begin NAME.txt at the status line.
  const bool split = head.rfind("HTTP/", 0) == 0;
  if (split) {
    std::istringstream request(ReadFile(base + ".request.txt", true));
    if (std::getline(request, line)) {
      std::istringstream first(Trim(line));
      first >> r.method >> r.target;
    }
    while (std::getline(request, line)) {
      line = Trim(line);
      if (line.rfind("Content-Type:", 0) == 0) {
        r.request_content_type = Trim(line.substr(13));
      }
    }
  }
  std::istringstream txt(head);
  bool in_response = split;
  bool status_seen = false;
  while (std::getline(txt, line)) {
    line = Trim(line);
    if (line.rfind("REQUEST: ", 0) == 0) {
      std::istringstream request(line.substr(9));
      request >> r.method >> r.target;
    } else if (!in_response && line.rfind("Content-Type:", 0) == 0) {
      r.request_content_type = Trim(line.substr(13));
    } else if (line.rfind("RESPONSE", 0) == 0) {
      in_response = true;
    } else if (in_response && !status_seen && line.rfind("HTTP/", 0) == 0) {
      status_seen = true;
      r.http2 = line.rfind("HTTP/2", 0) == 0;
      std::istringstream status(line);
      std::string protocol;
      status >> protocol >> r.code;
      std::getline(status, r.reason);
      r.reason = Trim(r.reason);
    } else if (status_seen && !line.empty()) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        r.headers[Lower(line.substr(0, colon))] = Trim(line.substr(colon + 1));
      }
    }
  }
  EXPECT_TRUE(status_seen) << name;
  return r;
}

void ExpectSameHead(const Recording& want, const HttpResult& got) {
  EXPECT_EQ(got.code, want.code);
  if (!want.http2) {
    EXPECT_EQ(got.reason, want.reason);
  }
  EXPECT_EQ(got.Header("content-type"), want.Header("content-type"));
  EXPECT_EQ(got.Header("cache-control"), want.Header("cache-control"));
  EXPECT_TRUE(std::regex_match(
      got.Header("audit-id"),
      std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                 "[0-9a-f]{12}")))
      << got.Header("audit-id");
  for (const char* header :
       {"x-kubernetes-pf-flowschema-uid", "x-kubernetes-pf-prioritylevel-uid",
        "x-content-type-options"}) {
    EXPECT_EQ(got.headers.count(header), want.headers.count(header)) << header;
  }
  if (!want.http2) {
    // Chunked exactly where the real server chunked (watches, large
    // bodies); a Content-Length everywhere else.
    EXPECT_EQ(got.chunked, want.Header("transfer-encoding") == "chunked");
    EXPECT_EQ(got.headers.count("content-length"),
              want.headers.count("content-length"));
  }
}

void ExpectSameJson(const rapidjson::Value& want, const rapidjson::Value& got,
                    const std::string& path) {
  ASSERT_EQ(TypeOf(want), TypeOf(got))
      << path << ": want " << Text(want) << ", got " << Text(got);
  if (want.IsObject()) {
    std::set<std::string> want_keys;
    std::set<std::string> got_keys;
    for (const auto& m : want.GetObject()) want_keys.insert(m.name.GetString());
    for (const auto& m : got.GetObject()) got_keys.insert(m.name.GetString());
    for (const std::string& k : want_keys) {
      EXPECT_TRUE(got_keys.count(k)) << path << ": missing key \"" << k << "\"";
    }
    for (const std::string& k : got_keys) {
      EXPECT_TRUE(want_keys.count(k)) << path << ": extra key \"" << k << "\"";
    }
    for (const auto& m : want.GetObject()) {
      const std::string key = m.name.GetString();
      if (!got.HasMember(key.c_str())) continue;
      const rapidjson::Value& g = got[key.c_str()];
      const std::string at = path + "." + key;
      if (NaturallyDiffers(key) || key == "fieldsV1") {
        EXPECT_EQ(TypeOf(m.value), TypeOf(g)) << at;
      } else if (key == "managedFields" && m.value.IsArray() && g.IsArray()) {
        ExpectSameManagedFields(m.value, g, at);
      } else if (key == "message" && m.value.IsString() && g.IsString()) {
        EXPECT_EQ(MaskMessage(m.value.GetString()), MaskMessage(g.GetString()))
            << at;
      } else {
        ExpectSameJson(m.value, g, at);
      }
    }
    return;
  }
  if (want.IsArray()) {
    ASSERT_EQ(want.Size(), got.Size())
        << path << ": want " << Text(want) << "\ngot " << Text(got);
    for (rapidjson::SizeType i = 0; i < want.Size(); ++i) {
      ExpectSameJson(want[i], got[i], path + "[" + std::to_string(i) + "]");
    }
    return;
  }
  EXPECT_TRUE(want == got) << path << ": want " << Text(want) << ", got "
                           << Text(got);
}

void ExpectSameBody(const Recording& want, const HttpResult& got) {
  // Pretty exactly when the real server was (curl), and Go's trailing
  // newline only on compact bodies.
  const bool pretty = want.body.find("\n  ") != std::string::npos;
  EXPECT_EQ(got.body.find("\n  ") != std::string::npos, pretty) << got.body;
  EXPECT_EQ(!got.body.empty() && got.body.back() == '\n',
            !want.body.empty() && want.body.back() == '\n');
  rapidjson::Document w = ParseJsonOrDie(want.body);
  rapidjson::Document g = ParseJsonOrDie(got.body);
  ExpectSameJson(w, g);
}

void ExpectSameEvents(const Recording& want,
                      const std::vector<std::string>& got_lines) {
  std::vector<std::string> want_lines;
  std::istringstream in(want.body);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) want_lines.push_back(line);
  }
  ASSERT_EQ(want_lines.size(), got_lines.size());
  for (size_t i = 0; i < want_lines.size(); ++i) {
    SCOPED_TRACE("event " + std::to_string(i));
    EXPECT_EQ(EventType(got_lines[i]), EventType(want_lines[i]));
    // Watch events are compact even for curl.
    EXPECT_EQ(got_lines[i].find('\n'), std::string::npos);
    rapidjson::Document w = ParseJsonOrDie(want_lines[i]);
    rapidjson::Document g = ParseJsonOrDie(got_lines[i]);
    ExpectSameJson(w, g);
  }
}

std::string ClientObject(const std::string& recorded_object_json) {
  rapidjson::Document doc = ParseJsonOrDie(recorded_object_json);
  rapidjson::Value& metadata = doc["metadata"];
  for (const char* field :
       {"uid", "resourceVersion", "creationTimestamp", "managedFields",
        "deletionTimestamp", "deletionGracePeriodSeconds"}) {
    metadata.RemoveMember(field);
  }
  return Text(doc);
}

std::string JsonText(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return buffer.GetString();
}

rapidjson::Document WithTokenVolumeNamed(const std::string& pod_json) {
  rapidjson::Document pod = ParseJsonOrDie(pod_json);
  auto rename = [&pod](rapidjson::Value& named) {
    if (!named.IsObject() || !named.HasMember("name")) return;
    if (std::string(named["name"].GetString())
            .starts_with("kube-api-access-")) {
      named["name"].SetString("kube-api-access-xxxxx", pod.GetAllocator());
    }
  };
  rapidjson::Value& spec = pod["spec"];
  if (spec.HasMember("volumes")) {
    for (auto& v : spec["volumes"].GetArray()) rename(v);
  }
  for (const char* list : {"containers", "initContainers"}) {
    if (!spec.HasMember(list)) continue;
    for (auto& c : spec[list].GetArray()) {
      if (!c.HasMember("volumeMounts")) continue;
      for (auto& m : c["volumeMounts"].GetArray()) rename(m);
    }
  }
  return pod;
}

void ExpectSamePod(const Recording& want, const HttpResult& got) {
  EXPECT_EQ(got.code, want.code);
  EXPECT_EQ(got.reason, want.reason);
  EXPECT_EQ(got.Header("content-type"), want.Header("content-type"));
  EXPECT_EQ(got.Header("cache-control"), want.Header("cache-control"));
  rapidjson::Document pod = WithTokenVolumeNamed(want.body);
  rapidjson::Document answer = WithTokenVolumeNamed(got.body);
  ExpectSameJson(pod, answer);
  const rapidjson::Value& want_fields = pod["metadata"]["managedFields"];
  const rapidjson::Value& got_fields = answer["metadata"]["managedFields"];
  ASSERT_EQ(want_fields.Size(), got_fields.Size()) << got.body;
  for (rapidjson::SizeType i = 0; i < want_fields.Size(); ++i) {
    EXPECT_EQ(JsonText(got_fields[i]["fieldsV1"]),
              JsonText(want_fields[i]["fieldsV1"]))
        << "managedFields[" << i << "]";
  }
}

}  // namespace ksched::testing
