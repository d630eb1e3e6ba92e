// Perform(): one HTTP/1.1 exchange through libcurl (httpclient/libcurl.h), over TCP, TLS or a unix
// socket, for agentbox's clients of other daemons' HTTP APIs (the Docker Engine API; a registry).
// libcurl does the framing (Content-Length, chunked both ways, 1xx), TLS (OpenSSL, the server
// always verified), timeouts and the unix-socket transport; this file only maps agentbox's
// request onto it and its failures onto Status.
//
// A fresh connection per call: callers share one client between threads (serve), and a libcurl
// handle is not thread-safe; every call we make costs far more on the server than a connect.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace agentbox::httpclient {

// Where requests go.
struct HttpTarget {
  std::string unix_socket;  // set: every request goes over this socket (the URL only names it)
  std::string base_url;     // "http://docker", "http://127.0.0.1:2375", "https://host:2376"
  std::string ca_file;      // TLS: the CA bundle the server's certificate must chain to
  std::string cert_file;    // TLS: the client's certificate and key, both or neither
  std::string key_file;
  std::string peer;              // for messages: "the daemon at tcp://127.0.0.1:2376"
  std::string unreachable_hint;  // appended to "cannot reach PEER (...)", e.g. "; is it running?"
};

struct HttpRequest {
  std::string method = "GET";
  std::string path;                  // appended to base_url, starting with "/"
  std::vector<std::string> headers;  // "Name: value"
  std::string_view body;             // sent with a Content-Length when has_body
  bool has_body = false;
  // A body of unknown length, sent chunked: fills `buf`, returns the bytes it put there, 0 at
  // the end; an error aborts the exchange with that error.
  std::function<StatusOr<size_t>(char* buf, size_t size)> body_reader;
  // Each piece of the response body as it arrives (then HttpResponse::body stays empty); an
  // error aborts the exchange with that error.
  std::function<Status(std::string_view piece)> on_body;
  int timeout_ms = 60000;               // the whole exchange; 0: no limit
  int connect_timeout_ms = 10000;       // reaching the server, TLS handshake included
  int stall_timeout_ms = 0;             // abort when nothing moved for this long; 0: off
  size_t max_body = size_t{256} << 20;  // a longer collected body is kResourceExhausted
};

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // the final response's, names lower-cased
  std::string body;
};

// kUnavailable when the server cannot be reached, TLS fails, or a timeout ends the exchange
// (each with one line naming target.peer); the callbacks' own errors as they are. Any HTTP
// status is a response, not an error.
StatusOr<HttpResponse> Perform(const HttpTarget& target, const HttpRequest& request);

// One raw header line as libcurl hands it over: a status line starts a new response (after a
// 1xx or a redirect), "Name: value" lands lower-cased in `headers`. Exposed for the unit tests.
void TakeHeaderLine(std::string_view line, HttpResponse& response);

}  // namespace agentbox::httpclient
