// Watch() against a scripted server that does what a cluster does to long watches: ends
// streams, moves versions with BOOKMARKs, answers 410 Gone as an event and as a status, fails.
#include "kubernetes/watch.h"

#include <gtest/gtest.h>

#include <vector>

#include "scripted_api_server.h"

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;
using testing::Answer;
using testing::ScriptedApiServer;
using testing::SeenRequest;
using testing::Stream;

std::string ListOf(const std::string& version) {
  return Answer(
      200, R"({"kind":"PodList","metadata":{"resourceVersion":")" + version + R"("},"items":[]})");
}

std::string Event(const std::string& type, const std::string& name, const std::string& version) {
  return json({{"type", type},
               {"object", {{"metadata", {{"name", name}, {"resourceVersion", version}}}}}})
             .dump() +
         "\n";
}

WatchOptions Fast() {
  WatchOptions options;
  options.timeout_seconds = 5;
  options.max_failures = 3;
  options.backoff = std::chrono::milliseconds(1);
  return options;
}

TEST(KubernetesWatch, ReconnectsFromTheLastVersionAndRelistsOnGone) {
  ScriptedApiServer server([](const SeenRequest&, size_t index) -> std::string {
    switch (index) {
      case 0:
        return ListOf("10");
      case 1:
        return Stream(Event("ADDED", "b", "11") + Event("BOOKMARK", "", "12"));
      case 2:
        return Stream(R"({"type":"ERROR","object":{"kind":"Status","code":410}})"
                      "\n");
      case 3:
        return ListOf("20");
      case 4:
        return Answer(410, R"({"kind":"Status","reason":"Expired","code":410})");
      case 5:
        return ListOf("30");
      default:
        return Stream(Event("MODIFIED", "c", "31") + Event("DELETED", "d", "32"));
    }
  });
  ApiClient client(server.target(), BearerToken(), "ns1");
  int lists = 0;
  std::vector<std::string> events;
  WatchHandlers handlers{
      [&](const json&) { return ++lists > 0; },
      [&](const WatchEvent& e) {
        events.push_back(e.type + " " + e.object["metadata"]["name"].get<std::string>());
        return e.type != "MODIFIED";
      }};
  ASSERT_TRUE(Watch(client, kPods, "agentbox.dev/sandbox=a", handlers, Fast()).ok());
  EXPECT_EQ(lists, 3);
  EXPECT_EQ(events, (std::vector<std::string>{"ADDED b", "MODIFIED c"}));
  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 7u);
  EXPECT_NE(seen[1].target.find("watch=1"), std::string::npos);
  EXPECT_NE(seen[1].target.find("resourceVersion=10"), std::string::npos);
  EXPECT_NE(seen[1].target.find("labelSelector=agentbox.dev%2Fsandbox%3Da"), std::string::npos);
  EXPECT_NE(seen[2].target.find("resourceVersion=12"), std::string::npos);  // the bookmark's
  EXPECT_EQ(seen[3].target.find("watch"), std::string::npos);               // a list again
  EXPECT_NE(seen[4].target.find("resourceVersion=20"), std::string::npos);
  EXPECT_NE(seen[6].target.find("resourceVersion=30"), std::string::npos);
}

TEST(KubernetesWatch, RetriesAFailingServerThenGivesUp) {
  ScriptedApiServer server([](const SeenRequest&, size_t index) -> std::string {
    if (index == 1) return ListOf("5");
    return Answer(503, R"({"kind":"Status","message":"etcd is down","code":503})");
  });
  ApiClient client(server.target(), BearerToken(), "ns1");
  WatchHandlers handlers{[](const json&) { return true; }, [](const WatchEvent&) { return true; }};
  Status s = Watch(client, kPods, "", handlers, Fast());
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("etcd is down"), std::string::npos);
  EXPECT_EQ(server.requests().size(), 4u);  // list fails, list, then three failed watches
}

TEST(KubernetesWatch, AForbiddenAnswerEndsAtOnce) {
  ScriptedApiServer server([](const SeenRequest&, size_t) {
    return Answer(403, R"({"kind":"Status","reason":"Forbidden","message":"no","code":403})");
  });
  ApiClient client(server.target(), BearerToken(), "ns1");
  WatchHandlers handlers{[](const json&) { return true; }, [](const WatchEvent&) { return true; }};
  EXPECT_EQ(Watch(client, kPods, "", handlers, Fast()).code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(KubernetesWatch, AnErrorEventOtherThanGoneIsThatError) {
  ScriptedApiServer server([](const SeenRequest&, size_t index) -> std::string {
    if (index == 0) return ListOf("1");
    return Stream(R"({"type":"ERROR","object":{"kind":"Status","reason":"Forbidden","code":403}})"
                  "\n");
  });
  ApiClient client(server.target(), BearerToken(), "ns1");
  WatchHandlers handlers{[](const json&) { return true; }, [](const WatchEvent&) { return true; }};
  EXPECT_EQ(Watch(client, kPods, "", handlers, Fast()).code(), StatusCode::kPermissionDenied);
}

// A deadline bounds the whole watch: each request asks the server for at most the time left,
// and once it has passed, Watch ends with that said (a pod start that never comes).
TEST(KubernetesWatch, DeadlineEndsAWatchThatSeesNothing) {
  ScriptedApiServer server([](const SeenRequest&, size_t index) -> std::string {
    return index == 0 ? ListOf("10") : Stream("");
  });
  ApiClient client(server.target(), BearerToken(), "ns1");
  WatchHandlers handlers{[](const json&) { return true; }, [](const WatchEvent&) { return true; }};
  WatchOptions options = Fast();
  options.timeout_seconds = 300;
  options.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  Status st = Watch(client, kPods, "", handlers, options);
  EXPECT_EQ(st.code(), StatusCode::kUnavailable);
  EXPECT_EQ(st.message(), "the watch reached its deadline");
  auto seen = server.requests();
  ASSERT_GE(seen.size(), 2u);
  EXPECT_NE(seen[1].target.find("timeoutSeconds=2"), std::string::npos) << seen[1].target;
}

}  // namespace
}  // namespace agentbox::kubernetes
