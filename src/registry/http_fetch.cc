#include "registry/http_fetch.h"

#include <curl/curl.h>
#include <unistd.h>

#include <cctype>
#include <memory>

namespace agentbox::registry {
namespace {

struct Transfer {
  CURL* curl;
  const FetchRequest* req;
  FetchResponse* resp;
  bool too_big = false;
  int write_errno = 0;
};

size_t OnHeader(char* data, size_t size, size_t count, void* arg) {
  auto* t = static_cast<Transfer*>(arg);
  std::string line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) t->resp->headers.clear();  // a redirect's next response
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front())))
      value.erase(0, 1);
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back())))
      value.pop_back();
    t->resp->headers[name] = value;
  }
  return size * count;
}

size_t OnBody(char* data, size_t size, size_t count, void* arg) {
  auto* t = static_cast<Transfer*>(arg);
  size_t n = size * count;
  t->resp->bytes += n;
  if (t->req->max_bytes != 0 && t->resp->bytes > t->req->max_bytes) {
    t->too_big = true;
    return 0;  // aborts the transfer
  }
  // Only a 2xx body is the blob; an error page (a 401 before the token, a 404) is kept apart.
  long status = 0;
  curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
  if (t->req->out_fd < 0 || status < 200 || status > 299) {
    if (t->resp->body.size() < (1u << 16)) t->resp->body.append(data, n);
    return n;
  }
  if (t->req->hash != nullptr) t->req->hash->Update(data, n);
  for (size_t done = 0; done < n;) {
    ssize_t w = ::write(t->req->out_fd, data + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      t->write_errno = errno;
      return 0;
    }
    done += static_cast<size_t>(w);
  }
  return n;
}

std::string HostOf(const std::string& url) {
  size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  return url.substr(start, url.find('/', start) - start);
}

}  // namespace

void InitHttp() { curl_global_init(CURL_GLOBAL_DEFAULT); }

StatusOr<FetchResponse> HttpGet(const FetchRequest& req, const FetchOptions& opt) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Internal("libcurl: out of memory");
  FetchResponse resp;
  Transfer t{curl.get(), &req, &resp};
  struct curl_slist* headers = nullptr;
  for (const std::string& h : req.headers) headers = curl_slist_append(headers, h.c_str());
  std::unique_ptr<struct curl_slist, decltype(&curl_slist_free_all)> header_list(
      headers, curl_slist_free_all);
  CURL* c = curl.get();
  char error[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(c, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR,
                   opt.allow_http_redirects ? "http,https" : "https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, static_cast<long>(opt.connect_seconds));
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, static_cast<long>(opt.stall_seconds));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "agentbox");
  CURLcode rc = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp.status);
  if (t.too_big) {
    return ResourceExhausted(HostOf(req.url) + " sent more than the " +
                             std::to_string(req.max_bytes) + " bytes expected");
  }
  if (t.write_errno != 0) return ErrnoStatus("write a downloaded blob", t.write_errno);
  if (rc != CURLE_OK) {
    std::string why = error[0] != '\0' ? error : curl_easy_strerror(rc);
    if (rc == CURLE_OPERATION_TIMEDOUT) why = "no answer in time (" + why + ")";
    return Unavailable("registry " + HostOf(req.url) + ": " + why);
  }
  return resp;
}

}  // namespace agentbox::registry
