#include "pkg/cel/type.h"

namespace ksched::cel {

Type Type::List(Type elem) {
  Type t(Kind::kList);
  t.params_.push_back(std::move(elem));
  return t;
}

Type Type::Map(Type key, Type value) {
  Type t(Kind::kMap);
  t.params_.push_back(std::move(key));
  t.params_.push_back(std::move(value));
  return t;
}

Type Type::TypeOf(Type of) {
  Type t(Kind::kType);
  t.params_.push_back(std::move(of));
  return t;
}

Type Type::Optional(Type of) {
  Type t(Kind::kOptional);
  t.params_.push_back(std::move(of));
  return t;
}

Type Type::Opaque(std::string name) {
  Type t(Kind::kOpaque);
  t.name_ = std::move(name);
  return t;
}

Type Type::Param(std::string name) {
  Type t(Kind::kTypeParam);
  t.name_ = std::move(name);
  return t;
}

Type Type::Object(std::string name, std::map<std::string, Type> fields) {
  Type t(Kind::kObject);
  t.name_ = std::move(name);
  t.fields_ = std::move(fields);
  return t;
}

std::string Type::ToString() const {
  switch (kind_) {
    case Kind::kList:
      return "list(" + elem().ToString() + ")";
    case Kind::kMap:
      return "map(" + key().ToString() + ", " + value().ToString() + ")";
    case Kind::kType:
      return params_.empty() ? "type" : "type(" + elem().ToString() + ")";
    case Kind::kOptional:
      return "optional_type(" + elem().ToString() + ")";
    case Kind::kOpaque:
    case Kind::kObject:
    case Kind::kTypeParam:
      return name_;
    case Kind::kError:
      return "*error*";
    default:
      // Unparameterized types print as their runtime name.
      return std::string(RuntimeName());
  }
}

bool operator==(const Type& a, const Type& b) {
  return a.kind_ == b.kind_ && a.name_ == b.name_ && a.params_ == b.params_;
}

bool Type::AcceptsRuntime(const Value& v) const {
  switch (kind_) {
    case Kind::kDyn:
    case Kind::kTypeParam:
      return true;
    case Kind::kNull:
      return v.kind() == cel::Kind::kNull;
    case Kind::kBool:
      return v.kind() == cel::Kind::kBool;
    case Kind::kInt:
      return v.kind() == cel::Kind::kInt;
    case Kind::kUint:
      return v.kind() == cel::Kind::kUint;
    case Kind::kDouble:
      return v.kind() == cel::Kind::kDouble;
    case Kind::kString:
      return v.kind() == cel::Kind::kString;
    case Kind::kBytes:
      return v.kind() == cel::Kind::kBytes;
    case Kind::kList:
      // cel-go's runtime guard looks at the first element.
      if (v.kind() != cel::Kind::kList) return false;
      return v.list().size() == 0 || elem().AcceptsRuntime(v.list().at(0));
    case Kind::kMap: {
      // ... and at the first entry.
      if (v.kind() != cel::Kind::kMap) return false;
      if (v.map().size() == 0) return true;
      Value k = v.map().KeyAt(0);
      return key().AcceptsRuntime(k) &&
             value().AcceptsRuntime(*v.map().Find(k));
    }
    case Kind::kObject:
      return v.kind() == cel::Kind::kMap;
    case Kind::kType:
      return v.kind() == cel::Kind::kType;
    case Kind::kOptional:
      return v.kind() == cel::Kind::kOptional;
    case Kind::kOpaque:
      if (name_ == "kubernetes.Quantity")
        return v.kind() == cel::Kind::kQuantity;
      if (name_ == "kubernetes.Semver") return v.kind() == cel::Kind::kSemver;
      if (name_ == "net.IP") return v.kind() == cel::Kind::kIp;
      if (name_ == "net.CIDR") return v.kind() == cel::Kind::kCidr;
      if (name_ == "kubernetes.URL") return v.kind() == cel::Kind::kUrl;
      if (name_ == "kubernetes.NamedFormat")
        return v.kind() == cel::Kind::kFormat;
      if (name_ == "google.protobuf.Timestamp")
        return v.kind() == cel::Kind::kTimestamp;
      if (name_ == "google.protobuf.Duration")
        return v.kind() == cel::Kind::kDuration;
      return false;
    case Kind::kError:
      return false;
  }
  return false;
}

std::string_view Type::RuntimeName() const {
  switch (kind_) {
    case Kind::kNull:
      return "null_type";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kUint:
      return "uint";
    case Kind::kDouble:
      return "double";
    case Kind::kString:
      return "string";
    case Kind::kBytes:
      return "bytes";
    case Kind::kList:
      return "list";
    case Kind::kMap:
      return "map";
    case Kind::kType:
      return "type";
    case Kind::kOptional:
      return "optional_type";
    case Kind::kOpaque:
    case Kind::kObject:
      return name_;
    default:
      return "dyn";
  }
}

}  // namespace ksched::cel
