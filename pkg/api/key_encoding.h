// Building unambiguous keys out of strings (memo keys, for instance).
#pragma once

#include <string>
#include <string_view>

namespace ksched::api {

// Appends `field` to `key` prefixed with its length ("3:abc"), so that no
// choice of field contents can make two different sequences of fields
// encode alike.
inline void AppendKeyField(std::string* key, std::string_view field) {
  key->append(std::to_string(field.size()));
  key->push_back(':');
  key->append(field);
}

}  // namespace ksched::api
