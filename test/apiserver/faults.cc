#include "test/apiserver/faults.h"

#include <algorithm>
#include <string_view>

#include "test/apiserver/ids.h"

namespace ksched::testing::apiserver {

namespace {

bool MethodMatches(const std::string& pattern, const std::string& method) {
  return pattern.empty() || pattern == "*" || pattern == method;
}

}  // namespace

void Faults::Inject(const FaultRule& rule) {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.push_back(rule);
}

std::optional<FaultRule> Faults::Match(const std::string& method,
                                       const std::string& target,
                                       IdSource& random) {
  std::lock_guard<std::mutex> lock(mu_);
  for (FaultRule& rule : rules_) {
    if (rule.count == 0 || !MethodMatches(rule.method, method) ||
        target.find(rule.path_substring) == std::string::npos) {
      continue;
    }
    if (rule.every > 1 && ++rule.matched % rule.every != 0) continue;
    if (rule.probability < 1.0 && random.Uniform() >= rule.probability) {
      continue;
    }
    if (rule.count > 0) --rule.count;
    ++injected_[rule.code];
    return rule;
  }
  return std::nullopt;
}

void Faults::SetDelay(const std::string& path_substring,
                      std::chrono::milliseconds delay) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [substring, d] : delays_) {
    if (substring == path_substring) {
      d = delay;
      return;
    }
  }
  delays_.emplace_back(path_substring, delay);
}

std::chrono::milliseconds Faults::DelayFor(const std::string& target) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::chrono::milliseconds longest{0};
  for (const auto& [substring, d] : delays_) {
    if (target.find(substring) != std::string::npos && d > longest) {
      longest = d;
    }
  }
  return longest;
}

void Faults::HangUntil(std::chrono::steady_clock::time_point until) {
  std::lock_guard<std::mutex> lock(mu_);
  hang_until_ = until;
}

std::optional<std::chrono::steady_clock::time_point> Faults::Hanging() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!hang_until_ || *hang_until_ <= std::chrono::steady_clock::now()) {
    return std::nullopt;
  }
  return hang_until_;
}

void Faults::Forbid(const std::string& verb, const std::string& resource) {
  std::lock_guard<std::mutex> lock(mu_);
  forbidden_.emplace_back(verb, resource);
}

bool Faults::IsForbidden(const std::string& verb,
                         const std::string& resource) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [v, r] : forbidden_) {
    if ((v == "*" || v == verb) && (r == "*" || r == resource)) return true;
  }
  return false;
}

void Faults::SetTokens(std::vector<std::string> tokens) {
  std::lock_guard lock(mu_);
  tokens_ = std::move(tokens);
}

bool Faults::Authenticates(const std::string& authorization,
                           const std::string& configured) const {
  constexpr std::string_view kBearer = "Bearer ";
  if (!authorization.starts_with(kBearer)) return false;
  const std::string token = authorization.substr(kBearer.size());
  std::lock_guard lock(mu_);
  if (!tokens_.has_value()) return token == configured;
  return std::find(tokens_->begin(), tokens_->end(), token) != tokens_->end();
}

void Faults::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.clear();
  delays_.clear();
  forbidden_.clear();
  hang_until_.reset();
}

void Faults::Record(const std::string& method, const std::string& target) {
  std::lock_guard<std::mutex> lock(mu_);
  requests_.emplace_back(method, target);
}

std::vector<std::pair<std::string, std::string>> Faults::Requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

int Faults::Count(const std::string& method,
                  const std::string& substring) const {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (const auto& [m, target] : requests_) {
    if (MethodMatches(method, m) &&
        target.find(substring) != std::string::npos) {
      ++n;
    }
  }
  return n;
}

void Faults::CountDelayed() {
  std::lock_guard<std::mutex> lock(mu_);
  ++delayed_;
}

void Faults::CountHung() {
  std::lock_guard<std::mutex> lock(mu_);
  ++hung_;
}

void Faults::CountUnauthorized() {
  std::lock_guard<std::mutex> lock(mu_);
  ++unauthorized_;
}

std::map<int, int> Faults::InjectedByCode() const {
  std::lock_guard<std::mutex> lock(mu_);
  return injected_;
}

int Faults::Delayed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return delayed_;
}

int Faults::Hung() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hung_;
}

int Faults::Unauthorized() const {
  std::lock_guard<std::mutex> lock(mu_);
  return unauthorized_;
}

}  // namespace ksched::testing::apiserver
