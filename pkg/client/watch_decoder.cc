#include "pkg/client/watch_decoder.h"

namespace ksched::client {

util::Status WatchFramer::Feed(
    std::string_view chunk,
    const std::function<util::Status(std::string_view)>& on_event) {
  while (!chunk.empty()) {
    const size_t newline = chunk.find('\n');
    const std::string_view piece = chunk.substr(0, newline);
    if (partial_.size() + piece.size() > max_event_bytes_) {
      partial_.clear();
      return util::Error("watch event longer than " +
                         std::to_string(max_event_bytes_) + " bytes");
    }
    if (newline == std::string_view::npos) {
      partial_.append(piece);
      return {};
    }
    chunk.remove_prefix(newline + 1);
    std::string_view line = piece;
    if (!partial_.empty()) {
      partial_.append(piece);
      line = partial_;
    }
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
      util::Status status = on_event(line);
      if (!status.ok()) {
        partial_.clear();
        return status;
      }
    }
    partial_.clear();
  }
  return {};
}

util::Result<RawWatchEvent> ParseWatchEvent(std::string_view line) {
  RawWatchEvent event;
  // Iterative: nesting as deep as the line is long must not recurse.
  event.document.Parse<rapidjson::kParseIterativeFlag>(line.data(),
                                                       line.size());
  if (event.document.HasParseError()) {
    return util::Error("watch event is not JSON: " +
                       std::string(rapidjson::GetParseError_En(
                           event.document.GetParseError())) +
                       " at offset " +
                       std::to_string(event.document.GetErrorOffset()));
  }
  if (!event.document.IsObject()) {
    return util::Error("watch event is not a JSON object");
  }
  auto type = event.document.FindMember("type");
  if (type == event.document.MemberEnd() || !type->value.IsString()) {
    return util::Error("watch event has no \"type\" string");
  }
  const std::string_view name(type->value.GetString(),
                              type->value.GetStringLength());
  if (name == "ADDED") {
    event.type = WatchEventType::kAdded;
  } else if (name == "MODIFIED") {
    event.type = WatchEventType::kModified;
  } else if (name == "DELETED") {
    event.type = WatchEventType::kDeleted;
  } else if (name == "BOOKMARK") {
    event.type = WatchEventType::kBookmark;
  } else if (name == "ERROR") {
    event.type = WatchEventType::kError;
  } else {
    return util::Error("watch event of unknown type \"" + std::string(name) +
                       "\"");
  }
  auto object = event.document.FindMember("object");
  if (object == event.document.MemberEnd() || !object->value.IsObject()) {
    return util::Error("watch event has no \"object\"");
  }
  event.object = &object->value;
  return event;
}

std::string ResourceVersionOf(const rapidjson::Value& object) {
  auto metadata = object.FindMember("metadata");
  if (metadata == object.MemberEnd() || !metadata->value.IsObject()) return "";
  auto rv = metadata->value.FindMember("resourceVersion");
  if (rv == metadata->value.MemberEnd() || !rv->value.IsString()) return "";
  return std::string(rv->value.GetString(), rv->value.GetStringLength());
}

}  // namespace ksched::client
