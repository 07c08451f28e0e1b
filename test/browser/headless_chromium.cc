#include "test/browser/headless_chromium.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <zlib.h>

#include <array>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_set>

namespace ksched::testing {
namespace headless_chromium_detail {
namespace {

// A profile directory of its own per run: tests run side by side, and
// chromium refuses a profile another instance holds.
class ProfileDir {
 public:
  ProfileDir() {
    char path[] = "/tmp/ksched-chromium-XXXXXX";
    if (mkdtemp(path) != nullptr) path_ = path;
  }
  ~ProfileDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  ProfileDir(const ProfileDir&) = delete;
  ProfileDir& operator=(const ProfileDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// chromium with the flags every run needs: headless, no sandbox (tests
// may run as root in a container), no GPU, and a bound on its run time so
// that a wedged browser fails the test instead of hanging it.
std::string Command(const ProfileDir& profile, const std::string& flags,
                    const std::string& url) {
  return "timeout 120 " + Quote(ChromiumPath()) +
         " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage"
         " --no-first-run --hide-scrollbars --user-data-dir=" +
         Quote(profile.path()) + " " + flags + " " + Quote(url) +
         " 2>/dev/null";
}

std::string DecodeEntities(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    static const std::pair<const char*, const char*> kEntities[] = {
        {"&amp;", "&"}, {"&quot;", "\""}, {"&lt;", "<"},
        {"&gt;", ">"},  {"&#39;", "'"},   {"&nbsp;", "\xC2\xA0"}};
    bool matched = false;
    for (const auto& [entity, text] : kEntities) {
      if (s.compare(i, std::strlen(entity), entity) == 0) {
        out += text;
        i += std::strlen(entity) - 1;
        matched = true;
        break;
      }
    }
    if (!matched) out += '&';
  }
  return out;
}

uint32_t BigEndian(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) |
         (uint32_t{p[2]} << 8) | p[3];
}

int Paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

}  // namespace
}  // namespace headless_chromium_detail
using namespace headless_chromium_detail;

std::string ChromiumPath() {
  const char* env = std::getenv("KSCHED_CHROMIUM");
  return env != nullptr && *env != '\0' ? env : "/usr/bin/chromium";
}

DumpedDom DumpDom(const std::string& url) {
  ProfileDir profile;
  DumpedDom out;
  const auto start = std::chrono::steady_clock::now();
  FILE* pipe = popen(Command(profile, "--dump-dom", url).c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 65536> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) {
    out.dom.append(buf.data(), n);
  }
  const int status = pclose(pipe);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  out.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return out;
}

bool Screenshot(const std::string& url, const std::string& png, int width,
                int height) {
  ProfileDir profile;
  std::filesystem::remove(png);
  const std::string flags = "--screenshot=" + Quote(png) +
                            " --window-size=" + std::to_string(width) + "," +
                            std::to_string(height);
  const int status = std::system(Command(profile, flags, url).c_str());
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
         std::filesystem::exists(png);
}

std::vector<Tag> ParseTags(const std::string& dom) {
  // A scanner rather than a regular expression: the DOM of a large report
  // is megabytes, and serialized HTML is regular enough (attribute values
  // double-quoted, "<" escaped in text and attributes).
  auto is_space = [](char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r';
  };
  std::vector<Tag> tags;
  size_t i = 0;
  while ((i = dom.find('<', i)) != std::string::npos) {
    ++i;
    if (i >= dom.size() || !std::isalpha(static_cast<unsigned char>(dom[i]))) {
      continue;  // an end tag, a comment, a doctype
    }
    Tag tag;
    while (i < dom.size() && !is_space(dom[i]) && dom[i] != '>' &&
           dom[i] != '/') {
      tag.name += dom[i++];
    }
    while (i < dom.size() && dom[i] != '>') {
      if (is_space(dom[i]) || dom[i] == '/') {
        ++i;
        continue;
      }
      std::string name, value;
      while (i < dom.size() && !is_space(dom[i]) && dom[i] != '=' &&
             dom[i] != '>') {
        name += dom[i++];
      }
      if (i < dom.size() && dom[i] == '=' && i + 1 < dom.size() &&
          dom[i + 1] == '"') {
        const size_t close = dom.find('"', i + 2);
        if (close == std::string::npos) return tags;
        value = DecodeEntities(dom.substr(i + 2, close - i - 2));
        i = close + 1;
      }
      tag.attrs[name] = std::move(value);
    }
    if (i >= dom.size()) break;
    ++i;  // '>'
    const size_t next = dom.find('<', i);
    tag.text = DecodeEntities(dom.substr(
        i, next == std::string::npos ? std::string::npos : next - i));
    // The content of a script is not markup.
    if (tag.name == "script") {
      const size_t close = dom.find("</script>", i);
      i = close == std::string::npos ? dom.size() : close;
    }
    tags.push_back(std::move(tag));
  }
  return tags;
}

std::vector<const Tag*> WithAttr(const std::vector<Tag>& tags,
                                 const std::string& attr,
                                 const std::string* value) {
  std::vector<const Tag*> out;
  for (const Tag& t : tags) {
    auto it = t.attrs.find(attr);
    if (it != t.attrs.end() && (value == nullptr || it->second == *value)) {
      out.push_back(&t);
    }
  }
  return out;
}

PngStats ReadPngStats(const std::string& path) {
  PngStats stats;
  std::ifstream in(path, std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  if (data.size() < 8 || std::memcmp(bytes, "\x89PNG\r\n\x1a\n", 8) != 0) {
    stats.error = "not a PNG file: " + path;
    return stats;
  }
  int depth = 0, colour_type = 0;
  std::string compressed;
  for (size_t pos = 8; pos + 12 <= data.size();) {
    const uint32_t length = BigEndian(bytes + pos);
    const std::string type = data.substr(pos + 4, 4);
    if (pos + 12 + length > data.size()) break;
    const unsigned char* body = bytes + pos + 8;
    if (type == "IHDR") {
      stats.width = static_cast<int>(BigEndian(body));
      stats.height = static_cast<int>(BigEndian(body + 4));
      depth = body[8];
      colour_type = body[9];
    } else if (type == "IDAT") {
      compressed.append(reinterpret_cast<const char*>(body), length);
    }
    pos += 12 + length;
  }
  const int channels = colour_type == 6 ? 4 : colour_type == 2 ? 3 : 0;
  if (depth != 8 || channels == 0 || stats.width <= 0 || stats.height <= 0) {
    stats.error = "unsupported PNG (depth " + std::to_string(depth) +
                  ", colour type " + std::to_string(colour_type) + ")";
    return stats;
  }
  const size_t stride = static_cast<size_t>(stats.width) * channels;
  std::vector<unsigned char> raw((stride + 1) * stats.height);
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size,
                 reinterpret_cast<const Bytef*>(compressed.data()),
                 compressed.size()) != Z_OK ||
      raw_size != raw.size()) {
    stats.error = "cannot inflate the image data";
    return stats;
  }
  // Undo the per-row filters (PNG specification, section 9).
  std::vector<unsigned char> pixels(stride * stats.height);
  for (int y = 0; y < stats.height; ++y) {
    const unsigned char filter = raw[y * (stride + 1)];
    const unsigned char* in_row = &raw[y * (stride + 1) + 1];
    unsigned char* row = &pixels[y * stride];
    const unsigned char* up = y > 0 ? &pixels[(y - 1) * stride] : nullptr;
    for (size_t x = 0; x < stride; ++x) {
      const int a = x >= static_cast<size_t>(channels) ? row[x - channels] : 0;
      const int b = up ? up[x] : 0;
      const int c =
          up && x >= static_cast<size_t>(channels) ? up[x - channels] : 0;
      int predicted = 0;
      switch (filter) {
        case 1:
          predicted = a;
          break;
        case 2:
          predicted = b;
          break;
        case 3:
          predicted = (a + b) / 2;
          break;
        case 4:
          predicted = Paeth(a, b, c);
          break;
      }
      row[x] = static_cast<unsigned char>(in_row[x] + predicted);
    }
  }
  std::unordered_set<uint32_t> colours;
  size_t non_white = 0;
  for (size_t i = 0; i < pixels.size(); i += channels) {
    const uint32_t rgb = (uint32_t{pixels[i]} << 16) |
                         (uint32_t{pixels[i + 1]} << 8) | pixels[i + 2];
    colours.insert(rgb);
    non_white += pixels[i] < 240 || pixels[i + 1] < 240 || pixels[i + 2] < 240;
  }
  stats.colours = colours.size();
  stats.non_white =
      static_cast<double>(non_white) /
      (static_cast<double>(stats.width) * static_cast<double>(stats.height));
  stats.ok = true;
  return stats;
}

}  // namespace ksched::testing
