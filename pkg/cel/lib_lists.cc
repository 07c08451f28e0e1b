// cel-go's lists extension (ext/lists.go) at version 3: slice, flatten,
// sort, @sortByAssociatedKeys (the sortBy macro's helper), lists.range,
// reverse, distinct, with the version-3 cost trackers.

#include <bit>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pkg/cel/compare.h"
#include "pkg/cel/function.h"
#include "pkg/cel/lib_internal.h"
#include "pkg/cel/libraries.h"

namespace ksched::cel {
// Named so that unity builds keep these helpers apart from other files'.
namespace lists_ext {
namespace {

constexpr uint64_t kCallCost = 1;
constexpr uint64_t kListCreateBaseCost = 10;

// Go's sort.Slice (pdqsort_func) over indices [0, n), so that lists whose
// keys tie (or do not order, such as NaN) come out in exactly Go's order.
class GoSorter {
 public:
  GoSorter(std::vector<size_t>& data, std::function<bool(size_t, size_t)> less)
      : data_(data), less_(std::move(less)) {}

  void Sort() {
    const int n = static_cast<int>(data_.size());
    const int limit = std::bit_width(static_cast<unsigned>(n));
    PdqSort(0, n, limit);
  }

 private:
  enum Hint { kUnknown, kIncreasing, kDecreasing };

  bool Less(int i, int j) { return less_(data_[i], data_[j]); }
  void Swap(int i, int j) { std::swap(data_[i], data_[j]); }

  void InsertionSort(int a, int b) {
    for (int i = a + 1; i < b; ++i) {
      for (int j = i; j > a && Less(j, j - 1); --j) Swap(j, j - 1);
    }
  }

  void SiftDown(int lo, int hi, int first) {
    int root = lo;
    while (true) {
      int child = 2 * root + 1;
      if (child >= hi) return;
      if (child + 1 < hi && Less(first + child, first + child + 1)) ++child;
      if (!Less(first + root, first + child)) return;
      Swap(first + root, first + child);
      root = child;
    }
  }

  void HeapSort(int a, int b) {
    const int first = a;
    const int lo = 0;
    const int hi = b - a;
    for (int i = (hi - 1) / 2; i >= 0; --i) SiftDown(i, hi, first);
    for (int i = hi - 1; i >= 0; --i) {
      Swap(first, first + i);
      SiftDown(lo, i, first);
    }
  }

  void PdqSort(int a, int b, int limit) {
    constexpr int kMaxInsertion = 12;
    bool was_balanced = true;
    bool was_partitioned = true;
    while (true) {
      const int length = b - a;
      if (length <= kMaxInsertion) {
        InsertionSort(a, b);
        return;
      }
      if (limit == 0) {
        HeapSort(a, b);
        return;
      }
      if (!was_balanced) {
        BreakPatterns(a, b);
        --limit;
      }
      Hint hint;
      int pivot = ChoosePivot(a, b, &hint);
      if (hint == kDecreasing) {
        ReverseRange(a, b);
        pivot = (b - 1) - (pivot - a);
        hint = kIncreasing;
      }
      if (was_balanced && was_partitioned && hint == kIncreasing) {
        if (PartialInsertionSort(a, b)) return;
      }
      if (a > 0 && !Less(a - 1, pivot)) {
        a = PartitionEqual(a, b, pivot);
        continue;
      }
      bool already_partitioned;
      const int mid = Partition(a, b, pivot, &already_partitioned);
      was_partitioned = already_partitioned;
      const int left_len = mid - a;
      const int right_len = b - mid;
      const int balance_threshold = length / 8;
      if (left_len < right_len) {
        was_balanced = left_len >= balance_threshold;
        PdqSort(a, mid, limit);
        a = mid + 1;
      } else {
        was_balanced = right_len >= balance_threshold;
        PdqSort(mid + 1, b, limit);
        b = mid;
      }
    }
  }

  int Partition(int a, int b, int pivot, bool* already) {
    Swap(a, pivot);
    int i = a + 1;
    int j = b - 1;
    while (i <= j && Less(i, a)) ++i;
    while (i <= j && !Less(j, a)) --j;
    if (i > j) {
      Swap(j, a);
      *already = true;
      return j;
    }
    Swap(i, j);
    ++i;
    --j;
    while (true) {
      while (i <= j && Less(i, a)) ++i;
      while (i <= j && !Less(j, a)) --j;
      if (i > j) break;
      Swap(i, j);
      ++i;
      --j;
    }
    Swap(j, a);
    *already = false;
    return j;
  }

  int PartitionEqual(int a, int b, int pivot) {
    Swap(a, pivot);
    int i = a + 1;
    int j = b - 1;
    while (true) {
      while (i <= j && !Less(a, i)) ++i;
      while (i <= j && Less(a, j)) --j;
      if (i > j) break;
      Swap(i, j);
      ++i;
      --j;
    }
    return i;
  }

  bool PartialInsertionSort(int a, int b) {
    constexpr int kMaxSteps = 5;
    constexpr int kShortestShifting = 50;
    int i = a + 1;
    for (int step = 0; step < kMaxSteps; ++step) {
      while (i < b && !Less(i, i - 1)) ++i;
      if (i == b) return true;
      if (b - a < kShortestShifting) return false;
      Swap(i, i - 1);
      if (i - a >= 2) {
        for (int j = i - 1; j >= 1; --j) {
          if (!Less(j, j - 1)) break;
          Swap(j, j - 1);
        }
      }
      if (b - i >= 2) {
        for (int j = i + 1; j < b; ++j) {
          if (!Less(j, j - 1)) break;
          Swap(j, j - 1);
        }
      }
    }
    return false;
  }

  void BreakPatterns(int a, int b) {
    const int length = b - a;
    if (length < 8) return;
    uint64_t random = static_cast<uint64_t>(length);
    const uint64_t modulus = uint64_t{1}
                             << std::bit_width(static_cast<uint64_t>(length));
    for (int idx = a + (length / 4) * 2 - 1; idx <= a + (length / 4) * 2 + 1;
         ++idx) {
      random ^= random << 13;
      random ^= random >> 7;
      random ^= random << 17;
      int other = static_cast<int>(random & (modulus - 1));
      if (other >= length) other -= length;
      Swap(idx, a + other);
    }
  }

  int ChoosePivot(int a, int b, Hint* hint) {
    constexpr int kShortestNinther = 50;
    constexpr int kMaxSwaps = 4 * 3;
    const int l = b - a;
    int swaps = 0;
    int i = a + l / 4 * 1;
    int j = a + l / 4 * 2;
    int k = a + l / 4 * 3;
    if (l >= 8) {
      if (l >= kShortestNinther) {
        i = MedianAdjacent(i, &swaps);
        j = MedianAdjacent(j, &swaps);
        k = MedianAdjacent(k, &swaps);
      }
      j = Median(i, j, k, &swaps);
    }
    if (swaps == 0) {
      *hint = kIncreasing;
    } else if (swaps == kMaxSwaps) {
      *hint = kDecreasing;
    } else {
      *hint = kUnknown;
    }
    return j;
  }

  void Order2(int& a, int& b, int* swaps) {
    if (Less(b, a)) {
      ++*swaps;
      std::swap(a, b);
    }
  }

  int Median(int a, int b, int c, int* swaps) {
    Order2(a, b, swaps);
    Order2(b, c, swaps);
    Order2(a, b, swaps);
    return b;
  }

  int MedianAdjacent(int a, int* swaps) {
    return Median(a - 1, a, a + 1, swaps);
  }

  void ReverseRange(int a, int b) {
    for (int i = a, j = b - 1; i < j; ++i, --j) Swap(i, j);
  }

  std::vector<size_t>& data_;
  std::function<bool(size_t, size_t)> less_;
};

std::vector<Value> Items(const ListValue& list) {
  std::vector<Value> items;
  items.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) items.push_back(list.at(i));
  return items;
}

Value SortByAssociatedKeys(const Value& list_value, const ListValue& keys) {
  const ListValue& list = list_value.list();
  if (list.size() != keys.size()) {
    return Value::Error(
        "@sortByAssociatedKeys() expected a list of the same size as the "
        "associated keys list, but got " +
        std::to_string(list.size()) + " and " + std::to_string(keys.size()) +
        " elements respectively");
  }
  if (list.size() == 0) return list_value;
  const std::vector<Value> key_items = Items(keys);
  const Kind elem_kind = key_items[0].kind();
  if (!IsComparableKind(elem_kind)) {
    return Value::Error("list elements must be comparable");
  }
  std::vector<size_t> indices(list.size());
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = i;
  bool mixed = false;
  GoSorter sorter(indices, [&](size_t i, size_t j) {
    const Value& a = key_items[i];
    const Value& b = key_items[j];
    if (a.kind() != elem_kind || b.kind() != elem_kind) {
      mixed = true;
      return false;
    }
    const Value c = Compare(a, b);
    return c.kind() == Kind::kInt && c.int_value() == -1;
  });
  sorter.Sort();
  if (mixed) return Value::Error("list elements must have the same type");
  std::vector<Value> sorted;
  sorted.reserve(indices.size());
  for (size_t i : indices) sorted.push_back(list.at(i));
  return MakeList(std::move(sorted));
}

Value Slice(const ListValue& list, int64_t start, int64_t end) {
  const auto length = static_cast<int64_t>(list.size());
  const std::string range = "cannot slice(" + std::to_string(start) + ", " +
                            std::to_string(end) + "), ";
  if (start < 0 || end < 0) {
    return Value::Error(range + "negative indexes not supported");
  }
  if (start > end) {
    return Value::Error(range +
                        "start index must be less than or equal to end index");
  }
  if (length < end) {
    return Value::Error(range + "list is length " + std::to_string(length));
  }
  std::vector<Value> out;
  out.reserve(end - start);
  for (int64_t i = start; i < end; ++i) out.push_back(list.at(i));
  return MakeList(std::move(out));
}

void FlattenInto(const ListValue& list, int64_t depth,
                 std::vector<Value>& out) {
  for (size_t i = 0; i < list.size(); ++i) {
    Value v = list.at(i);
    if (v.kind() != Kind::kList || depth == 0) {
      out.push_back(std::move(v));
    } else {
      FlattenInto(v.list(), depth - 1, out);
    }
  }
}

Value Flatten(const ListValue& list, int64_t depth) {
  if (depth < 0) return Value::Error("level must be non-negative");
  std::vector<Value> out;
  FlattenInto(list, depth, out);
  return MakeList(std::move(out));
}

Value Distinct(const Value& list_value) {
  const ListValue& list = list_value.list();
  if (list.size() == 0) return list_value;
  std::vector<Value> unique;
  for (size_t i = 0; i < list.size(); ++i) {
    Value v = list.at(i);
    bool seen = false;
    for (size_t j = 0; j < unique.size(); ++j) {
      if (i == j) continue;  // as cel-go does (compares indices of both)
      const Value eq = Equal(v, unique[j]);
      if (eq.kind() == Kind::kBool && eq.bool_value()) {
        seen = true;
        break;
      }
    }
    if (!seen) unique.push_back(std::move(v));
  }
  return MakeList(std::move(unique));
}

Value Range(int64_t n) {
  std::vector<Value> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(Value::Int(i));
  return MakeList(std::move(out));
}

Value Reverse(const ListValue& list) {
  std::vector<Value> out;
  out.reserve(list.size());
  for (size_t i = list.size(); i > 0; --i) out.push_back(list.at(i - 1));
  return MakeList(std::move(out));
}

// Go's uint64(float64) on amd64 for the values these trackers produce:
// negative values wrap as int64 does.
uint64_t GoFloatToUint(double d) {
  if (d < 0) return static_cast<uint64_t>(static_cast<int64_t>(d));
  return static_cast<uint64_t>(d);
}

uint64_t AllocatingListCall(double factor, uint64_t size) {
  return GoFloatToUint(static_cast<double>(size) * factor) + kCallCost +
         kListCreateBaseCost;
}

std::optional<uint64_t> TrackOutputSize(std::span<const Value>,
                                        const Value& result) {
  return AllocatingListCall(1, lib::SizerSize(result));
}

std::optional<uint64_t> TrackFlatten(std::span<const Value> args,
                                     const Value&) {
  const double depth =
      args.size() == 2 ? static_cast<double>(args[1].int_value()) : 1.0;
  return AllocatingListCall(depth, lib::SizerSize(args[0]));
}

uint64_t SelfCompare(const Value& list) {
  const uint64_t size = lib::SizerSize(list);
  double factor = 2.0;
  if (size == 0) return AllocatingListCall(factor, 0);
  const Kind first = list.list().at(0).kind();
  if (first == Kind::kString || first == Kind::kBytes) factor += 0.1;
  return AllocatingListCall(factor, size * size);
}

}  // namespace

void Register(FunctionRegistry& r) {
  const Type t = Type::Param("T");
  const Type list_t = Type::List(t);
  const Type list_dyn = Type::List(Type::Dyn());
  const Type i = Type::Int();
  r.Add("slice", Member(
                     "list_slice", {list_t, i, i}, list_t,
                     [](std::span<const Value> a) {
                       return Slice(a[0].list(), a[1].int_value(),
                                    a[2].int_value());
                     },
                     TrackOutputSize));
  // Version 1.
  r.Add("flatten",
        Member(
            "list_flatten", {Type::List(list_t)}, list_t,
            [](std::span<const Value> a) { return Flatten(a[0].list(), 1); },
            TrackFlatten));
  r.Add("flatten", Member(
                       "list_flatten_int", {list_dyn, i}, list_dyn,
                       [](std::span<const Value> a) {
                         return Flatten(a[0].list(), a[1].int_value());
                       },
                       TrackFlatten));
  // Version 2. The overload ids carry cel-go's type names.
  const std::pair<const char*, Type> comparable[] = {
      {"int", Type::Int()},
      {"uint", Type::Uint()},
      {"double", Type::Double()},
      {"bool", Type::Bool()},
      {"google.protobuf.Duration", Type::Duration()},
      {"google.protobuf.Timestamp", Type::Timestamp()},
      {"string", Type::String()},
      {"bytes", Type::Bytes()},
  };
  for (const auto& [name, type] : comparable) {
    r.Add("sort", Member(
                      std::string("list_") + name + "_sort", {Type::List(type)},
                      Type::List(type),
                      [](std::span<const Value> a) {
                        return SortByAssociatedKeys(a[0], a[0].list());
                      },
                      [](std::span<const Value> a, const Value&) {
                        return std::optional<uint64_t>(SelfCompare(a[0]));
                      }));
  }
  for (const auto& [name, type] : comparable) {
    r.Add("@sortByAssociatedKeys",
          Member(
              std::string("list_") + name + "_sortByAssociatedKeys",
              {list_t, Type::List(type)}, list_t,
              [](std::span<const Value> a) {
                return SortByAssociatedKeys(a[0], a[1].list());
              },
              [](std::span<const Value> a, const Value&) {
                return std::optional<uint64_t>(SelfCompare(a[1]));
              }));
  }
  r.Add("lists.range",
        Global(
            "lists_range", {i}, Type::List(i),
            [](std::span<const Value> a) { return Range(a[0].int_value()); },
            TrackOutputSize));
  r.Add("reverse",
        Member(
            "list_reverse", {list_t}, list_t,
            [](std::span<const Value> a) { return Reverse(a[0].list()); },
            TrackOutputSize));
  r.Add("distinct", Member(
                        "list_distinct", {list_t}, list_t,
                        [](std::span<const Value> a) { return Distinct(a[0]); },
                        [](std::span<const Value> a, const Value&) {
                          return std::optional<uint64_t>(SelfCompare(a[0]));
                        }));
}

}  // namespace lists_ext

void RegisterListsExt(FunctionRegistry& r) { lists_ext::Register(r); }

}  // namespace ksched::cel
