// Sizing cpprestsdk's shared thread pool, which runs every asio completion
// of the HTTP client and listener, and every pplx continuation.
//
// One thread. cpprestsdk's listener lets an answer out before the request's
// body has all arrived once the body is ended early (ksched does that to
// refuse a body over its limit), then closes the socket while its own
// reading of the body goes on: with several pool threads, a read can start
// on a socket another thread is closing, and asio crashes (a SEGV in
// epoll_reactor::start_op, seen under ExtenderHostileTest). On one thread
// the two never overlap. It is also the cheapest: cpprestsdk starts 40
// threads by default, and a request's completions hop between them, so on
// a machine with few cores most of the cost of a small request is waking
// threads. Against the test API server on 2 cores (apiserver_load_bench,
// 1,000 nodes, 5,000 pods): 40 threads bound 1,250-1,450 pods/s, 4 threads
// 1,560-1,890 with 3.8-4.8 s of ksched CPU, 1 thread 2,010-2,110 with
// 3.2-3.5 s. Handlers must not block on other requests: with one thread
// that would deadlock.
#pragma once

namespace ksched::client {

// One (see above).
int DefaultCpprestThreads();

// Must run before the first request or listener. False if threads < 1 or
// the pool was already started (cpprestsdk sizes it only once).
bool ConfigureCpprestThreads(int threads);

}  // namespace ksched::client
