// What tests do to the server's HTTP side: injected failures, slow
// answers, RBAC denials, and a log of every request received.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ksched::testing::apiserver {

class IdSource;

struct FaultRule {
  std::string method;          // "" or "*": any
  std::string path_substring;  // matched against path and query
  int code = 500;
  int count = -1;  // answers left; -1: unlimited
  double probability = 1.0;
  // Fires on every `every`-th matching request only (1: on each), a
  // schedule a test can count on where a probability leaves it to chance.
  int every = 1;
  int retry_after_seconds = 0;
  int matched = 0;  // matching requests seen, for `every`
};

class Faults {
 public:
  void Inject(const FaultRule& rule);
  // The rule answering this request, if one fires (its count goes down).
  std::optional<FaultRule> Match(const std::string& method,
                                 const std::string& target, IdSource& random);

  void SetDelay(const std::string& path_substring,
                std::chrono::milliseconds delay);
  // The longest delay whose substring `target` contains (0 if none).
  std::chrono::milliseconds DelayFor(const std::string& target) const;

  // Until `until`, every request that arrives is held, unanswered, as an
  // API server whose etcd is down holds it; at `until` each gets the 504
  // its timeout filter writes, and none of them takes effect.
  void HangUntil(std::chrono::steady_clock::time_point until);
  // When the hang in force now ends; nullopt when there is none.
  std::optional<std::chrono::steady_clock::time_point> Hanging() const;

  // `verb` ("list", "create", ..., "*") on `resource` ("nodes",
  // "pods/binding", "*") is denied.
  void Forbid(const std::string& verb, const std::string& resource);
  bool IsForbidden(const std::string& verb, const std::string& resource) const;

  void Clear();  // faults, delays and denials; not the request log

  // Bearer tokens that authenticate, replacing the configured one: a
  // rotation keeps the old token valid for a while (as bound service
  // account tokens stay valid after the kubelet writes a new one), then
  // revokes it.
  void SetTokens(std::vector<std::string> tokens);
  // Whether `authorization` ("Bearer ...") names an accepted token;
  // `configured` is the server's own while SetTokens was never called.
  bool Authenticates(const std::string& authorization,
                     const std::string& configured) const;

  void Record(const std::string& method, const std::string& target);
  // Every request received, in order: method and target.
  std::vector<std::pair<std::string, std::string>> Requests() const;
  int Count(const std::string& method, const std::string& substring) const;

  // What the switches served, counted as it is answered: injected
  // failures by code, requests held by a delay, 401s.
  void CountDelayed();
  void CountHung();
  void CountUnauthorized();
  std::map<int, int> InjectedByCode() const;
  int Delayed() const;
  int Hung() const;
  int Unauthorized() const;

 private:
  mutable std::mutex mu_;
  std::vector<FaultRule> rules_;
  std::vector<std::pair<std::string, std::chrono::milliseconds>> delays_;
  std::vector<std::pair<std::string, std::string>> forbidden_;
  std::vector<std::pair<std::string, std::string>> requests_;
  std::optional<std::vector<std::string>> tokens_;
  std::map<int, int> injected_;
  int delayed_ = 0;
  int hung_ = 0;
  std::optional<std::chrono::steady_clock::time_point> hang_until_;
  int unauthorized_ = 0;
};

}  // namespace ksched::testing::apiserver
