#include "test/apiserver/patch.h"

#include <string_view>
#include <vector>

#include "test/apiserver/merge_keys.h"

namespace ksched::testing::apiserver {

void ApplyMergePatch(JsonValue& target, const JsonValue& patch,
                     JsonAllocator& alloc) {
  if (!patch.IsObject()) {
    target.CopyFrom(patch, alloc);
    return;
  }
  if (!target.IsObject()) target.SetObject();
  for (const auto& m : patch.GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (m.value.IsNull()) {
      RemoveMember(target, key);
      continue;
    }
    JsonValue* existing = MutableMember(target, key);
    if (existing == nullptr) {
      SetMember(target, key, JsonValue(rapidjson::kNullType), alloc);
      existing = MutableMember(target, key);
    }
    ApplyMergePatch(*existing, m.value, alloc);
  }
}

namespace {

bool IsDirective(std::string_view key) { return !key.empty() && key[0] == '$'; }

// A copy of `v` without patch directives, for content the patch adds.
JsonValue WithoutDirectives(const JsonValue& v, JsonAllocator& alloc) {
  if (v.IsObject()) {
    JsonValue out(rapidjson::kObjectType);
    for (const auto& m : v.GetObject()) {
      std::string_view key(m.name.GetString(), m.name.GetStringLength());
      if (IsDirective(key) || m.value.IsNull()) continue;
      out.AddMember(JsonValue(m.name, alloc), WithoutDirectives(m.value, alloc),
                    alloc);
    }
    return out;
  }
  if (v.IsArray()) {
    JsonValue out(rapidjson::kArrayType);
    for (const auto& e : v.GetArray()) {
      if (e.IsObject()) {
        const JsonValue* directive = Member(e, "$patch");
        if (directive != nullptr) continue;
      }
      out.PushBack(WithoutDirectives(e, alloc), alloc);
    }
    return out;
  }
  return JsonValue(v, alloc);
}

bool MergeObject(JsonValue& target, const JsonValue& patch,
                 JsonAllocator& alloc, std::string* error);

bool MergeList(JsonValue& target, const JsonValue& patch,
               std::string_view merge_key, JsonAllocator& alloc,
               std::string* error) {
  for (const auto& e : patch.GetArray()) {
    const JsonValue* directive = Member(e, "$patch");
    if (directive != nullptr && directive->IsString() &&
        std::string_view(directive->GetString()) == "replace") {
      target = WithoutDirectives(patch, alloc);
      return true;
    }
  }
  for (const auto& e : patch.GetArray()) {
    if (!e.IsObject()) {
      target.PushBack(JsonValue(e, alloc), alloc);
      continue;
    }
    const JsonValue* key = Member(e, merge_key);
    if (key == nullptr) {
      *error = "map: " + ToJson(e) + " does not contain declared merge key: " +
               std::string(merge_key);
      return false;
    }
    const JsonValue* directive = Member(e, "$patch");
    const bool remove = directive != nullptr && directive->IsString() &&
                        std::string_view(directive->GetString()) == "delete";
    bool found = false;
    for (rapidjson::SizeType i = 0; i < target.Size(); ++i) {
      const JsonValue* existing = Member(target[i], merge_key);
      if (existing == nullptr || !(*existing == *key)) continue;
      found = true;
      if (remove) {
        target.Erase(target.Begin() + i);
        --i;
        continue;
      }
      if (!MergeObject(target[i], e, alloc, error)) return false;
      break;
    }
    if (!found && !remove) target.PushBack(WithoutDirectives(e, alloc), alloc);
  }
  return true;
}

bool MergeObject(JsonValue& target, const JsonValue& patch,
                 JsonAllocator& alloc, std::string* error) {
  if (!target.IsObject()) target.SetObject();
  if (const JsonValue* directive = Member(patch, "$patch")) {
    if (directive->IsString() &&
        std::string_view(directive->GetString()) == "replace") {
      target = WithoutDirectives(patch, alloc);
      return true;
    }
  }
  if (const JsonValue* retain = Member(patch, "$retainKeys")) {
    if (!retain->IsArray()) {
      *error = "invalid patch: $retainKeys must be a list";
      return false;
    }
    std::vector<std::string> drop;
    for (const auto& m : target.GetObject()) {
      bool kept = false;
      for (const auto& k : retain->GetArray()) {
        kept = kept || (k.IsString() && k == m.name);
      }
      if (!kept) drop.emplace_back(m.name.GetString());
    }
    for (const std::string& k : drop) RemoveMember(target, k);
  }
  static constexpr std::string_view kDeleteFromList =
      "$deleteFromPrimitiveList/";
  for (const auto& m : patch.GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (key.substr(0, kDeleteFromList.size()) == kDeleteFromList) {
      JsonValue* list =
          MutableMember(target, key.substr(kDeleteFromList.size()));
      if (list == nullptr || !list->IsArray() || !m.value.IsArray()) continue;
      for (const auto& gone : m.value.GetArray()) {
        for (auto it = list->Begin(); it != list->End();) {
          it = *it == gone ? list->Erase(it) : it + 1;
        }
      }
      continue;
    }
    if (IsDirective(key)) continue;  // $patch, $retainKeys, $setElementOrder
    if (m.value.IsNull()) {
      RemoveMember(target, key);
      continue;
    }
    JsonValue* existing = MutableMember(target, key);
    if (m.value.IsObject()) {
      const JsonValue* directive = Member(m.value, "$patch");
      if (directive != nullptr && directive->IsString() &&
          std::string_view(directive->GetString()) == "delete") {
        RemoveMember(target, key);
        continue;
      }
      if (existing != nullptr && existing->IsObject()) {
        if (!MergeObject(*existing, m.value, alloc, error)) return false;
      } else {
        SetMember(target, key, WithoutDirectives(m.value, alloc), alloc);
      }
      continue;
    }
    if (m.value.IsArray() && existing != nullptr && existing->IsArray()) {
      const std::string_view merge_key = MergeKeyFor(key);
      if (!merge_key.empty()) {
        if (!MergeList(*existing, m.value, merge_key, alloc, error)) {
          return false;
        }
        // A list the patch emptied is omitted, as the API's optional
        // lists are once decoded.
        if (existing->Empty()) RemoveMember(target, key);
        continue;
      }
      if (IsSetOfScalars(key)) {
        for (const auto& v : m.value.GetArray()) {
          bool present = false;
          for (const auto& have : existing->GetArray()) {
            present = present || have == v;
          }
          if (!present) existing->PushBack(JsonValue(v, alloc), alloc);
        }
        continue;
      }
    }
    SetMember(target, key, WithoutDirectives(m.value, alloc), alloc);
  }
  return true;
}

// RFC 6901: "/a/b~1c/0" -> {"a", "b/c", "0"}.
std::vector<std::string> PointerTokens(std::string_view pointer) {
  std::vector<std::string> tokens;
  size_t pos = 1;
  while (pos <= pointer.size()) {
    size_t end = pointer.find('/', pos);
    if (end == std::string_view::npos) end = pointer.size();
    std::string token;
    for (size_t i = pos; i < end; ++i) {
      if (pointer[i] == '~' && i + 1 < end) {
        token.push_back(pointer[i + 1] == '1' ? '/' : '~');
        ++i;
      } else {
        token.push_back(pointer[i]);
      }
    }
    tokens.push_back(std::move(token));
    pos = end + 1;
  }
  return tokens;
}

bool ArrayIndex(const std::string& token, size_t size, bool allow_end,
                size_t* index) {
  if (allow_end && token == "-") {
    *index = size;
    return true;
  }
  if (token.empty() || token.size() > 9 ||
      token.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  *index = std::stoul(token);
  return *index < size || (allow_end && *index == size);
}

// The container of the last token of `pointer` in `root`.
JsonValue* Parent(JsonValue& root, const std::vector<std::string>& tokens) {
  JsonValue* v = &root;
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (v->IsObject()) {
      v = MutableMember(*v, tokens[i]);
    } else if (v->IsArray()) {
      size_t index;
      if (!ArrayIndex(tokens[i], v->Size(), false, &index)) return nullptr;
      v = &(*v)[static_cast<rapidjson::SizeType>(index)];
    } else {
      return nullptr;
    }
    if (v == nullptr) return nullptr;
  }
  return v;
}

JsonValue* Resolve(JsonValue& root, std::string_view pointer) {
  if (pointer.empty()) return &root;
  const std::vector<std::string> tokens = PointerTokens(pointer);
  JsonValue* parent = Parent(root, tokens);
  if (parent == nullptr) return nullptr;
  if (parent->IsObject()) return MutableMember(*parent, tokens.back());
  size_t index;
  if (parent->IsArray() &&
      ArrayIndex(tokens.back(), parent->Size(), false, &index)) {
    return &(*parent)[static_cast<rapidjson::SizeType>(index)];
  }
  return nullptr;
}

bool Remove(JsonValue& root, std::string_view pointer, JsonValue* removed,
            JsonAllocator& alloc) {
  const std::vector<std::string> tokens = PointerTokens(pointer);
  if (pointer.empty()) return false;
  JsonValue* parent = Parent(root, tokens);
  if (parent == nullptr) return false;
  if (parent->IsObject()) {
    JsonValue* v = MutableMember(*parent, tokens.back());
    if (v == nullptr) return false;
    if (removed != nullptr) removed->CopyFrom(*v, alloc);
    RemoveMember(*parent, tokens.back());
    return true;
  }
  size_t index;
  if (!parent->IsArray() ||
      !ArrayIndex(tokens.back(), parent->Size(), false, &index)) {
    return false;
  }
  if (removed != nullptr) {
    removed->CopyFrom((*parent)[static_cast<rapidjson::SizeType>(index)],
                      alloc);
  }
  parent->Erase(parent->Begin() + index);
  return true;
}

bool Add(JsonValue& root, std::string_view pointer, JsonValue value,
         JsonAllocator& alloc) {
  if (pointer.empty()) {
    root = std::move(value);
    return true;
  }
  const std::vector<std::string> tokens = PointerTokens(pointer);
  JsonValue* parent = Parent(root, tokens);
  if (parent == nullptr) return false;
  if (parent->IsObject()) {
    SetMember(*parent, tokens.back(), std::move(value), alloc);
    return true;
  }
  size_t index;
  if (!parent->IsArray() ||
      !ArrayIndex(tokens.back(), parent->Size(), true, &index)) {
    return false;
  }
  parent->PushBack(JsonValue(rapidjson::kNullType), alloc);
  for (size_t i = parent->Size() - 1; i > index; --i) {
    (*parent)[static_cast<rapidjson::SizeType>(i)] =
        std::move((*parent)[static_cast<rapidjson::SizeType>(i - 1)]);
  }
  (*parent)[static_cast<rapidjson::SizeType>(index)] = std::move(value);
  return true;
}

}  // namespace

bool ApplyStrategicMergePatch(JsonValue& target, const JsonValue& patch,
                              JsonAllocator& alloc, std::string* error) {
  if (!patch.IsObject()) {
    *error = "invalid JSON document";
    return false;
  }
  return MergeObject(target, patch, alloc, error);
}

bool ApplyJsonPatch(JsonValue& target, const JsonValue& patch,
                    JsonAllocator& alloc, std::string* error) {
  if (!patch.IsArray()) {
    *error = "json: cannot unmarshal " + JsonTypeName(patch) +
             " into Go value of type jsonpatch.Patch";
    return false;
  }
  for (const auto& op : patch.GetArray()) {
    const std::string name = StringAt(op, {"op"});
    const std::string path = StringAt(op, {"path"});
    const JsonValue* value = Member(op, "value");
    if (name == "add" || name == "replace") {
      if (value == nullptr) {
        *error = "missing value for " + name + " operation";
        return false;
      }
      if (name == "replace" && Resolve(target, path) == nullptr) {
        *error =
            "replace operation does not apply: doc is missing key: " + path;
        return false;
      }
      if (name == "replace" && !path.empty()) {
        *Resolve(target, path) = JsonValue(*value, alloc);
      } else if (!Add(target, path, JsonValue(*value, alloc), alloc)) {
        *error = "add operation does not apply: doc is missing path: " + path;
        return false;
      }
    } else if (name == "remove") {
      if (!Remove(target, path, nullptr, alloc)) {
        *error =
            "remove operation does not apply: doc is missing path: " + path;
        return false;
      }
    } else if (name == "test") {
      const JsonValue* have = Resolve(target, path);
      if (value == nullptr || have == nullptr || !(*have == *value)) {
        *error = "testing value " + path + " failed: test failed";
        return false;
      }
    } else if (name == "move" || name == "copy") {
      const std::string from = StringAt(op, {"from"});
      JsonValue moved;
      if (name == "move") {
        if (!Remove(target, from, &moved, alloc)) {
          *error = "move operation does not apply: doc is missing from path: " +
                   from;
          return false;
        }
      } else {
        const JsonValue* source = Resolve(target, from);
        if (source == nullptr) {
          *error = "copy operation does not apply: doc is missing from path: " +
                   from;
          return false;
        }
        moved.CopyFrom(*source, alloc);
      }
      if (!Add(target, path, std::move(moved), alloc)) {
        *error =
            name + " operation does not apply: doc is missing path: " + path;
        return false;
      }
    } else {
      *error = "Unexpected kind: " + name;
      return false;
    }
  }
  return true;
}

}  // namespace ksched::testing::apiserver
