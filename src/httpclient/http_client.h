// Perform(): one HTTP/1.1 exchange through libcurl (httpclient/libcurl.h), over TCP, TLS or a unix
// socket, for agentbox's clients of other daemons' HTTP APIs (the Docker Engine API; an OCI
// registry; a Kubernetes API server). libcurl does the framing (Content-Length, chunked both
// ways, 1xx), TLS (OpenSSL, the server verified unless a target is marked insecure_skip_verify;
// CA and client certificate as files or PEM text), redirects, timeouts and the unix-socket
// transport; this file only maps agentbox's request onto it and its failures onto Status.
//
// Redirects are followed only when a request asks (a registry's blob redirects to a CDN), to
// https only unless it allows http too, and an Authorization (or Cookie) header of the request
// is never sent to another host, port or scheme than the first (libcurl's rule since 7.83,
// CVE-2018-1000007 and CVE-2022-27776; CURLOPT_UNRESTRICTED_AUTH stays off).
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
  // The same as PEM text, for credentials that come inline (a kubeconfig's *-data fields); a
  // file and its PEM are never both set.
  std::string ca_pem;
  std::string cert_pem;
  std::string key_pem;
  // TLS without verifying the server: only for a kubeconfig that says insecure-skip-tls-verify
  // and a caller that was told to accept that (kubernetes/kubeconfig.h). Never a default.
  bool insecure_skip_verify = false;
  std::string peer;              // for messages: "the daemon at tcp://127.0.0.1:2376"
  std::string unreachable_hint;  // appended to "cannot reach PEER (...)", e.g. "; is it running?"
  // Honour http_proxy, https_proxy and no_proxy of the environment (a registry on the internet
  // behind the user's proxy). Off: a daemon named exactly is reached directly.
  bool environment_proxy = false;
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
  // Each piece of a 2xx response's body as it arrives (then HttpResponse::body stays empty); an
  // error aborts the exchange with that error. The body of any other status (an error page, a
  // 401 before a login) is collected in HttpResponse::body as without on_body.
  std::function<Status(std::string_view piece)> on_body;
  // A 3xx with a Location is followed at most this many times (0: it is the response), to
  // https only unless redirect_to_http.
  int max_redirects = 0;
  bool redirect_to_http = false;
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

// Percent-encodes a URL query value (RFC 3986 unreserved characters stay as they are).
std::string UrlEncode(std::string_view value);

// One raw header line as libcurl hands it over: a status line starts a new response (after a
// 1xx or a redirect), "Name: value" lands lower-cased in `headers`. Exposed for the unit tests.
void TakeHeaderLine(std::string_view line, HttpResponse& response);

}  // namespace agentbox::httpclient
