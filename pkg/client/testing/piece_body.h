// PieceBody: a response body that arrives in the given pieces, then ends
// (or fails, as a dropped connection does).
#pragma once

#include <deque>
#include <string>
#include <utility>

#include "pkg/client/transport.h"

namespace ksched::client::testing {

class PieceBody final : public BodyReader {
 public:
  explicit PieceBody(std::deque<std::string> pieces,
                     std::string failure_at_end = "")
      : pieces_(std::move(pieces)), failure_(std::move(failure_at_end)) {}

  util::Result<bool> ReadSome(std::string& out) override {
    while (!pieces_.empty() && pieces_.front().empty()) pieces_.pop_front();
    if (pieces_.empty()) {
      if (!failure_.empty()) return util::Error(failure_);
      return false;
    }
    out += pieces_.front();
    pieces_.pop_front();
    return true;
  }

 private:
  std::deque<std::string> pieces_;
  std::string failure_;
};

}  // namespace ksched::client::testing
