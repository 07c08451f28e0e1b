#include "pkg/util/json_logger.h"

#include <cctype>
#include <chrono>
#include <cstdio>

#include "pkg/util/json.h"

namespace ksched::util {
namespace {

bool IsKeyChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

// Parses `key="value"` pairs separated by single spaces, to the end.
bool ParsePairs(std::string_view tail,
                std::vector<std::pair<std::string, std::string>>* out) {
  while (!tail.empty()) {
    size_t k = 0;
    while (k < tail.size() && IsKeyChar(tail[k])) ++k;
    if (k == 0 || tail.substr(k, 2) != "=\"") return false;
    const std::string key(tail.substr(0, k));
    tail.remove_prefix(k + 2);
    // The value ends at a quote followed by the end or by ` key="`.
    size_t end = std::string_view::npos;
    for (size_t q = tail.find('"'); q != std::string_view::npos;
         q = tail.find('"', q + 1)) {
      if (q + 1 == tail.size()) {
        end = q;
        break;
      }
      if (tail[q + 1] == ' ') {
        size_t j = q + 2;
        while (j < tail.size() && IsKeyChar(tail[j])) ++j;
        if (j > q + 2 && tail.substr(j, 2) == "=\"") {
          end = q;
          break;
        }
      }
    }
    if (end == std::string_view::npos) return false;
    out->emplace_back(key, std::string(tail.substr(0, end)));
    tail.remove_prefix(end + 1);
    if (!tail.empty()) {
      if (tail.front() != ' ') return false;
      tail.remove_prefix(1);
    }
  }
  return true;
}

}  // namespace

std::pair<std::string_view, std::vector<std::pair<std::string, std::string>>>
SplitKeyValues(std::string_view message) {
  // The first ` key="` starts the pairs.
  for (size_t at = message.find(' '); at != std::string_view::npos;
       at = message.find(' ', at + 1)) {
    size_t k = at + 1;
    while (k < message.size() && IsKeyChar(message[k])) ++k;
    if (k == at + 1 || message.substr(k, 2) != "=\"") continue;
    std::vector<std::pair<std::string, std::string>> pairs;
    if (ParsePairs(message.substr(at + 1), &pairs)) {
      return {message.substr(0, at), std::move(pairs)};
    }
    break;
  }
  return {message, {}};
}

std::string JsonLogLine(double seconds, Severity severity, int verbosity,
                        std::string_view message) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto str = [&w](std::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  const auto [text, pairs] = SplitKeyValues(message);
  w.StartObject();
  w.Key("ts");
  w.Double(seconds);
  if (severity == Severity::kInfo) {
    w.Key("v");
    w.Int(verbosity);
  } else {
    w.Key("severity");
    str(severity == Severity::kWarning ? "warning" : "error");
  }
  w.Key("msg");
  str(text);
  for (const auto& [key, value] : pairs) {
    if (key == "ts" || key == "v" || key == "msg" || key == "severity") {
      continue;  // never shadow the fixed fields
    }
    str(key);
    str(value);
  }
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

void JsonLogger::Log(Severity severity, int verbosity,
                     std::string_view message) {
  const double seconds =
      std::chrono::duration<double>(
          std::chrono::system_clock::now().time_since_epoch())
          .count();
  std::string line = JsonLogLine(seconds, severity, verbosity, message);
  line += '\n';
  std::lock_guard<std::mutex> lock(mu_);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace ksched::util
