// The one way project code includes RapidJSON.
//
// RapidJSON's default assertion aborts, and with NDEBUG it is compiled out,
// leaving undefined behaviour on misuse (e.g. GetString() on a number). Code
// here checks types before reading, and this makes any slip an exception that
// the caller's error handling turns into a clear message instead of a crash.
#pragma once

#include <stdexcept>

#ifndef RAPIDJSON_HAS_STDSTRING
#define RAPIDJSON_HAS_STDSTRING 1
#endif
#ifndef RAPIDJSON_ASSERT
#define RAPIDJSON_ASSERT(x) \
  ((x) ? static_cast<void>(0) : throw std::logic_error("rapidjson: " #x))
#endif
// RAPIDJSON_SSE2/SSE42 are deliberately off: their string scan reads up to
// 15 bytes past the end of the input, which AddressSanitizer rightly reports
// and which arbitrary network buffers do not allow for.

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
