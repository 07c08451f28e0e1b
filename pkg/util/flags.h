// FlagSet: command-line flags in kube-scheduler's (pflag) style:
// --name=value, --name value, --bool-flag, --bool-flag=false, -h/--help.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/result.h"

namespace ksched::util {

class FlagSet {
 public:
  explicit FlagSet(std::string usage_line)
      : usage_line_(std::move(usage_line)) {}

  // The pointers must outlive Parse(); their current values are the defaults.
  void String(std::string name, std::string* value, std::string help);
  void Bool(std::string name, bool* value, std::string help);
  void Int(std::string name, int64_t* value, std::string help);
  // Repeatable: each --name VALUE appends one value.
  void StringList(std::string name, std::vector<std::string>* values,
                  std::string help);
  // A flag whose value is optional, as pflag's NoOptDefVal: --name alone
  // sets `implicit_value`, --name=VALUE sets VALUE (a following argument is
  // never taken as its value).
  void OptionalString(std::string name, std::string* value,
                      std::string implicit_value, std::string help);
  // A one-letter form of a flag already defined: -o json, -ojson, -o=json.
  void Shorthand(char letter, std::string name);

  // Parses `args` (without the program and subcommand names). Positional
  // arguments are returned in order; "--" ends flag parsing.
  Result<std::vector<std::string>> Parse(const std::vector<std::string>& args);

  bool help_requested() const { return help_; }
  std::string Usage() const;

 private:
  enum class Kind { kString, kBool, kInt, kStringList, kOptionalString };
  struct Flag {
    std::string name;
    Kind kind;
    void* target;
    std::string help;
    std::string default_text;
    char shorthand = 0;
    std::string implicit_value;  // kOptionalString
  };
  // "--name value", "--name", "--name[=all]": a flag as its usage shows it.
  static std::string UsageName(const Flag& flag);
  const Flag* Find(std::string_view name) const;
  Result<void> Set(const Flag& flag, std::string_view value);

  std::string usage_line_;
  std::vector<Flag> flags_;
  bool help_ = false;
};

}  // namespace ksched::util
