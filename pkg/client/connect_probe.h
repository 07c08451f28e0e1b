// Why a connection to the API server failed, in the words kube's clients
// use ("connection refused", "no such host", "timeout"), for error
// messages. cpprestsdk reports every failed connect as "Failed to connect
// to any resolved endpoint" with the same error code, whatever the cause;
// a second, plain TCP connect to the same address finds the real one.
#pragma once

#include <chrono>
#include <string>

namespace ksched::client {

// Connects to host:port once (at most `limit`) and says what happened:
// "connected" when it worked (the failure was elsewhere, e.g. TLS), else
// the cause, e.g. "connection refused", "no route to host", "timeout",
// "no such host".
std::string ProbeConnect(const std::string& host, const std::string& port,
                         std::chrono::milliseconds limit);

// The reason text of an OpenSSL error code as cpprestsdk passes it on from
// a failed TLS handshake ("certificate verify failed"); "" when `code` is
// not one.
std::string OpenSslReason(unsigned long code);

}  // namespace ksched::client
