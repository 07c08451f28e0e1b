// Debian's chromium in headless mode, for the HTML report's tests and
// benchmark: the DOM after the page's scripts ran, and screenshots.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ksched::testing {

// /usr/bin/chromium, or $KSCHED_CHROMIUM.
std::string ChromiumPath();

struct DumpedDom {
  int exit_code = -1;
  std::string dom;     // serialized after the scripts ran
  double seconds = 0;  // wall time of the whole chromium run
};

// Loads `url` (file://... with an optional #fragment) and returns the DOM.
DumpedDom DumpDom(const std::string& url);

// Saves a screenshot of the page's first `width` x `height` pixels to
// `png`; true when chromium says it did.
bool Screenshot(const std::string& url, const std::string& png, int width,
                int height);

// One start tag of a serialized DOM: its name, attributes (entities
// decoded) and the text right after it, up to the next tag.
struct Tag {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::string text;

  bool Has(const std::string& attr) const { return attrs.count(attr) > 0; }
  std::string Attr(const std::string& attr) const {
    auto it = attrs.find(attr);
    return it == attrs.end() ? "" : it->second;
  }
};
std::vector<Tag> ParseTags(const std::string& dom);

// The tags carrying `attr` (with `value`, when given), in document order.
std::vector<const Tag*> WithAttr(const std::vector<Tag>& tags,
                                 const std::string& attr,
                                 const std::string* value = nullptr);

// What a PNG shows, to tell a drawn page from a blank one.
struct PngStats {
  bool ok = false;
  std::string error;
  int width = 0;
  int height = 0;
  size_t colours = 0;    // distinct RGB colours
  double non_white = 0;  // fraction of pixels not (near) white
};
PngStats ReadPngStats(const std::string& path);

}  // namespace ksched::testing
