// apiserver/pkg/cel/library/cost.go, EstimateCallCost. Changing any of
// these numbers changes which expressions the API server accepts.
#include "pkg/cel/cost_kubernetes.h"

#include <cmath>
#include <initializer_list>
#include <string>

namespace ksched::cel {
namespace cost_kubernetes {
namespace {

// apiserver/pkg/cel limits.
constexpr uint64_t kMaxFormatSize = 64;
constexpr double kMaxNameFormatRegexSize = 128;

constexpr CostEstimate kNominal = {1, 1};

bool OneOf(std::string_view s, std::initializer_list<std::string_view> set) {
  for (std::string_view x : set)
    if (s == x) return true;
  return false;
}

// Go's uint64(f) for the non-negative f here, saturating where Go's
// result depends on the machine (values of 2^64 and more).
uint64_t FloatToUint64(double f) {
  if (!(f < 18446744073709551616.0)) return kMaxEstimate;
  return static_cast<uint64_t>(f);
}

CallEstimate Cost(CostEstimate cost,
                  std::optional<SizeEstimate> result = std::nullopt) {
  return {cost, result};
}

// The elements of a list, as a node of their own (Kubernetes'
// listElementNode): typed by the list's parameter, with the list's path
// leading on to '@items'. Nullopt when the target has no type parameter
// (a string, for indexOf).
std::optional<AstNode> ElementNode(const AstNode& list) {
  if (list.type.params().empty()) return std::nullopt;
  AstNode element;
  element.type = list.type.params()[0];
  if (!list.path.empty()) {
    element.path = list.path;
    element.path.push_back("@items");
  }
  return element;
}

// The size of the result of replace(): the most replacements of the
// shortest needle by the longest replacement, and the fewest of the
// longest needle by the shortest (library.CostEstimator's replace).
SizeEstimate ReplaceResultSize(const SizeEstimate& text,
                               const SizeEstimate& needle,
                               const SizeEstimate& replacement) {
  SizeEstimate count, retained;
  if (needle.min == 0) {
    // An empty needle matches around every character.
    count.max = text.max < kMaxEstimate ? text.max + 1 : text.max;
    retained.max = text.max;
  } else if (replacement.max <= needle.min) {
    count.max = 0;
    retained.max = text.max;
  } else {
    count.max = FloatToUint64(std::ceil(static_cast<double>(text.max) /
                                        static_cast<double>(needle.min)));
  }
  if (needle.max == 0) {
    count.min = text.min < kMaxEstimate ? text.min + 1 : text.min;
    retained.min = text.min;
  } else if (needle.max <= replacement.min) {
    count.min = 0;
    retained.min = text.min;
  } else {
    count.min = FloatToUint64(std::ceil(static_cast<double>(text.min) /
                                        static_cast<double>(needle.max)));
  }
  return count.Multiply(replacement).Add(retained);
}

}  // namespace
}  // namespace cost_kubernetes

std::optional<SizeEstimate> KubernetesCostEstimator::EstimateSize(
    const AstNode& node) const {
  if (size_estimator_) return size_estimator_->EstimateSize(node);
  return std::nullopt;
}

std::optional<CallEstimate> KubernetesCostEstimator::EstimateCallCost(
    std::string_view function, std::string_view overload_id,
    const AstNode* target, std::span<const AstNode> args) const {
  using namespace cost_kubernetes;  // NOLINT: this file's own helpers
  auto size = [&](const AstNode& node) { return SizeOf(*this, node); };
  auto traversal = [&](const AstNode& node, double factor = 1) {
    return size(node).MultiplyByCostFactor(factor * kStringTraversalCostFactor);
  };

  if (OneOf(function,
            {"isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"})) {
    if (!target) return std::nullopt;
    std::optional<AstNode> element = ElementNode(*target);
    // A string target (indexOf, lastIndexOf) is traversed once.
    if (!element) return Cost(traversal(*target));
    // One comparison per element; strings and bytes are compared along
    // their length.
    CostEstimate per_element = kNominal;
    Type::Kind kind = element->type.kind();
    if (kind == Type::Kind::kString || kind == Type::Kind::kBytes) {
      per_element = per_element.Add(traversal(*element));
    }
    return Cost(size(*target).MultiplyByCost(per_element));
  }
  if (function == "url") {
    if (args.size() != 1) return std::nullopt;
    return Cost(traversal(args[0]), size(args[0]));
  }
  if (OneOf(function, {"lowerAscii", "upperAscii", "substring", "trim"})) {
    if (!target) return std::nullopt;
    return Cost(traversal(*target), size(*target));
  }
  if (function == "replace") {
    if (!target || args.size() < 2) return std::nullopt;
    // The traversal plus the result.
    return Cost(traversal(*target, 2),
                ReplaceResultSize(size(*target), size(args[0]), size(args[1])));
  }
  if (function == "split") {
    if (!target) return std::nullopt;
    // At worst (an empty separator) one element per character, unless a
    // literal limit says less.
    uint64_t most = size(*target).max;
    if (args.size() > 1 && args[1].expr &&
        args[1].expr->kind == Expr::Kind::kLiteral &&
        args[1].expr->literal.kind() == Kind::kInt) {
      // Go's uint64(int64): a negative limit (no limit) wraps.
      most = static_cast<uint64_t>(args[1].expr->literal.int_value());
    }
    return Cost(traversal(*target, 2), SizeEstimate{0, most});
  }
  if (function == "join") {
    if (!target) return std::nullopt;
    SizeEstimate list = size(*target);
    SizeEstimate result;
    if (std::optional<AstNode> element = ElementNode(*target)) {
      result = list.Multiply(size(*element));
    }
    if (!args.empty()) {
      SizeEstimate separators{list.min > 0 ? list.min - 1 : 0,
                              list.max > 0 ? list.max - 1 : 0};
      result = result.Add(size(args[0]).Multiply(separators));
    }
    return Cost(result.MultiplyByCostFactor(kStringTraversalCostFactor),
                result);
  }
  if (function == "find" || function == "findAll") {
    if (!target || args.empty()) return std::nullopt;
    SizeEstimate text = size(*target);
    // As matches(): the string (plus one) times the pattern.
    CostEstimate text_cost =
        text.Add(SizeEstimate::Fixed(1))
            .MultiplyByCostFactor(kStringTraversalCostFactor);
    CostEstimate pattern_cost =
        size(args[0]).MultiplyByCostFactor(kRegexStringLengthCostFactor);
    return Cost(text_cost.Multiply(pattern_cost), SizeEstimate{0, text.max});
  }
  if (OneOf(function, {"cidr", "isIP", "isCIDR"})) {
    if (args.empty()) return std::nullopt;
    return Cost(traversal(args[0]));
  }
  if (function == "ip") {
    // cidr.ip() reads a field.
    if (overload_id == "cidr_ip") return Cost(kNominal);
    if (args.empty()) return std::nullopt;
    return Cost(traversal(args[0]));
  }
  if (function == "ip.isCanonical") {
    // Parsing, then comparing with the original.
    if (args.empty()) return std::nullopt;
    return Cost(traversal(args[0], 2));
  }
  if (OneOf(function, {"masked", "prefixLength", "family", "isUnspecified",
                       "isLoopback", "isLinkLocalMulticast",
                       "isLinkLocalUnicast", "isGlobalUnicast"})) {
    return Cost(kNominal);
  }
  if (function == "containsIP" || function == "containsCIDR") {
    if (args.empty()) return std::nullopt;
    // Comparing two addresses of 4 (IPv4) or 16 (IPv6) bytes.
    SizeEstimate address{4, 16};
    CostEstimate cost =
        address.Add(address).MultiplyByCostFactor(kStringTraversalCostFactor);
    if (function == "containsCIDR") {
      // Masking the other prefix, and comparing the prefix lengths.
      cost = cost.Add(address.MultiplyByCostFactor(kStringTraversalCostFactor))
                 .Add(kNominal);
    }
    if (overload_id == "cidr_contains_ip_string" ||
        overload_id == "cidr_contains_cidr_string") {
      // Parsing the string argument.
      cost = cost.Add(size(args[0]).AsCost().MultiplyByCostFactor(
          kStringTraversalCostFactor));
    }
    return Cost(cost);
  }
  if (OneOf(function, {"quantity", "isQuantity", "semver", "isSemver"})) {
    if (args.empty()) return std::nullopt;
    return Cost(traversal(args[0]));
  }
  if (function == "validate") {
    if (args.empty()) return std::nullopt;
    // Matching against the longest regular expression a named format has.
    return Cost(traversal(args[0]).MultiplyByCostFactor(
        kMaxNameFormatRegexSize * kRegexStringLengthCostFactor));
  }
  if (OneOf(function, {"format.named", "sign", "asInteger", "isInteger",
                       "asApproximateFloat", "isGreaterThan", "isLessThan",
                       "compareTo", "add", "sub", "major", "minor", "patch",
                       "getScheme", "getHostname", "getHost", "getPort",
                       "getEscapedPath", "getQuery"})) {
    return Cost(kNominal);
  }
  if (function == "_==_") {
    if (args.size() != 2 || !(args[0].type == args[1].type))
      return std::nullopt;
    const Type& type = args[0].type;
    if (type.kind() != Type::Kind::kOpaque) return std::nullopt;
    const std::string& name = type.name();
    if (name == "net.IP" || name == "net.CIDR" ||
        name == "kubernetes.Quantity" || name == "kubernetes.Semver") {
      return Cost(kNominal);
    }
    if (name == "kubernetes.NamedFormat") {
      return Cost(CostEstimate{1, kMaxFormatSize}.MultiplyByCostFactor(
          kStringTraversalCostFactor));
    }
    if (name == "kubernetes.URL") {
      // Kubernetes takes the right operand's size for both.
      SizeEstimate url = args[1].computed_size.value_or(SizeEstimate{1, 1});
      return Cost(CostEstimate{1, url.max}.MultiplyByCostFactor(
          kStringTraversalCostFactor));
    }
  }
  return std::nullopt;
}

}  // namespace ksched::cel
