#include <gtest/gtest.h>
#include <signal.h>

#include "http/api_bodies.h"

namespace agentbox {
namespace {

using nlohmann::json;

TEST(ServerApiBodiesTest, ExecBodyOverDefaults) {
  ExecRequest defaults;
  defaults.env = {{"A", "1"}, {"B", "2"}};
  defaults.timeout_seconds = 60;
  auto body =
      ParseExecBody(json::parse(R"({"argv":["sh","-c","x"],"env":{"B":"3","C":"4"},"cwd":"/tmp",
                      "timeout":"1.5s","output_limit":"1K","stdin":"hi"})"),
                    defaults, "");
  ASSERT_TRUE(body.ok()) << body.status().message();
  EXPECT_EQ(body->request.argv, (std::vector<std::string>{"sh", "-c", "x"}));
  EXPECT_EQ(body->request.env,
            (std::vector<std::pair<std::string, std::string>>{{"A", "1"}, {"B", "3"}, {"C", "4"}}));
  EXPECT_EQ(body->request.cwd, "/tmp");
  EXPECT_DOUBLE_EQ(body->request.timeout_seconds, 1.5);
  EXPECT_EQ(body->request.output_limit, 1024u);
  EXPECT_EQ(body->stdin_data, "hi");
  EXPECT_TRUE(body->request.pass_stdin);
  EXPECT_EQ(body->stream, StreamFormat::kNone);
  auto numeric =
      ParseExecBody(json::parse(R"({"argv":["x"],"timeout":2,"output_limit":10})"), defaults, "");
  ASSERT_TRUE(numeric.ok());
  EXPECT_DOUBLE_EQ(numeric->request.timeout_seconds, 2);
  EXPECT_EQ(numeric->request.output_limit, 10u);
  EXPECT_FALSE(numeric->request.pass_stdin);
}

TEST(ServerApiBodiesTest, StreamFromBodyOrAccept) {
  ExecRequest d;
  json argv = json::parse(R"({"argv":["x"]})");
  EXPECT_EQ(ParseExecBody(argv, d, "application/x-ndjson")->stream, StreamFormat::kNdjson);
  EXPECT_EQ(ParseExecBody(argv, d, "text/event-stream")->stream, StreamFormat::kSse);
  EXPECT_EQ(ParseExecBody(argv, d, "*/*")->stream, StreamFormat::kNone);
  EXPECT_EQ(ParseExecBody(json::parse(R"({"argv":["x"],"stream":"sse"})"), d, "")->stream,
            StreamFormat::kSse);
  EXPECT_EQ(ParseExecBody(json::parse(R"({"argv":["x"],"stream":"none"})"), d, "text/event-stream")
                ->stream,
            StreamFormat::kNone);
}

TEST(ServerApiBodiesTest, ExecBodyErrors) {
  ExecRequest d;
  for (const char* text :
       {R"([])", R"({})", R"({"argv":[]})", R"({"argv":"ls"})", R"({"argv":[1]})",
        R"({"argv":["x"],"bogus":1})", R"({"argv":["x"],"env":{"A=B":"1"}})",
        R"({"argv":["x"],"env":["A=1"]})", R"({"argv":["x"],"timeout":0})",
        R"({"argv":["x"],"timeout":-1})", R"({"argv":["x"],"timeout":"soon"})",
        R"({"argv":["x"],"output_limit":"lots"})", R"({"argv":["x"],"stdin":5})",
        R"({"argv":["x"],"stream":"xml"})", R"({"argv":["x"],"cwd":""})",
        // Beyond the one-week bound or 64 bits: once converted with undefined behaviour
        // (found by tests/fuzz/api_bodies_fuzzer).
        R"({"argv":["x"],"timeout":8.4e24})", R"({"argv":["x"],"timeout":604801})",
        R"({"argv":["x"],"timeout":"99999999999999999999d"})",
        R"({"argv":["x"],"output_limit":1e30})", R"({"argv":["x"],"output_limit":0.5})"}) {
    auto body = ParseExecBody(json::parse(text), d, "");
    EXPECT_EQ(body.status().code(), StatusCode::kInvalidArgument) << text;
  }
}

TEST(ServerApiBodiesTest, CreateBody) {
  const HostPathRules host{.allow_host_paths = true};
  auto body = ParseCreateBody(json::parse(R"({"name":"w1","memory":"256M","timeout":5})"), host);
  ASSERT_TRUE(body.ok()) << body.status().message();
  EXPECT_EQ(body->name, "w1");
  EXPECT_FALSE(body->policy.contains("name"));
  EXPECT_EQ(body->policy["memory"], "256M");
  EXPECT_TRUE(ParseCreateBody(json::object(), host).ok());
  EXPECT_EQ(ParseCreateBody(json::parse(R"({"memory":"lots"})"), host).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseCreateBody(json::parse(R"({"nope":1})"), host).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseCreateBody(json::parse(R"({"name":5})"), host).status().code(),
            StatusCode::kInvalidArgument);
  auto given = ParseCreateBody(json::parse(R"({"workspace":"/srv/x","rootfs":"/srv/r"})"), host);
  ASSERT_TRUE(given.ok()) << given.status().message();
  EXPECT_EQ(given->policy["workspace"], "/srv/x");
}

TEST(ServerApiBodiesTest, HostPathsOnlyWhenTheOperatorAllows) {
  const HostPathRules none{};
  for (const char* text : {R"({"workspace":"/root"})", R"({"workspace":"/"})", R"({"rootfs":"/"})",
                           R"({"rootfs":"usr"})", R"({"workspace":"proj"})"}) {
    EXPECT_EQ(ParseCreateBody(json::parse(text), none).status().code(),
              StatusCode::kPermissionDenied)
        << text;
  }
  const HostPathRules rooted{.workspace_root = "/srv/ws", .tenant_dir = "a"};
  EXPECT_EQ(ParseCreateBody(json::parse(R"({"workspace":"/etc"})"), rooted).status().code(),
            StatusCode::kPermissionDenied);
}

TEST(ServerApiBodiesTest, WorkspaceNamesResolveBeneathTheRootPerTenant) {
  const HostPathRules a{.workspace_root = "/srv/ws", .tenant_dir = "a"};
  auto body = ParseCreateBody(json::parse(R"({"workspace":"proj-1.x"})"), a);
  ASSERT_TRUE(body.ok()) << body.status().message();
  EXPECT_EQ(body->policy["workspace"], "/srv/ws/a/proj-1.x");
  const HostPathRules anonymous{.workspace_root = "/srv/ws",
                                .tenant_dir = std::string(kAnonymousWorkspaceDir)};
  EXPECT_EQ(ParseCreateBody(json::parse(R"({"workspace":"p"})"), anonymous)->policy["workspace"],
            "/srv/ws/_anonymous/p");
  for (const char* bad :
       {"..", ".", "a/b", "../b", "", ".hidden", "-x", "a b", "x\\u0000y",
        "0123456789012345678901234567890123456789012345678901234567890123456789"}) {
    json j = json::parse(std::string(R"({"workspace":")") + bad + "\"}");
    Status st = ParseCreateBody(j, a).status();
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(ServerApiBodiesTest, StreamEvents) {
  EXPECT_EQ(StreamEvent(StreamFormat::kNdjson, "stdout", "hi\n"),
            "{\"type\":\"stdout\",\"data\":\"hi\\n\"}\n");
  EXPECT_EQ(StreamEvent(StreamFormat::kSse, "stderr", "x"),
            "event: stderr\ndata: {\"type\":\"stderr\",\"data\":\"x\"}\n\n");
  EXPECT_EQ(StreamEvent(StreamFormat::kNdjson, "stdout", "\xff"),
            "{\"type\":\"stdout\",\"data\":\"\xef\xbf\xbd\"}\n");
  ExecResult r;
  r.exit_code = 3;
  std::string line = StreamResultEvent(StreamFormat::kNdjson, r);
  auto j = json::parse(line);
  EXPECT_EQ(j["type"], "result");
  EXPECT_EQ(j["result"]["exit_code"], 3);
  EXPECT_EQ(j["result"]["reason"], "exited");
}

// SSE streams get a comment readers ignore; NDJSON none: every line must be a JSON object.
TEST(ServerApiBodiesTest, StreamKeepAliveOnlyForSse) {
  EXPECT_EQ(StreamKeepAlive(StreamFormat::kSse), ": keep-alive\n\n");
  EXPECT_EQ(StreamKeepAlive(StreamFormat::kNdjson), "");
  EXPECT_EQ(StreamKeepAlive(StreamFormat::kNone), "");
}

TEST(ServerApiBodiesTest, Utf8CarryKeepsSplitCharacters) {
  const std::string text =
      "a\xe2\x82\xac"
      "b\xf0\x9f\x98\x80"
      "c\xc3\xa9";  // a€b😀cé
  for (size_t split = 0; split <= text.size(); ++split) {
    Utf8Carry carry;
    std::string out = carry.Take(text.substr(0, split));
    out += carry.Take(text.substr(split));
    out += carry.Flush();
    EXPECT_EQ(out, text) << split;
    Utf8Carry check;
    std::string head = check.Take(text.substr(0, split));
    head += check.Flush();
    EXPECT_EQ(head, text.substr(0, split));
  }
}

}  // namespace
}  // namespace agentbox

namespace agentbox {
namespace {

using nlohmann::json;

TEST(ServerApiBodiesTest, DetachedExecBody) {
  ExecRequest d;
  auto body = ParseExecBody(json::parse(R"({"argv":["cat"],"detach":true,"interactive":true})"), d,
                            "text/event-stream");
  ASSERT_TRUE(body.ok()) << body.status().message();
  EXPECT_TRUE(body->detach);
  EXPECT_TRUE(body->interactive);
  EXPECT_FALSE(body->request.pass_stdin);
  // Its answer is the process object whatever the Accept says.
  EXPECT_EQ(body->stream, StreamFormat::kNone);
  auto plain = ParseExecBody(json::parse(R"({"argv":["x"],"detach":false})"), d, "");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->detach);
  EXPECT_TRUE(
      ParseExecBody(json::parse(R"({"argv":["x"],"detach":true,"stream":"none"})"), d, "").ok());
  for (const char* bad : {
           R"({"argv":["x"],"interactive":true})",
           R"({"argv":["x"],"detach":"yes"})",
           R"({"argv":["x"],"detach":true,"interactive":1})",
           R"({"argv":["x"],"detach":true,"stdin":"in"})",
           R"({"argv":["x"],"detach":true,"stream":"ndjson"})",
       }) {
    auto r = ParseExecBody(json::parse(bad), d, "");
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(ServerApiBodiesTest, KillBody) {
  EXPECT_EQ(*ParseKillBody(json::object(), /*empty=*/true), SIGTERM);
  EXPECT_EQ(*ParseKillBody(json::object(), false), SIGTERM);
  EXPECT_EQ(*ParseKillBody(json::parse(R"({"signal":"KILL"})"), false), SIGKILL);
  EXPECT_EQ(*ParseKillBody(json::parse(R"({"signal":"sigint"})"), false), SIGINT);
  EXPECT_EQ(*ParseKillBody(json::parse(R"({"signal":9})"), false), 9);
  for (const char* bad : {R"({"signal":"STOP"})", R"({"signal":"BOGUS"})", R"({"signal":-1})",
                          R"({"signal":1.5})", R"({"signal":true})", R"({"sig":"TERM"})"}) {
    auto r = ParseKillBody(json::parse(bad), false);
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(ServerApiBodiesTest, LogsQuery) {
  auto q = ParseLogsQuery(true, "42", "", "");
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(q->follow);
  EXPECT_EQ(q->since, 42u);
  EXPECT_EQ(q->format, StreamFormat::kNdjson);
  EXPECT_EQ(ParseLogsQuery(false, "", "", "")->since, 0u);
  EXPECT_EQ(ParseLogsQuery(false, "18446744073709551", "", "")->since, 18446744073709551u);
  EXPECT_EQ(ParseLogsQuery(false, "", "", "text/event-stream")->format, StreamFormat::kSse);
  EXPECT_EQ(ParseLogsQuery(false, "", "sse", "")->format, StreamFormat::kSse);
  EXPECT_EQ(ParseLogsQuery(false, "", "ndjson", "text/event-stream")->format,
            StreamFormat::kNdjson);
  for (const char* since : {"-1", "1K", "x", " 1", "1.5", "99999999999999999999"}) {
    EXPECT_EQ(ParseLogsQuery(false, since, "", "").status().code(), StatusCode::kInvalidArgument)
        << since;
  }
  EXPECT_FALSE(ParseLogsQuery(false, "", "json", "").ok());
}

TEST(ServerApiBodiesTest, WaitTimeout) {
  EXPECT_EQ(*ParseWaitTimeout(""), 0);
  EXPECT_DOUBLE_EQ(*ParseWaitTimeout("1.5"), 1.5);
  EXPECT_DOUBLE_EQ(*ParseWaitTimeout("2m"), 120);
  for (const char* bad : {"0", "-1", "x", "30d"}) {
    EXPECT_EQ(ParseWaitTimeout(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(ServerApiBodiesTest, ProcessEvents) {
  ProcessInfo p;
  p.id = "p3";
  p.argv = {"sleep", "1"};
  p.output_bytes = 12;
  EXPECT_EQ(json::parse(ProcessListJson({p, p}))["processes"].size(), 2u);
  EXPECT_EQ(ProcessListJson({}), R"({"processes":[]})");
  std::string line = ProcessEndEvent(StreamFormat::kNdjson, p, 4, 12);
  ASSERT_TRUE(line.ends_with("}\n"));
  EXPECT_TRUE(line.starts_with(R"({"type":"process","from":4,"next":12,"process":{"id":"p3")"))
      << line;
  json end = json::parse(line);
  EXPECT_EQ(end["process"]["state"], "running");
  EXPECT_TRUE(end["process"]["result"].is_null());
  std::string sse = ProcessEndEvent(StreamFormat::kSse, p, 0, 12);
  EXPECT_TRUE(sse.starts_with("event: process\ndata: {\"type\":\"process\"")) << sse;
  EXPECT_TRUE(sse.ends_with("}\n\n"));
  json err = json::parse(StreamErrorEvent(StreamFormat::kNdjson, Unavailable("sandbox gone")));
  EXPECT_EQ(err, json::parse(R"({"type":"error","error":"sandbox gone","code":"unavailable"})"));
}

}  // namespace
}  // namespace agentbox
