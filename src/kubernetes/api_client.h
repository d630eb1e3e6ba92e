// ApiClient: the few calls agentbox makes to a Kubernetes API server (get, create, delete, list
// by label, one watch request), over httpclient/ (libcurl) with nlohmann::json, in one namespace.
// Not a generated SDK: the kinds agentbox makes (pods, secrets, networkpolicies) are named by
// ResourceKind, and every failure answer is one Status line (kubernetes/api_status.h).
//
// Thread-safe as httpclient is (a fresh connection per call); copies share the exec plugin's
// cached token. A 401 with an exec plugin runs the plugin again and retries once.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "httpclient/http_client.h"
#include "kubernetes/bearer_token.h"
#include "kubernetes/cluster_access.h"

namespace agentbox::kubernetes {

struct ResourceKind {
  const char* group_version_path;  // "/api/v1", "/apis/networking.k8s.io/v1"
  const char* plural;              // "pods"
};
inline constexpr ResourceKind kPods{"/api/v1", "pods"};
inline constexpr ResourceKind kSecrets{"/api/v1", "secrets"};
inline constexpr ResourceKind kNetworkPolicies{"/apis/networking.k8s.io/v1", "networkpolicies"};

// One event of a watch stream: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR, and its object.
struct WatchEvent {
  std::string type;
  nlohmann::json object;
};

// How one watch request ended.
enum class WatchEnd {
  kEnded,    // the server closed the stream (its timeout): watch again from the last version
  kGone,     // 410: the version is too old; list again
  kStopped,  // the handler asked to stop
};

class ApiClient {
 public:
  ApiClient(httpclient::HttpTarget target, BearerToken token, std::string namespace_name);
  // The client of a kubeconfig context or of the pod's service account.
  static ApiClient FromAccess(const ClusterAccess& access);

  const std::string& namespace_name() const { return namespace_; }

  // A cluster-wide document by its path ("/apis/GROUP/VERSION": discovery); kNotFound when the
  // server serves no such path.
  StatusOr<nlohmann::json> GetPath(const std::string& path);
  // The object; kNotFound when there is none.
  StatusOr<nlohmann::json> Get(const ResourceKind& kind, const std::string& name);
  // The object as the server stored it; kAlreadyExists when the name is taken.
  StatusOr<nlohmann::json> Create(const ResourceKind& kind, const nlohmann::json& object);
  // Deleted in the background (propagationPolicy Background); kNotFound when already gone.
  Status Delete(const ResourceKind& kind, const std::string& name);
  // The List object (items, metadata.resourceVersion) of the objects matching the selector
  // ("" for all).
  StatusOr<nlohmann::json> List(const ResourceKind& kind, const std::string& label_selector);
  // One watch request from `resource_version`: each event to on_event (false: stop) until the
  // server ends the stream after about timeout_seconds, answers 410, or sends an ERROR event
  // (410: kGone; any other: that error).
  StatusOr<WatchEnd> WatchOnce(const ResourceKind& kind, const std::string& label_selector,
                               const std::string& resource_version, int timeout_seconds,
                               const std::function<bool(const WatchEvent&)>& on_event);

  // "/api/v1/namespaces/NS/pods" and, with a name, ".../NAME".
  std::string Path(const ResourceKind& kind, const std::string& name = "") const;

 private:
  StatusOr<httpclient::HttpResponse> Call(httpclient::HttpRequest request);
  StatusOr<nlohmann::json> JsonCall(const std::string& method, const std::string& path,
                                    const std::string& body, int expect_low);

  httpclient::HttpTarget target_;
  BearerToken token_;
  std::string namespace_;
};

}  // namespace agentbox::kubernetes
