// Helpers for tests that run an HTTP(S) server on loopback.
#pragma once

#include "pkg/util/clock.h"

namespace ksched::client::testing {

// A 127.0.0.1 port nothing listens on right now.
int FreePort();

// A real clock that outlives every transport a test makes (transports keep
// a reference to theirs).
const util::Clock& RealTestClock();

}  // namespace ksched::client::testing
