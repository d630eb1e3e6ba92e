#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mcp/protocol.h"
#include "mcp/streamable_http.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

TEST(McpStreamableHttpTest, AcceptsEventStreamOnlyWhenNamed) {
  EXPECT_TRUE(AcceptsEventStream("application/json, text/event-stream"));  // the SDK's
  EXPECT_TRUE(AcceptsEventStream("text/event-stream"));
  EXPECT_TRUE(AcceptsEventStream("Text/Event-Stream ; charset=utf-8"));
  EXPECT_TRUE(AcceptsEventStream("application/json;q=0.9,text/event-stream;q=0.5"));
  EXPECT_FALSE(AcceptsEventStream(""));
  EXPECT_FALSE(AcceptsEventStream("*/*"));  // curl's default: plain JSON
  EXPECT_FALSE(AcceptsEventStream("text/*"));
  EXPECT_FALSE(AcceptsEventStream("application/json"));
  EXPECT_FALSE(AcceptsEventStream("application/json, text/event-stream;q=0"));
  EXPECT_FALSE(AcceptsEventStream("text/event-stream;q=0.0"));
  EXPECT_FALSE(AcceptsEventStream("text/event-streams"));
}

TEST(McpStreamableHttpTest, SseMessageEventIsOneEventOfOneDataLine) {
  json message = {{"jsonrpc", "2.0"},
                  {"method", "notifications/progress"},
                  {"params", {{"message", "line1\nline2"}}}};
  std::string event = SseMessageEvent(message);
  ASSERT_TRUE(event.starts_with("event: message\ndata: {"));
  ASSERT_TRUE(event.ends_with("}\n\n"));
  std::string data = event.substr(std::string("event: message\ndata: ").size());
  data.resize(data.size() - 2);
  EXPECT_EQ(data.find('\n'), std::string::npos);
  EXPECT_EQ(json::parse(data), message);
}

TEST(McpStreamableHttpTest, ProtocolVersionHeader) {
  EXPECT_TRUE(CheckProtocolVersionHeader("").ok());  // absent: the negotiated version holds
  for (const char* v : {"2025-03-26", "2025-06-18", "2025-11-25"}) {
    EXPECT_TRUE(CheckProtocolVersionHeader(v).ok()) << v;
    EXPECT_TRUE(IsSupportedProtocolVersion(v)) << v;
  }
  for (const char* v : {"2024-11-05", "2099-01-01", "latest", "2025-06-18 "}) {
    Status s = CheckProtocolVersionHeader(v);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << v;
    EXPECT_NE(s.message().find("2025-11-25"), std::string::npos) << s.message();
  }
  // A 2026-07-28 header on a request whose body does not say so: the body must carry _meta.
  Status modern = CheckProtocolVersionHeader("2026-07-28");
  EXPECT_EQ(modern.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(modern.message().find("_meta"), std::string::npos) << modern.message();
}

TEST(McpStreamableHttpTest, InspectPostedSingleMessages) {
  auto call =
      json::parse(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"exec"}})");
  PostedMessages p = InspectPosted(call);
  EXPECT_TRUE(p.has_request);
  EXPECT_FALSE(p.is_initialize);
  ASSERT_EQ(p.tool_call_ids.size(), 1u);
  EXPECT_EQ(p.tool_call_ids[0], 7);

  p = InspectPosted(json::parse(R"({"jsonrpc":"2.0","id":"a","method":"initialize"})"));
  EXPECT_TRUE(p.has_request);
  EXPECT_TRUE(p.is_initialize);
  EXPECT_TRUE(p.tool_call_ids.empty());

  p = InspectPosted(json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  EXPECT_FALSE(p.has_request);
  p = InspectPosted(json::parse(R"({"jsonrpc":"2.0","id":1,"result":{}})"));
  EXPECT_FALSE(p.has_request);
  p = InspectPosted(json::parse(R"("just a string")"));
  EXPECT_FALSE(p.has_request);
  // A malformed request still has an id: it is answered (with its error), not accepted.
  p = InspectPosted(json::parse(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":[1]})"));
  EXPECT_TRUE(p.has_request);
  EXPECT_TRUE(p.tool_call_ids.empty());
}

TEST(McpStreamableHttpTest, InspectPostedBatch) {
  auto batch = json::parse(R"([
    {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}},
    {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"exec"}},
    {"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"bash"}},
    {"jsonrpc":"2.0","id":4,"method":"ping"}])");
  PostedMessages p = InspectPosted(batch);
  EXPECT_TRUE(p.has_request);
  EXPECT_EQ(p.tool_call_ids, (std::vector<json>{2, "x"}));
  EXPECT_FALSE(InspectPosted(json::array()).has_request);
}

TEST(McpStreamableHttpTest, AnswerMessagesSplitsBatches) {
  json one = {{"jsonrpc", "2.0"}, {"id", 1}, {"result", json::object()}};
  EXPECT_EQ(AnswerMessages(one), std::vector<json>{one});
  json two = json::array({one, one});
  EXPECT_EQ(AnswerMessages(two).size(), 2u);
}

}  // namespace
}  // namespace agentbox::mcp
