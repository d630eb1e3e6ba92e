#include "kubernetes/api_client.h"

#include "kubernetes/api_status.h"

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;

std::string SelectorQuery(const std::string& selector) {
  return selector.empty() ? "" : "labelSelector=" + httpclient::UrlEncode(selector);
}

StatusOr<json> ParseObject(const std::string& body, const std::string& what) {
  auto j = json::parse(body, nullptr, false);
  if (!j.is_object()) return Unavailable("kubernetes API: " + what + ": the answer is not JSON");
  return j;
}

// Splits a watch stream into lines (one JSON event each) as its pieces arrive.
class EventLines {
 public:
  explicit EventLines(std::function<Status(std::string_view)> on_line)
      : on_line_(std::move(on_line)) {}
  Status Take(std::string_view piece) {
    buffer_.append(piece);
    size_t start = 0;
    for (size_t nl; (nl = buffer_.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view line(buffer_.data() + start, nl - start);
      if (line.find_first_not_of(" \r") == std::string_view::npos) continue;
      Status s = on_line_(line);
      if (!s.ok()) return s;
    }
    buffer_.erase(0, start);
    return OkStatus();
  }

 private:
  std::function<Status(std::string_view)> on_line_;
  std::string buffer_;
};

}  // namespace

ApiClient::ApiClient(httpclient::HttpTarget target, BearerToken token, std::string namespace_name)
    : target_(std::move(target)), token_(std::move(token)), namespace_(std::move(namespace_name)) {}

ApiClient ApiClient::FromAccess(const ClusterAccess& access) {
  httpclient::HttpTarget target;
  target.base_url = access.server;
  while (!target.base_url.empty() && target.base_url.back() == '/') target.base_url.pop_back();
  target.ca_pem = access.ca_pem;
  target.cert_pem = access.client_cert_pem;
  target.key_pem = access.client_key_pem;
  target.insecure_skip_verify = access.insecure_skip_tls_verify;
  target.peer = "the Kubernetes API server at " + access.server + " (" + access.origin + ")";
  return ApiClient(std::move(target), BearerToken(access), access.namespace_name);
}

std::string ApiClient::Path(const ResourceKind& kind, const std::string& name) const {
  std::string path =
      std::string(kind.group_version_path) + "/namespaces/" + namespace_ + "/" + kind.plural;
  return name.empty() ? path : path + "/" + name;
}

StatusOr<httpclient::HttpResponse> ApiClient::Call(httpclient::HttpRequest request) {
  request.headers.push_back("Accept: application/json");
  const size_t fixed = request.headers.size();
  for (int attempt = 0;; ++attempt) {
    request.headers.resize(fixed);
    AB_ASSIGN_OR_RETURN(std::string auth, token_.Header());
    if (!auth.empty()) request.headers.push_back(auth);
    AB_ASSIGN_OR_RETURN(httpclient::HttpResponse response, httpclient::Perform(target_, request));
    // An exec plugin's token the server no longer takes: run the plugin once more.
    if (response.status == 401 && attempt == 0 && token_.Rejected()) continue;
    return response;
  }
}

StatusOr<json> ApiClient::JsonCall(const std::string& method, const std::string& path,
                                   const std::string& body, int expect_low) {
  httpclient::HttpRequest request;
  request.method = method;
  request.path = path;
  if (!body.empty()) {
    request.body = body;
    request.has_body = true;
    request.headers.push_back("Content-Type: application/json");
  }
  const std::string what = method + " " + path;
  AB_ASSIGN_OR_RETURN(httpclient::HttpResponse response, Call(std::move(request)));
  if (response.status < expect_low || response.status > 299) {
    return ApiError(response.status, response.body, what);
  }
  return ParseObject(response.body, what);
}

StatusOr<json> ApiClient::GetPath(const std::string& path) {
  return JsonCall("GET", path, "", 200);
}

StatusOr<json> ApiClient::Get(const ResourceKind& kind, const std::string& name) {
  return JsonCall("GET", Path(kind, name), "", 200);
}

StatusOr<json> ApiClient::Create(const ResourceKind& kind, const json& object) {
  return JsonCall("POST", Path(kind), object.dump(), 200);
}

Status ApiClient::Delete(const ResourceKind& kind, const std::string& name) {
  json options = {
      {"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"propagationPolicy", "Background"}};
  return JsonCall("DELETE", Path(kind, name), options.dump(), 200).status();
}

StatusOr<json> ApiClient::List(const ResourceKind& kind, const std::string& label_selector) {
  std::string query = SelectorQuery(label_selector);
  return JsonCall("GET", Path(kind) + (query.empty() ? "" : "?" + query), "", 200);
}

StatusOr<WatchEnd> ApiClient::WatchOnce(const ResourceKind& kind, const std::string& label_selector,
                                        const std::string& resource_version, int timeout_seconds,
                                        const std::function<bool(const WatchEvent&)>& on_event) {
  std::string path = Path(kind) + "?watch=1&allowWatchBookmarks=true&timeoutSeconds=" +
                     std::to_string(timeout_seconds);
  if (!resource_version.empty())
    path += "&resourceVersion=" + httpclient::UrlEncode(resource_version);
  std::string query = SelectorQuery(label_selector);
  if (!query.empty()) path += "&" + query;
  const std::string what = "GET " + path;
  WatchEnd end = WatchEnd::kEnded;
  Status stream_error;                             // an ERROR event other than 410
  const Status kStop = Internal("watch stopped");  // aborts the exchange; never returned
  EventLines lines([&](std::string_view line) -> Status {
    auto j = json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("type")) {
      stream_error = Unavailable("kubernetes API: " + what + ": an event that is not JSON");
      return kStop;
    }
    WatchEvent event{j.value("type", ""), j.value("object", json::object())};
    if (event.type == "ERROR") {
      int code = event.object.value("code", 500);
      if (code == 410) {
        end = WatchEnd::kGone;
      } else {
        stream_error = ApiError(code, event.object.dump(), what);
      }
      return kStop;
    }
    if (on_event(event)) return OkStatus();
    end = WatchEnd::kStopped;
    return kStop;
  });
  httpclient::HttpRequest request;
  request.path = path;
  request.timeout_ms = (timeout_seconds + 30) * 1000;  // the server ends it first
  request.on_body = [&](std::string_view piece) { return lines.Take(piece); };
  StatusOr<httpclient::HttpResponse> response = Call(std::move(request));
  if (!stream_error.ok()) return stream_error;
  if (end != WatchEnd::kEnded) return end;
  if (!response.ok()) return response.status();
  if (response->status == 410) return WatchEnd::kGone;
  if (response->status < 200 || response->status > 299) {
    return ApiError(response->status, response->body, what);
  }
  return WatchEnd::kEnded;
}

}  // namespace agentbox::kubernetes
