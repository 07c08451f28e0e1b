#include "pkg/util/flags.h"

#include <charconv>

namespace ksched::util {

void FlagSet::String(std::string name, std::string* value, std::string help) {
  flags_.push_back({std::move(name), Kind::kString, value, std::move(help),
                    value->empty() ? "" : "\"" + *value + "\""});
}

void FlagSet::Bool(std::string name, bool* value, std::string help) {
  flags_.push_back({std::move(name), Kind::kBool, value, std::move(help),
                    *value ? "true" : ""});
}

void FlagSet::Int(std::string name, int64_t* value, std::string help) {
  flags_.push_back({std::move(name), Kind::kInt, value, std::move(help),
                    std::to_string(*value)});
}

void FlagSet::StringList(std::string name, std::vector<std::string>* values,
                         std::string help) {
  flags_.push_back(
      {std::move(name), Kind::kStringList, values, std::move(help), ""});
}

void FlagSet::OptionalString(std::string name, std::string* value,
                             std::string implicit_value, std::string help) {
  Flag flag{std::move(name), Kind::kOptionalString, value, std::move(help), ""};
  flag.implicit_value = std::move(implicit_value);
  flags_.push_back(std::move(flag));
}

void FlagSet::Shorthand(char letter, std::string name) {
  for (Flag& f : flags_) {
    if (f.name == name) f.shorthand = letter;
  }
}

const FlagSet::Flag* FlagSet::Find(std::string_view name) const {
  for (const Flag& f : flags_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

Result<void> FlagSet::Set(const Flag& flag, std::string_view value) {
  switch (flag.kind) {
    case Kind::kString:
    case Kind::kOptionalString:
      *static_cast<std::string*>(flag.target) = std::string(value);
      return {};
    case Kind::kStringList:
      static_cast<std::vector<std::string>*>(flag.target)->emplace_back(value);
      return {};
    case Kind::kBool:
      if (value == "true" || value == "1") {
        *static_cast<bool*>(flag.target) = true;
      } else if (value == "false" || value == "0") {
        *static_cast<bool*>(flag.target) = false;
      } else {
        return Error("invalid argument \"" + std::string(value) +
                     "\" for \"--" + flag.name + "\" flag: expected a boolean");
      }
      return {};
    case Kind::kInt: {
      int64_t n = 0;
      auto [ptr, ec] =
          std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || ptr != value.data() + value.size()) {
        return Error("invalid argument \"" + std::string(value) +
                     "\" for \"--" + flag.name +
                     "\" flag: expected an integer");
      }
      *static_cast<int64_t*>(flag.target) = n;
      return {};
    }
  }
  return {};
}

Result<std::vector<std::string>> FlagSet::Parse(
    const std::vector<std::string>& args) {
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      positional.insert(positional.end(), args.begin() + i + 1, args.end());
      break;
    }
    if (arg == "-h" || arg == "--help") {
      help_ = true;
      continue;
    }
    if (!arg.starts_with("-") || arg == "-") {
      positional.push_back(arg);
      continue;
    }
    std::string_view body(arg);
    if (!arg.starts_with("--")) {
      // A shorthand takes its value glued on (-ojson, -o=json) or next.
      const Flag* flag = nullptr;
      for (const Flag& f : flags_) {
        if (f.shorthand != 0 && f.shorthand == arg[1]) flag = &f;
      }
      if (flag != nullptr) {
        std::string_view rest = body.substr(2);
        if (rest.starts_with("=")) rest.remove_prefix(1);
        std::string value(rest);
        if (rest.empty() && flag->kind == Kind::kBool) {
          value = "true";
        } else if (rest.empty()) {
          if (i + 1 >= args.size()) {
            return Error("flag needs an argument: -" + std::string(1, arg[1]));
          }
          value = args[++i];
        }
        if (auto r = Set(*flag, value); !r.ok()) return r.error();
        continue;
      }
    }
    body.remove_prefix(body.starts_with("--") ? 2 : 1);
    std::string_view name = body;
    std::optional<std::string_view> value;
    if (auto eq = body.find('='); eq != std::string_view::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
    }
    const Flag* flag = Find(name);
    if (flag == nullptr) {
      return Error("unknown flag: --" + std::string(name));
    }
    if (!value) {
      if (flag->kind == Kind::kBool) {
        value = "true";
      } else if (flag->kind == Kind::kOptionalString) {
        value = flag->implicit_value;
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return Error("flag needs an argument: --" + std::string(name));
      }
    }
    if (auto r = Set(*flag, *value); !r.ok()) return r.error();
  }
  return positional;
}

std::string FlagSet::UsageName(const Flag& flag) {
  switch (flag.kind) {
    case Kind::kBool:
      return "--" + flag.name;
    case Kind::kOptionalString:
      return "--" + flag.name + "[=" + flag.implicit_value + "]";
    default:
      return "--" + flag.name + " value";
  }
}

std::string FlagSet::Usage() const {
  std::string out = "Usage:\n  " + usage_line_ + "\n\nFlags:\n";
  // Every help text starts in one column, -h's too.
  const std::string help_flag = "--help";
  size_t width = help_flag.size();
  for (const Flag& f : flags_) width = std::max(width, UsageName(f).size());
  auto line = [&](char shorthand, const std::string& left,
                  const std::string& help) {
    return (shorthand != 0 ? std::string("  -") + shorthand + ", "
                           : std::string(6, ' ')) +
           left + std::string(width - left.size() + 3, ' ') + help;
  };
  for (const Flag& f : flags_) {
    out += line(f.shorthand, UsageName(f), f.help);
    if (!f.default_text.empty()) out += " (default " + f.default_text + ")";
    out += "\n";
  }
  out += line('h', help_flag, "help for this command") + "\n";
  return out;
}

}  // namespace ksched::util
