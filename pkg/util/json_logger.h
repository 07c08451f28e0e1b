// JsonLogger: one JSON object a line on stderr, in the shape of
// Kubernetes' JSON log format (--logging-format=json):
//
//   {"ts":1763805600.123456,"v":2,"msg":"Successfully bound pod to node",
//    "pod":"default/web","node":"node-1","profile":"ksched"}
//
// A message's trailing key="value" pairs (how ksched writes structured
// details in text logs) become fields of their own; warnings and errors
// carry "severity".
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/logger.h"

namespace ksched::util {

// Splits `message` into its text and trailing key="value" pairs; no pairs
// when the tail is not made only of such pairs.
std::pair<std::string_view, std::vector<std::pair<std::string, std::string>>>
SplitKeyValues(std::string_view message);

// The JSON line (without the newline) for one message at `seconds` since
// the epoch.
std::string JsonLogLine(double seconds, Severity severity, int verbosity,
                        std::string_view message);

class JsonLogger final : public Logger {
 public:
  explicit JsonLogger(int verbosity) : verbosity_(verbosity) {}
  bool Enabled(int verbosity) const override { return verbosity <= verbosity_; }
  void Log(Severity severity, int verbosity, std::string_view message) override;

 private:
  int verbosity_;
  std::mutex mu_;
};

}  // namespace ksched::util
