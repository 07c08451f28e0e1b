// Sizing cpprestsdk's shared thread pool, which runs every asio completion
// of the HTTP client (and listener).
//
// cpprestsdk starts 40 threads by default. A request's completions hop
// between them, so on a machine with few cores most of the cost of a small
// request is waking threads: against the test API server on 2 cores, 4
// threads bound 1,600-2,000 pods/s where 40 bound 1,250-1,450, with about
// a quarter less CPU in ksched. Handlers must not block on other requests,
// or a small pool can run out of threads.
#pragma once

namespace ksched::client {

// Twice the hardware threads, at least 4.
int DefaultCpprestThreads();

// Must run before the first request or listener. False if threads < 1 or
// the pool was already started (cpprestsdk sizes it only once).
bool ConfigureCpprestThreads(int threads);

}  // namespace ksched::client
