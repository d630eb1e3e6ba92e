#include "httpclient/http_client.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "base/ascii.h"
#include "httpclient/libcurl.h"

namespace agentbox::httpclient {
namespace {

// What the callbacks share with Perform: the request, the response being filled, and the first
// error a callback met (libcurl only learns "abort").
struct Exchange {
  const HttpRequest* request;
  HttpResponse response;
  Status callback_error;
};

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  TakeHeaderLine(std::string_view(data, size * count), static_cast<Exchange*>(user)->response);
  return size * count;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  std::string_view piece(data, size * count);
  const int status = ex->response.status;
  if (ex->request->on_body && status >= 200 && status <= 299) {
    ex->callback_error = ex->request->on_body(piece);
    return ex->callback_error.ok() ? piece.size() : 0;
  }
  if (ex->response.body.size() + piece.size() > ex->request->max_body) {
    ex->callback_error = ResourceExhausted("the response is larger than " +
                                           std::to_string(ex->request->max_body) + " bytes");
    return 0;
  }
  ex->response.body.append(piece);
  return piece.size();
}

size_t OnRead(char* buf, size_t size, size_t count, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  StatusOr<size_t> n = ex->request->body_reader(buf, size * count);
  if (!n.ok()) {
    ex->callback_error = n.status();
    return CURL_READFUNC_ABORT;
  }
  return *n;
}

struct HandleCloser {
  const CurlApi* api;
  void operator()(CURL* h) const { api->easy_cleanup(h); }
};
struct ListCloser {
  const CurlApi* api;
  void operator()(curl_slist* l) const { api->slist_free_all(l); }
};

// The method and body: libcurl's POST machinery sends a body, CUSTOMREQUEST names the verb.
void SetMethodAndBody(const CurlApi& api, CURL* h, const HttpRequest& req, Exchange& ex) {
  if (req.body_reader) {
    api.easy_setopt(h, CURLOPT_POST, 1L);
    api.easy_setopt(h, CURLOPT_READFUNCTION, &OnRead);
    api.easy_setopt(h, CURLOPT_READDATA, &ex);
  } else if (req.has_body) {
    api.easy_setopt(h, CURLOPT_POST, 1L);
    api.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
    api.easy_setopt(h, CURLOPT_POSTFIELDS, req.body.data());
  } else if (req.method == "POST") {
    api.easy_setopt(h, CURLOPT_POST, 1L);
    api.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t{0});
    api.easy_setopt(h, CURLOPT_POSTFIELDS, "");
  }
  if (req.method != "GET" && req.method != "POST") {
    api.easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  }
}

// PEM text handed to libcurl as a blob (copied by libcurl), never through a temporary file.
void SetPemBlob(const CurlApi& api, CURL* h, CURLoption option, const std::string& pem) {
  if (pem.empty()) return;
  struct curl_blob blob = {const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  api.easy_setopt(h, option, &blob);
}

void SetTransport(const CurlApi& api, CURL* h, const HttpTarget& target) {
  api.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  // A daemon named exactly is reached directly, never through http_proxy and friends.
  if (!target.environment_proxy) api.easy_setopt(h, CURLOPT_PROXY, "");
  if (!target.unix_socket.empty()) {
    api.easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, target.unix_socket.c_str());
  }
  // TLS: the server is verified (peer and name) unless the target was explicitly marked.
  const long verify = target.insecure_skip_verify ? 0L : 1L;
  api.easy_setopt(h, CURLOPT_SSL_VERIFYPEER, verify);
  api.easy_setopt(h, CURLOPT_SSL_VERIFYHOST, verify * 2);
  api.easy_setopt(h, CURLOPT_SSLVERSION, static_cast<long>(CURL_SSLVERSION_TLSv1_2));
  if (!target.ca_file.empty()) api.easy_setopt(h, CURLOPT_CAINFO, target.ca_file.c_str());
  if (!target.cert_file.empty()) api.easy_setopt(h, CURLOPT_SSLCERT, target.cert_file.c_str());
  if (!target.key_file.empty()) api.easy_setopt(h, CURLOPT_SSLKEY, target.key_file.c_str());
  SetPemBlob(api, h, CURLOPT_CAINFO_BLOB, target.ca_pem);
  SetPemBlob(api, h, CURLOPT_SSLCERT_BLOB, target.cert_pem);
  SetPemBlob(api, h, CURLOPT_SSLKEY_BLOB, target.key_pem);
}

void SetRedirects(const CurlApi& api, CURL* h, const HttpRequest& req) {
  if (req.max_redirects <= 0) return;
  api.easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  api.easy_setopt(h, CURLOPT_MAXREDIRS, static_cast<long>(req.max_redirects));
  api.easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, req.redirect_to_http ? "http,https" : "https");
  // Credentials stay with the first host: libcurl drops Authorization and Cookie headers on a
  // redirect to another host, port or scheme unless this is set (it is the default; said here
  // so that nobody turns it on).
  api.easy_setopt(h, CURLOPT_UNRESTRICTED_AUTH, 0L);
}

void SetLimits(const CurlApi& api, CURL* h, const HttpRequest& req) {
  // No signals: serve and the MCP server call from many threads (the resolver is threaded).
  api.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  api.easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(req.timeout_ms));
  api.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(req.connect_timeout_ms));
  if (req.stall_timeout_ms > 0) {
    api.easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    api.easy_setopt(h, CURLOPT_LOW_SPEED_TIME,
                    static_cast<long>((req.stall_timeout_ms + 999) / 1000));
  }
}

Status FailureStatus(CURLcode rc, const char* detail, const HttpTarget& target,
                     const HttpRequest& req, std::chrono::steady_clock::duration took) {
  std::string why = detail[0] != '\0' ? detail : "";
  switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
      return Unavailable("cannot reach " + target.peer + " (" + why + ")" +
                         target.unreachable_hint);
    case CURLE_OPERATION_TIMEDOUT: {
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(took).count();
      if (req.stall_timeout_ms > 0 && (req.timeout_ms == 0 || ms < req.timeout_ms)) {
        return Unavailable(target.peer + " sent nothing for " +
                           std::to_string(req.stall_timeout_ms / 1000) + " s");
      }
      return Unavailable(target.peer + " did not answer in time (" + why + ")");
    }
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CIPHER:
      return Unavailable("TLS with " + target.peer + " failed: " + why);
    case CURLE_UNSUPPORTED_PROTOCOL:  // a redirect to a scheme the request does not allow
    case CURLE_TOO_MANY_REDIRECTS:
      return Unavailable(target.peer + " redirected where agentbox does not follow: " + why);
    default:
      return Unavailable(target.peer + ": " + why);
  }
}

}  // namespace

std::string UrlEncode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

void TakeHeaderLine(std::string_view line, HttpResponse& response) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  line = TrimBlanks(line);
  if (line.rfind("HTTP/", 0) == 0) {  // a new status line: what came before was interim
    response.headers.clear();
    size_t space = line.find(' ');
    response.status = space == std::string_view::npos
                          ? 0
                          : std::atoi(std::string(line.substr(space + 1, 3)).c_str());
    return;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return;
  response.headers[AsciiLower(TrimBlanks(line.substr(0, colon)))] =
      std::string(TrimBlanks(line.substr(colon + 1)));
}

StatusOr<HttpResponse> Perform(const HttpTarget& target, const HttpRequest& request) {
  AB_ASSIGN_OR_RETURN(const CurlApi* api, Libcurl());
  std::unique_ptr<CURL, HandleCloser> h(api->easy_init(), HandleCloser{api});
  if (!h) return Unavailable("libcurl: cannot make a handle");
  std::unique_ptr<curl_slist, ListCloser> headers(nullptr, ListCloser{api});
  auto add_header = [&](const std::string& line) {
    headers.reset(api->slist_append(headers.release(), line.c_str()));
  };
  for (const std::string& line : request.headers) add_header(line);
  add_header("Expect:");  // no 100-continue round trip before a body
  if (request.body_reader) add_header("Transfer-Encoding: chunked");
  if (!headers) return Unavailable("libcurl: out of memory");

  Exchange ex{&request, {}, OkStatus()};
  std::string url = target.base_url + request.path;
  char error[CURL_ERROR_SIZE] = {};
  api->easy_setopt(h.get(), CURLOPT_URL, url.c_str());
  api->easy_setopt(h.get(), CURLOPT_USERAGENT, "agentbox");
  api->easy_setopt(h.get(), CURLOPT_HTTPHEADER, headers.get());
  api->easy_setopt(h.get(), CURLOPT_ERRORBUFFER, error);
  api->easy_setopt(h.get(), CURLOPT_HEADERFUNCTION, &OnHeader);
  api->easy_setopt(h.get(), CURLOPT_HEADERDATA, &ex);
  api->easy_setopt(h.get(), CURLOPT_WRITEFUNCTION, &OnBody);
  api->easy_setopt(h.get(), CURLOPT_WRITEDATA, &ex);
  SetMethodAndBody(*api, h.get(), request, ex);
  SetTransport(*api, h.get(), target);
  SetRedirects(*api, h.get(), request);
  SetLimits(*api, h.get(), request);

  auto start = std::chrono::steady_clock::now();
  CURLcode rc = api->easy_perform(h.get());
  if (!ex.callback_error.ok()) return ex.callback_error;
  if (rc != CURLE_OK) {
    if (error[0] == '\0') std::snprintf(error, sizeof(error), "%s", api->easy_strerror(rc));
    return FailureStatus(rc, error, target, request, std::chrono::steady_clock::now() - start);
  }
  return std::move(ex.response);
}

}  // namespace agentbox::httpclient
