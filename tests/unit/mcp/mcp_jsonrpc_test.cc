#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mcp/jsonrpc.h"
#include "mcp/protocol.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

json Parse(const char* text) {
  bool ok = false;
  json j = ParseJsonOrError(text, &ok);
  EXPECT_TRUE(ok) << text;
  return j;
}

TEST(McpJsonRpcTest, ParseErrorIsAnErrorResponseWithNullId) {
  for (const char* bad : {"{", "not json", "{\"a\":}", "", "\xff\xfe"}) {
    bool ok = true;
    json error = ParseJsonOrError(bad, &ok);
    EXPECT_FALSE(ok);
    EXPECT_EQ(error["error"]["code"], kParseError);
    EXPECT_TRUE(error["id"].is_null());
    EXPECT_EQ(error["jsonrpc"], "2.0");
  }
}

TEST(McpJsonRpcTest, ClassifiesRequestsNotificationsResponses) {
  Incoming req = Classify(Parse(R"({"jsonrpc":"2.0","id":7,"method":"ping"})"));
  EXPECT_EQ(req.kind, MessageKind::kRequest);
  EXPECT_EQ(req.id, 7);
  EXPECT_EQ(req.method, "ping");
  EXPECT_TRUE(req.params.is_object());

  Incoming note = Classify(Parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  EXPECT_EQ(note.kind, MessageKind::kNotification);

  Incoming resp = Classify(Parse(R"({"jsonrpc":"2.0","id":"x","result":{}})"));
  EXPECT_EQ(resp.kind, MessageKind::kResponse);
}

TEST(McpJsonRpcTest, InvalidRequests) {
  const char* cases[] = {
      R"([1])",
      R"(42)",
      R"({"id":1,"method":"ping"})",
      R"({"jsonrpc":"1.0","id":1,"method":"ping"})",
      R"({"jsonrpc":"2.0","id":1,"method":5})",
      R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})",
      R"({"jsonrpc":"2.0","id":1})",
  };
  for (const char* text : cases) {
    Incoming in = Classify(Parse(text));
    EXPECT_EQ(in.kind, MessageKind::kInvalid) << text;
    EXPECT_EQ(in.error["error"]["code"], kInvalidRequest) << text;
  }
}

TEST(McpJsonRpcTest, NonObjectParamsAreInvalidParams) {
  Incoming in = Classify(Parse(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":[1]})"));
  EXPECT_EQ(in.kind, MessageKind::kInvalid);
  EXPECT_EQ(in.error["error"]["code"], kInvalidParams);
  EXPECT_EQ(in.error["id"], 3);
}

TEST(McpJsonRpcTest, SerializeReplacesInvalidUtf8InsteadOfThrowing) {
  json message = MakeResult(1, {{"text", std::string("a\xff"
                                                     "b")}});
  std::string line;
  EXPECT_NO_THROW(line = Serialize(message));
  EXPECT_NE(line.find("a\xEF\xBF\xBD"
                      "b"),
            std::string::npos);
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(McpJsonRpcTest, IdKeysKeepStringAndNumberApart) {
  EXPECT_NE(IdKey(json(7)), IdKey(json("7")));
  EXPECT_EQ(IdKey(json(7)), IdKey(json(7)));
}

TEST(McpProtocolTest, NegotiatesKnownVersionsElseLatest) {
  for (const char* v : {"2025-03-26", "2025-06-18", "2025-11-25"}) {
    EXPECT_EQ(NegotiateProtocolVersion({{"protocolVersion", v}}), v);
  }
  EXPECT_EQ(NegotiateProtocolVersion({{"protocolVersion", "2024-11-05"}}), "2025-11-25");
  EXPECT_EQ(NegotiateProtocolVersion({{"protocolVersion", 3}}), "2025-11-25");
  // initialize never negotiates the stateless revision: it has no handshake.
  EXPECT_EQ(NegotiateProtocolVersion({{"protocolVersion", "2026-07-28"}}), "2025-11-25");
  EXPECT_EQ(NegotiateProtocolVersion(json::object()), "2025-11-25");
}

TEST(McpProtocolTest, InitializeResult) {
  json r = InitializeResult({{"protocolVersion", "2025-06-18"}}, "1.2.3");
  EXPECT_EQ(r["protocolVersion"], "2025-06-18");
  EXPECT_EQ(r["capabilities"], json({{"tools", json::object()},
                                     {"resources", json::object()},
                                     {"logging", json::object()}}));
  EXPECT_EQ(r["serverInfo"]["name"], "agentbox");
  EXPECT_EQ(r["serverInfo"]["version"], "1.2.3");
}

TEST(McpProtocolTest, ProgressTokenAndNotification) {
  EXPECT_FALSE(ProgressToken(json::object()));
  EXPECT_FALSE(ProgressToken({{"_meta", {{"progressToken", 1.5}}}}));
  EXPECT_EQ(*ProgressToken({{"_meta", {{"progressToken", "t"}}}}), "t");
  EXPECT_EQ(*ProgressToken({{"_meta", {{"progressToken", 4}}}}), 4);
  json n = ProgressNotification(4, 2.0, "running for 2s");
  EXPECT_EQ(n["method"], "notifications/progress");
  EXPECT_EQ(n["params"]["progressToken"], 4);
  EXPECT_EQ(n["params"]["progress"], 2.0);
  EXPECT_EQ(n["params"]["message"], "running for 2s");
  EXPECT_FALSE(n.contains("id"));
}

TEST(McpProtocolTest, CancelledRequestId) {
  EXPECT_EQ(*CancelledRequestId({{"requestId", 9}, {"reason", "x"}}), 9);
  EXPECT_FALSE(CancelledRequestId({{"requestId", nullptr}}));
  EXPECT_FALSE(CancelledRequestId(json::object()));
}

}  // namespace
}  // namespace agentbox::mcp
