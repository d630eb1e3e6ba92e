#include "proto/exec_result.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "base/utf8.h"

namespace agentbox {
namespace {

TEST(ExecResultTest, ReasonNames) {
  EXPECT_STREQ(ExitReasonName(ExitReason::kExited), "exited");
  EXPECT_STREQ(ExitReasonName(ExitReason::kSignaled), "signaled");
  EXPECT_STREQ(ExitReasonName(ExitReason::kTimeout), "timeout");
  EXPECT_STREQ(ExitReasonName(ExitReason::kOom), "oom");
  EXPECT_STREQ(ExitReasonName(ExitReason::kError), "error");
}

TEST(ExecResultTest, LimitsHitInOrderNoDuplicates) {
  ExecResult r;
  EXPECT_FALSE(r.HasLimitHit(kLimitMemory));
  r.AddLimitHit(kLimitMemory);
  r.AddLimitHit(kLimitOutput);
  r.AddLimitHit(kLimitMemory);
  EXPECT_TRUE(r.HasLimitHit(kLimitMemory));
  EXPECT_EQ(r.limits_hit, (std::vector<std::string>{"memory", "output"}));
}

TEST(ExecResultTest, ErrorResult) {
  ExecResult r = ErrorResult(Unavailable("no user namespaces"));
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_EQ(r.reason, ExitReason::kError);
  EXPECT_EQ(r.error, "no user namespaces");
  EXPECT_EQ(r.error_code, StatusCode::kUnavailable);
}

TEST(ExecResultJsonTest, ExactDefaultRendering) {
  ExecResult r;
  r.duration_ms = 3.14159;
  r.cpu_ms = 0.8;
  r.peak_memory_bytes = 1234567;
  r.stdout_data = "hi\n";
  EXPECT_EQ(ExecResultToJson(r),
            R"({"exit_code":0,"signal":null,"reason":"exited","duration_ms":3.142,"cpu_ms":0.8,)"
            R"("peak_memory_bytes":1234567,"stdout":"hi\n","stderr":"","stdout_truncated":false,)"
            R"("stderr_truncated":false,"limits_hit":[],)"
            R"("network":{"egress":false,"connections":[]}})");
}

TEST(ExecResultJsonTest, NetworkSectionAndDenialLines) {
  ExecResult r;
  r.network.egress = true;
  r.network.connections.push_back({"pypi.org", 443, true, "192.0.2.1", 100, 2000, ""});
  r.network.connections.push_back({"evil.test", 443, false, "", 0, 0, kNotOnTheList});
  r.network.connections.push_back(
      {"rebind.test", 80, false, "", 0, 0, "resolves to loopback 127.0.0.1"});
  nlohmann::json j = nlohmann::json::parse(ExecResultToJson(r));
  EXPECT_EQ(j["network"]["egress"], true);
  ASSERT_EQ(j["network"]["connections"].size(), 3u);
  EXPECT_EQ(j["network"]["connections"][0]["bytes_received"], 2000);
  EXPECT_EQ(j["network"]["connections"][1]["address"], nullptr);
  EXPECT_EQ(NetworkDenialLines(r.network),
            "agentbox: network: connect to evil.test:443 denied by policy (allow_hosts)\n"
            "agentbox: network: connect to rebind.test:80 denied by policy (allow_hosts): "
            "resolves to loopback 127.0.0.1\n");
  auto back = NetworkFromJson(j["network"]);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->connections.size(), 3u);
  EXPECT_EQ(back->connections[2].reason, "resolves to loopback 127.0.0.1");
}

TEST(ExecResultJsonTest, SignalTimeoutAndLimits) {
  ExecResult r;
  r.exit_code = 137;
  r.signal = 9;
  r.reason = ExitReason::kOom;
  r.stderr_truncated = true;
  r.AddLimitHit(kLimitMemory);
  r.AddLimitHit(kLimitOutput);
  nlohmann::json j = nlohmann::json::parse(ExecResultToJson(r));
  EXPECT_EQ(j["exit_code"], 137);
  EXPECT_EQ(j["signal"], 9);
  EXPECT_EQ(j["reason"], "oom");
  EXPECT_EQ(j["stderr_truncated"], true);
  EXPECT_EQ(j["limits_hit"], nlohmann::json::array({"memory", "output"}));
  EXPECT_FALSE(j.contains("error"));
}

// The error and its code come last, and only for errors: the code is the API error's, so a
// streamed exec (whose HTTP status was sent before) and the CLI say why as an API error would.
TEST(ExecResultJsonTest, ErrorKeysLastOnlyForErrors) {
  const std::string json = ExecResultToJson(ErrorResult(NotFound("cgroup \"x\" missing")));
  EXPECT_EQ(json.substr(0, 48), R"({"exit_code":125,"signal":null,"reason":"error",)");
  const std::string tail =
      R"("limits_hit":[],"error":"cgroup \"x\" missing","error_code":"not_found"})";
  EXPECT_EQ(json.substr(json.size() - tail.size()), tail);
}

TEST(ExecResultJsonTest, KeyOrder) {
  ExecResult r = ErrorResult(Internal("e"));
  const std::string json = ExecResultToJson(r);
  size_t last = 0;
  for (const char* key :
       {"exit_code", "signal", "reason", "duration_ms", "cpu_ms", "peak_memory_bytes", "stdout",
        "stderr", "stdout_truncated", "stderr_truncated", "limits_hit", "error"}) {
    const size_t pos = json.find("\"" + std::string(key) + "\":");
    ASSERT_NE(pos, std::string::npos) << key;
    EXPECT_GT(pos + 1, last) << key;
    last = pos + 1;
  }
}

TEST(ExecResultJsonTest, InvalidUtf8AndControlBytes) {
  ExecResult r;
  r.stdout_data = std::string("a\xFF\0b\x1b", 5);
  r.stderr_data = "\xE2\x82";
  nlohmann::json j = nlohmann::json::parse(ExecResultToJson(r));
  EXPECT_EQ(j["stdout"], std::string("a\xEF\xBF\xBD\0b\x1b", 7));
  EXPECT_EQ(j["stderr"], "\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(ExecResultJsonTest, DurationsRoundedAndFinite) {
  ExecResult r;
  r.duration_ms = 1.0004;
  r.cpu_ms = std::nan("");
  nlohmann::json j = nlohmann::json::parse(ExecResultToJson(r));
  EXPECT_DOUBLE_EQ(j["duration_ms"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["cpu_ms"].get<double>(), 0);
  r.duration_ms = 2.0005;
  EXPECT_NE(ExecResultToJson(r).find("\"duration_ms\":2.001"), std::string::npos);
}

// The text spliced together by hand must be exactly what nlohmann writes for the same result,
// for every byte value (control characters, quotes, backslashes, DEL, bad UTF-8), and size()
// must be its exact length (serve reserves memory by it).
TEST(ExecResultJsonTest, SplicedOutputsMatchTheJsonLibraryByteForByte) {
  ExecResult r;
  for (int i = 0; i < 256; ++i) r.stdout_data.push_back(static_cast<char>(i));
  r.stderr_data = "tab\there \"quoted\" back\\slash \xe2\x82\xac \xff\xfe end\n";
  r.limits_hit = {"disk"};
  r.reason = ExitReason::kError;
  r.error = "boom";
  r.disk_limit = DiskLimitReport{16 << 20, QuotaMechanism::kNone, "no quota here"};
  const ExecResultJson json(r);
  const std::string text = json.Render();
  EXPECT_EQ(text.size(), json.size());
  nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(parsed.dump(), text);  // re-dumped by the library: the same bytes
  EXPECT_EQ(parsed["stdout"].get<std::string>(), SanitizeUtf8(r.stdout_data));
  EXPECT_EQ(parsed["stderr"].get<std::string>(), SanitizeUtf8(r.stderr_data));
  EXPECT_EQ(text, ExecResultToJson(r));
}

}  // namespace
namespace {

TEST(ExecResultJsonTest, NoNetworkNotesNameTheHostAClientCouldNotResolve) {
  ExecResult r;
  r.stderr_data =
      "curl: (6) Could not resolve host: pypi.org\nfatal: unable to access: "
      "Could not resolve host: github.com\ncurl: (6) Could not resolve host: pypi.org\n";
  EXPECT_EQ(NetworkNotes(r),
            "agentbox: network: connect to pypi.org denied by policy (allow_hosts: none, the "
            "sandbox has no network)\nagentbox: network: connect to github.com denied by policy "
            "(allow_hosts: none, the sandbox has no network)\n");
  r.stderr_data = "socket.gaierror: [Errno -3] Temporary failure in name resolution\n";
  EXPECT_NE(NetworkNotes(r).find("the sandbox has no network"), std::string::npos);
  r.stderr_data = "all fine\n";
  EXPECT_EQ(NetworkNotes(r), "");
  r.network.egress = true;  // with a proxy, only what it saw
  r.stderr_data = "Could not resolve host: x.test\n";
  EXPECT_EQ(NetworkNotes(r), "");
}

// Names caught by the sandbox's DNS catcher: denied lookups, said in one line each, kept
// through JSON and the agent's wire; they replace the stderr heuristic when there are any.
TEST(ExecResultJsonTest, LookupsAreDeniedAttempts) {
  ExecResult r;
  AddLookups(r.network, {"pypi.org", "github.com"}, 3);
  ASSERT_EQ(r.network.connections.size(), 2u);
  EXPECT_EQ(r.network.connections[0].kind, NetworkKind::kLookup);
  EXPECT_FALSE(r.network.connections[0].allowed);
  EXPECT_EQ(r.network.connections_dropped, 3u);
  EXPECT_EQ(LookupNames(r.network), (std::vector<std::string>{"pypi.org", "github.com"}));
  r.stderr_data = "curl: (6) Could not resolve host: other.test\n";
  EXPECT_EQ(NetworkNotes(r),
            "agentbox: network: connect to pypi.org denied by policy (allow_hosts: none, the "
            "sandbox has no network)\nagentbox: network: connect to github.com denied by policy "
            "(allow_hosts: none, the sandbox has no network)\n");
  r.network.egress = true;
  EXPECT_NE(NetworkNotes(r).find("pypi.org denied by policy (allow_hosts): looked up in the "
                                 "sandbox, not through the proxy"),
            std::string::npos);
  nlohmann::json j = nlohmann::json::parse(ExecResultToJson(r));
  EXPECT_EQ(j["network"]["connections"][0]["kind"], "lookup");
  EXPECT_EQ(j["network"]["connections"][0]["port"], 0);
  auto back = NetworkFromJson(j["network"]);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->connections[1].kind, NetworkKind::kLookup);
}

}  // namespace
}  // namespace agentbox
