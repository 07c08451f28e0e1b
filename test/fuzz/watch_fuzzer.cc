// A watch stream as the API server writes it (newline-delimited JSON
// events), cut into chunks at the places the input chooses, through the
// framer and the event decoders the informers use. However the stream is
// cut, the framer must produce the same events as for the whole stream.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/client/watch_decoder.h"
#include "test/fuzz/fuzz_check.h"

namespace {

using namespace ksched;

// Frames `stream` fed in `chunks`; the lines produced, and whether the
// framer refused the stream.
struct Framed {
  std::vector<std::string> lines;
  bool failed = false;
};

Framed Frame(const std::vector<std::string_view>& chunks) {
  client::WatchFramer framer(/*max_event_bytes=*/1 << 16);
  Framed out;
  for (std::string_view chunk : chunks) {
    util::Status status = framer.Feed(chunk, [&](std::string_view line) {
      out.lines.emplace_back(line);
      return util::Status{};
    });
    if (!status.ok()) {
      out.failed = true;
      break;
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider provider(data, size);
  std::vector<size_t> cuts;
  const size_t cut_count = provider.ConsumeIntegralInRange<size_t>(0, 16);
  for (size_t i = 0; i < cut_count; ++i) {
    cuts.push_back(provider.ConsumeIntegral<uint16_t>());
  }
  const std::string stream = provider.ConsumeRemainingBytesAsString();

  std::vector<std::string_view> chunks;
  std::string_view rest = stream;
  for (size_t cut : cuts) {
    const size_t n = std::min(cut % 512, rest.size());
    chunks.push_back(rest.substr(0, n));
    rest.remove_prefix(n);
  }
  chunks.push_back(rest);

  const Framed whole = Frame({stream});
  const Framed cut = Frame(chunks);
  KSCHED_FUZZ_CHECK(whole.failed == cut.failed,
                    "the framer refused a stream only when it was cut");
  KSCHED_FUZZ_CHECK(whole.lines == cut.lines,
                    "the framer framed a cut stream differently");

  for (const std::string& line : whole.lines) {
    auto pod_event = client::DecodeWatchEvent<api::Pod>(line);
    auto node_event = client::DecodeWatchEvent<api::Node>(line);
    KSCHED_FUZZ_CHECK(pod_event.ok() || !pod_event.error().message().empty(),
                      "a refused event has no error message");
    (void)node_event;
  }
  return 0;
}
