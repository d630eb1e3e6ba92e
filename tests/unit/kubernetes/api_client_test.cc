// The REST client against a scripted server: what goes on the wire (paths, selectors, bearer
// tokens, bodies) and how each failure answer becomes one Status.
#include "kubernetes/api_client.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "kubernetes/api_status.h"
#include "scripted_api_server.h"
#include "sys/file_util.h"

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;
using testing::Answer;
using testing::ScriptedApiServer;
using testing::SeenRequest;

ClusterAccess TokenAccess() {
  ClusterAccess access;
  access.token = "tok-123";
  return access;
}

ApiClient ClientOf(ScriptedApiServer& server, BearerToken token = BearerToken(TokenAccess())) {
  return ApiClient(server.target(), std::move(token), "ns1");
}

TEST(KubernetesApiClient, GetSendsTheTokenAndParsesTheObject) {
  ScriptedApiServer server([](const SeenRequest&, size_t) {
    return Answer(200, R"({"kind":"Pod","metadata":{"name":"agentbox-a"}})");
  });
  ApiClient client = ClientOf(server);
  auto pod = client.Get(kPods, "agentbox-a");
  ASSERT_TRUE(pod.ok()) << pod.status().message();
  EXPECT_EQ((*pod)["metadata"]["name"], "agentbox-a");
  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "GET");
  EXPECT_EQ(seen[0].target, "/api/v1/namespaces/ns1/pods/agentbox-a");
  EXPECT_NE((seen[0].head + "\r\n").find("\r\nAuthorization: Bearer tok-123\r\n"),
            std::string::npos);
  EXPECT_NE(seen[0].head.find("Accept: application/json"), std::string::npos);
}

TEST(KubernetesApiClient, CreatePostsTheObject) {
  ScriptedApiServer server([](const SeenRequest& req, size_t) { return Answer(201, req.body); });
  ApiClient client = ClientOf(server);
  json policy = {{"kind", "NetworkPolicy"}, {"metadata", {{"name", "agentbox-a"}}}};
  auto made = client.Create(kNetworkPolicies, policy);
  ASSERT_TRUE(made.ok()) << made.status().message();
  EXPECT_EQ(*made, policy);
  auto seen = server.requests();
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].target, "/apis/networking.k8s.io/v1/namespaces/ns1/networkpolicies");
  EXPECT_NE(seen[0].head.find("Content-Type: application/json"), std::string::npos);
}

TEST(KubernetesApiClient, CreateOfATakenNameIsAlreadyExists) {
  ScriptedApiServer server([](const SeenRequest&, size_t) {
    return Answer(409, R"({"kind":"Status","status":"Failure","reason":"AlreadyExists",)"
                       R"("message":"pods \"agentbox-a\" already exists","code":409})");
  });
  ApiClient client = ClientOf(server);
  auto made = client.Create(kPods, json{{"kind", "Pod"}});
  EXPECT_EQ(made.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(made.status().message(),
            "kubernetes API: POST /api/v1/namespaces/ns1/pods: pods \"agentbox-a\" already "
            "exists (409 AlreadyExists)");
}

TEST(KubernetesApiClient, DeleteInTheBackgroundAndNotFound) {
  ScriptedApiServer server([](const SeenRequest&, size_t index) {
    return index == 0 ? Answer(200, R"({"kind":"Status","status":"Success"})")
                      : Answer(404, R"({"kind":"Status","reason":"NotFound","message":"gone"})");
  });
  ApiClient client = ClientOf(server);
  EXPECT_TRUE(client.Delete(kSecrets, "agentbox-a-token").ok());
  EXPECT_EQ(client.Delete(kSecrets, "agentbox-a-token").code(), StatusCode::kNotFound);
  auto seen = server.requests();
  EXPECT_EQ(seen[0].method, "DELETE");
  EXPECT_EQ(seen[0].target, "/api/v1/namespaces/ns1/secrets/agentbox-a-token");
  EXPECT_EQ(json::parse(seen[0].body)["propagationPolicy"], "Background");
}

TEST(KubernetesApiClient, ListSendsTheLabelSelector) {
  ScriptedApiServer server([](const SeenRequest&, size_t) {
    return Answer(200, R"({"kind":"PodList","metadata":{"resourceVersion":"7"},"items":[]})");
  });
  ApiClient client = ClientOf(server);
  auto list = client.List(kPods, "app.kubernetes.io/managed-by=agentbox");
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_EQ((*list)["metadata"]["resourceVersion"], "7");
  EXPECT_EQ(server.requests()[0].target,
            "/api/v1/namespaces/ns1/pods?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dagentbox");
}

TEST(KubernetesApiClient, AnExecPluginsRejectedTokenIsRenewedOnce) {
  int runs = 0;
  ExecPlugin plugin{"client.authentication.k8s.io/v1", "/bin/true", {}, {}};
  BearerToken token(plugin, [&](const ExecPlugin&) -> StatusOr<std::string> {
    ++runs;
    return R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)"
           R"("status":{"token":"t)" +
           std::to_string(runs) + R"("}})";
  });
  ScriptedApiServer server([](const SeenRequest& req, size_t) {
    bool fresh = req.head.find("Bearer t2") != std::string::npos;
    return fresh ? Answer(200, R"({"kind":"Pod"})") : Answer(401, R"({"kind":"Status"})");
  });
  ApiClient client = ClientOf(server, std::move(token));
  EXPECT_TRUE(client.Get(kPods, "p").ok());
  EXPECT_EQ(runs, 2);
  EXPECT_TRUE(client.Get(kPods, "p").ok());  // t2 cached
  EXPECT_EQ(runs, 2);
}

TEST(KubernetesApiClient, ATokenFileIsReadForEachRequest) {
  char templ[] = "/tmp/agentbox-k8s-token-XXXXXX";
  std::string dir = ::mkdtemp(templ);
  ClusterAccess access;
  access.token_file = dir + "/token";
  ASSERT_TRUE(WriteFile(access.token_file, "first\n").ok());
  ScriptedApiServer server([](const SeenRequest&, size_t) { return Answer(200, "{}"); });
  ApiClient client = ClientOf(server, BearerToken(access));
  ASSERT_TRUE(client.Get(kPods, "p").ok());
  ASSERT_TRUE(WriteFile(access.token_file, "rotated").ok());  // the kubelet rotated it
  ASSERT_TRUE(client.Get(kPods, "p").ok());
  auto seen = server.requests();
  EXPECT_NE(seen[0].head.find("Bearer first"), std::string::npos);
  EXPECT_NE(seen[1].head.find("Bearer rotated"), std::string::npos);
  RemoveTree(dir);
  EXPECT_EQ(client.Get(kPods, "p").status().code(), StatusCode::kUnavailable);  // gone
}

TEST(KubernetesApiClient, AnUnreachableServerIsUnavailable) {
  httpclient::HttpTarget target;
  target.unix_socket = "/nonexistent/agentbox-k8s.sock";
  target.base_url = "http://kubernetes";
  target.peer = "the API server";
  ApiClient client(target, BearerToken(), "default");
  EXPECT_EQ(client.Get(kPods, "p").status().code(), StatusCode::kUnavailable);
}

TEST(KubernetesApiStatus, EachCodeMapsToOurs) {
  struct Case {
    int http;
    const char* reason;
    StatusCode code;
  };
  for (const Case& c : {Case{404, "NotFound", StatusCode::kNotFound},
                        Case{409, "AlreadyExists", StatusCode::kAlreadyExists},
                        Case{409, "Conflict", StatusCode::kFailedPrecondition},
                        Case{401, "Unauthorized", StatusCode::kPermissionDenied},
                        Case{403, "Forbidden", StatusCode::kPermissionDenied},
                        Case{422, "Invalid", StatusCode::kInvalidArgument},
                        Case{400, "BadRequest", StatusCode::kInvalidArgument},
                        Case{410, "Expired", StatusCode::kFailedPrecondition},
                        Case{429, "TooManyRequests", StatusCode::kResourceExhausted},
                        Case{500, "InternalError", StatusCode::kUnavailable},
                        Case{503, "ServiceUnavailable", StatusCode::kUnavailable}}) {
    json body = {{"kind", "Status"}, {"reason", c.reason}, {"message", "m\nsecond line"}};
    Status s = ApiError(c.http, body.dump(), "GET /x");
    EXPECT_EQ(s.code(), c.code) << c.http << " " << c.reason;
    EXPECT_EQ(s.message().find('\n'), std::string::npos);
  }
  Status page = ApiError(502, "<html>Bad gateway</html>\nmore", "GET /x");
  EXPECT_EQ(page.message(), "kubernetes API: GET /x: <html>Bad gateway</html> (502)");
}

}  // namespace
}  // namespace agentbox::kubernetes
