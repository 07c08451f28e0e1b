// CEL types as the checker sees them.
//
// Mirrors cel-go's checker types closely enough that error messages print
// the same: `int`, `list(int)`, `map(string, dyn)`, `type(int)`,
// `optional_type(string)`, `kubernetes.Quantity`, type parameters `A`.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/cel/value.h"

namespace ksched::cel {

class Type {
 public:
  enum class Kind : uint8_t {
    kDyn,
    kNull,
    kBool,
    kInt,
    kUint,
    kDouble,
    kString,
    kBytes,
    kList,
    kMap,
    kType,      // type(T): the type of a type value
    kOptional,  // optional_type(T)
    kOpaque,    // a named extension type: kubernetes.Quantity, ...Semver
    kObject,    // a named object with declared fields (kubernetes.DRADevice)
    kTypeParam,
    kError,
  };

  Type() = default;  // dyn
  static Type Dyn() { return Type(Kind::kDyn); }
  static Type Null() { return Type(Kind::kNull); }
  static Type Bool() { return Type(Kind::kBool); }
  static Type Int() { return Type(Kind::kInt); }
  static Type Uint() { return Type(Kind::kUint); }
  static Type Double() { return Type(Kind::kDouble); }
  static Type String() { return Type(Kind::kString); }
  static Type Bytes() { return Type(Kind::kBytes); }
  static Type Error() { return Type(Kind::kError); }
  static Type List(Type elem);
  static Type Map(Type key, Type value);
  static Type TypeOf(Type t);
  static Type Optional(Type t);
  static Type Opaque(std::string name);
  // The well-known protobuf types CEL has values of; the checker treats
  // them as named types.
  static Type Timestamp() { return Opaque("google.protobuf.Timestamp"); }
  static Type Duration() { return Opaque("google.protobuf.Duration"); }
  static Type Param(std::string name);
  // An object type: field name -> type.
  static Type Object(std::string name, std::map<std::string, Type> fields);

  Kind kind() const { return kind_; }
  const std::string& name() const { return name_; }
  const std::vector<Type>& params() const { return params_; }
  const std::map<std::string, Type>& fields() const { return fields_; }
  const Type& elem() const { return params_[0]; }   // list, optional, type
  const Type& key() const { return params_[0]; }    // map
  const Type& value() const { return params_[1]; }  // map

  bool IsDynOrError() const {
    return kind_ == Kind::kDyn || kind_ == Kind::kError;
  }

  // As cel-go prints it in messages.
  std::string ToString() const;

  friend bool operator==(const Type& a, const Type& b);

  // Whether a runtime value's kind fits this declared type (for overload
  // dispatch; element types of lists and maps are not looked at).
  bool AcceptsRuntime(const Value& v) const;

  // The runtime type name of values of this type ("list", "map", "int").
  std::string_view RuntimeName() const;

 private:
  explicit Type(Kind kind) : kind_(kind) {}

  Kind kind_ = Kind::kDyn;
  std::string name_;
  std::vector<Type> params_;
  std::map<std::string, Type> fields_;
};

}  // namespace ksched::cel
