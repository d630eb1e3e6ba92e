// The 2026-07-28 envelope (mcp/modern_request.h), server/discover, the modern header checks of
// Streamable HTTP (mcp/streamable_http.h) and log levels (mcp/protocol.h).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "mcp/jsonrpc.h"
#include "mcp/modern_request.h"
#include "mcp/protocol.h"
#include "mcp/streamable_http.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

json Meta(json extra = json::object()) {
  json meta = {{kMetaProtocolVersion, "2026-07-28"},
               {kMetaClientCapabilities, json::object()},
               {kMetaClientInfo, {{"name", "t"}, {"version", "1"}}}};
  meta.update(extra);
  return meta;
}

TEST(McpModernTest, EraIsTheRequestsOwn) {
  EXPECT_TRUE(IsModernRequest("tools/list", {{"_meta", Meta()}}));
  EXPECT_TRUE(IsModernRequest("server/discover", json::object()));  // the probe
  EXPECT_FALSE(IsModernRequest("tools/list", json::object()));
  EXPECT_FALSE(IsModernRequest("tools/call", {{"_meta", {{"progressToken", 1}}}}));
}

TEST(McpModernTest, ReadsTheEnvelope) {
  json error;
  auto request = ReadModernRequest(1, {{"_meta", Meta({{kMetaLogLevel, "warning"}})}}, &error);
  ASSERT_TRUE(request);
  EXPECT_EQ(request->version, "2026-07-28");
  EXPECT_EQ(request->log_level, "warning");
  EXPECT_FALSE(request->tasks);
  json tasks =
      Meta({{kMetaClientCapabilities, {{"extensions", {{kTasksExtension, json::object()}}}}}});
  EXPECT_TRUE(ReadModernRequest(1, {{"_meta", tasks}}, &error)->tasks);
}

TEST(McpModernTest, UnsupportedVersionListsWhatWeSpeak) {
  json error;
  EXPECT_FALSE(
      ReadModernRequest(5, {{"_meta", Meta({{kMetaProtocolVersion, "1900-01-01"}})}}, &error));
  EXPECT_EQ(error["id"], 5);
  EXPECT_EQ(error["error"]["code"], kUnsupportedProtocolVersion);
  EXPECT_EQ(error["error"]["data"]["requested"], "1900-01-01");
  EXPECT_EQ(error["error"]["data"]["supported"], json::array({"2026-07-28"}));
  // A legacy version is reached through initialize, not per request.
  EXPECT_FALSE(
      ReadModernRequest(5, {{"_meta", Meta({{kMetaProtocolVersion, "2025-11-25"}})}}, &error));
  EXPECT_EQ(error["error"]["code"], kUnsupportedProtocolVersion);
}

TEST(McpModernTest, CapabilitiesAndLogLevelAreChecked) {
  json error;
  EXPECT_FALSE(ReadModernRequest(1, json::object(), &error));  // no _meta at all
  EXPECT_EQ(error["error"]["code"], kInvalidParams);
  json no_version = Meta();
  no_version.erase(kMetaProtocolVersion);
  EXPECT_TRUE(ModernEnvelopeError(1, {{"_meta", no_version}}));
  EXPECT_FALSE(ModernEnvelopeError(1, {{"_meta", Meta({{kMetaProtocolVersion, "v999"}})}}));
  json meta = Meta();
  meta.erase(kMetaClientCapabilities);
  EXPECT_FALSE(ReadModernRequest(1, {{"_meta", meta}}, &error));
  EXPECT_EQ(error["error"]["code"], kInvalidParams);
  EXPECT_FALSE(ReadModernRequest(1, {{"_meta", Meta({{kMetaLogLevel, "loud"}})}}, &error));
  EXPECT_EQ(error["error"]["code"], kInvalidParams);
}

TEST(McpModernTest, ResultsCarryTypeAndServer) {
  json r = ModernResult({{"tools", json::array()}}, "9.9");
  EXPECT_EQ(r["resultType"], "complete");
  EXPECT_EQ(r["_meta"][kMetaServerInfo]["name"], "agentbox");
  EXPECT_EQ(ModernResult({{"resultType", "task"}}, "9.9")["resultType"], "task");
  json t = MissingTasksCapability(3, "tasks/get");
  EXPECT_EQ(t["error"]["code"], kMissingRequiredClientCapability);
  EXPECT_TRUE(t["error"]["data"]["requiredCapabilities"]["extensions"].contains(kTasksExtension));
}

TEST(McpModernTest, DiscoverNamesBothErasAndTasks) {
  json d = DiscoverResult();
  EXPECT_EQ(d["supportedVersions"][0], "2026-07-28");
  EXPECT_NE(std::find(d["supportedVersions"].begin(), d["supportedVersions"].end(), "2025-06-18"),
            d["supportedVersions"].end());
  EXPECT_TRUE(d["capabilities"]["extensions"].contains(kTasksExtension));
  EXPECT_TRUE(d["capabilities"].contains("resources"));
  EXPECT_GE(d["ttlMs"].get<long>(), 0);
  EXPECT_EQ(d["cacheScope"], "public");
}

std::optional<json> Check(const json& message, std::map<std::string, std::string> headers) {
  return CheckModernHeaders(message, [&](std::string_view name) {
    auto it = headers.find(std::string(name));
    return it == headers.end() ? std::string() : it->second;
  });
}

TEST(McpModernTest, HeadersMustMirrorTheBody) {
  json call = {{"jsonrpc", "2.0"},
               {"id", 1},
               {"method", "tools/call"},
               {"params", {{"name", "bash"}, {"_meta", Meta()}}}};
  std::map<std::string, std::string> good = {
      {"mcp-protocol-version", "2026-07-28"}, {"mcp-method", "tools/call"}, {"mcp-name", "bash"}};
  EXPECT_FALSE(Check(call, good));
  auto encoded = good;
  encoded["mcp-name"] = "=?base64?YmFzaA==?=";  // "bash"
  EXPECT_FALSE(Check(call, encoded));
  for (const char* drop : {"mcp-protocol-version", "mcp-method", "mcp-name"}) {
    auto missing = good;
    missing.erase(drop);
    auto error = Check(call, missing);
    ASSERT_TRUE(error) << drop;
    EXPECT_EQ((*error)["error"]["code"], kHeaderMismatch);
    EXPECT_EQ((*error)["id"], 1);
  }
  auto wrong = good;
  wrong["mcp-name"] = "exec";
  EXPECT_TRUE(Check(call, wrong));
  wrong = good;
  wrong["mcp-protocol-version"] = "2025-11-25";
  EXPECT_TRUE(Check(call, wrong));
  // tools/list names nothing: no Mcp-Name needed.
  json list = {
      {"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}, {"params", {{"_meta", Meta()}}}};
  EXPECT_FALSE(Check(list, {{"mcp-protocol-version", "2026-07-28"}, {"mcp-method", "tools/list"}}));
}

TEST(McpModernTest, HttpStatusOfAnswers) {
  EXPECT_EQ(ModernHttpStatus(MakeResult(1, json::object())), 200);
  EXPECT_EQ(ModernHttpStatus(MakeError(1, kMethodNotFound, "x")), 404);
  for (int code :
       {kHeaderMismatch, kMissingRequiredClientCapability, kUnsupportedProtocolVersion}) {
    EXPECT_EQ(ModernHttpStatus(MakeError(1, code, "x")), 400) << code;
  }
  EXPECT_EQ(ModernHttpStatus(MakeError(1, kInvalidParams, "unknown tool")), 200);
}

TEST(McpModernTest, LogLevels) {
  EXPECT_EQ(LogLevelRank("debug"), 0);
  EXPECT_EQ(LogLevelRank("emergency"), 7);
  EXPECT_LT(*LogLevelRank("info"), *LogLevelRank("warning"));
  EXPECT_FALSE(LogLevelRank("verbose"));
  json n = LogNotification("info", "hello");
  EXPECT_EQ(n["method"], "notifications/message");
  EXPECT_EQ(n["params"]["level"], "info");
  EXPECT_EQ(n["params"]["data"], "hello");
}

}  // namespace
}  // namespace agentbox::mcp
