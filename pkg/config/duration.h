// Go's time.Duration text form, as metav1.Duration carries it in JSON and
// YAML ("15s", "1m30s", "300ms", "1.5h").
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "pkg/util/result.h"

namespace ksched::config {

// time.ParseDuration: an optional sign, then one or more decimal numbers
// each with a unit (ns, us, µs, μs, ms, s, m, h); "0" alone is zero.
// Errors read as Go's do: `time: invalid duration "abc"`.
util::Result<std::chrono::nanoseconds> ParseGoDuration(std::string_view text);

// time.Duration.String(): "1h2m3.5s", "1.5ms", "0s".
std::string FormatGoDuration(std::chrono::nanoseconds duration);

}  // namespace ksched::config
