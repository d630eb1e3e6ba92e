#include "proto/exec_wire.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

// Arguments are bytes: a Latin-1 file name must reach the command unchanged, not end agentbox
// (found by tests/fuzz/cli_args_fuzzer: json::dump threw type_error 316).
TEST(ExecWireTest, BytesThatAreNotUtf8SurviveTheWire) {
  ExecRequest r;
  r.argv = {"cat", "caf\xe9.txt", std::string("a\0b", 3), "\xff"};
  r.env = {{"K\xfe", "v\xe2\x82"}, {"OK", "caf\xc3\xa9"}};
  r.cwd = "/workspace/\xe9";
  std::string wire = ExecRequestToWire(r);
  EXPECT_NE(wire.find("\"caf\xc3\xa9\""), std::string::npos) << "valid UTF-8 stays a string";
  auto back = ExecRequestFromWire(wire);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->argv, r.argv);
  EXPECT_EQ(back->env, r.env);
  EXPECT_EQ(back->cwd, r.cwd);
}

// Callers bound timeouts to a week; whatever reaches the wire still converts without undefined
// behaviour (a double beyond 2^64 cast to uint64_t).
TEST(ExecWireTest, TimeoutsConvertToMillisecondsSafely) {
  for (auto [seconds, ms] : {std::pair{1.5, uint64_t{1500}},
                             {0.0001, uint64_t{1}},
                             {1e300, UINT64_MAX},
                             {604800.0, uint64_t{604800000}}}) {
    ExecRequest r;
    r.argv = {"x"};
    r.timeout_seconds = seconds;
    auto back = ExecRequestFromWire(ExecRequestToWire(r));
    ASSERT_TRUE(back.ok());
    EXPECT_DOUBLE_EQ(back->timeout_seconds, static_cast<double>(ms) / 1000) << seconds;
  }
}

TEST(ExecWireTest, MalformedByteStringsAreRefused) {
  for (const char* argv : {R"([{"bytes":[256]}])", R"([{"bytes":[-1]}])", R"([{"bytes":"ab"}])",
                           R"([{"bytes":[1],"x":1}])", R"([{}])", R"([[104]])"}) {
    auto r = ExecRequestFromWire(std::string(R"({"op":"exec","argv":)") + argv + "}");
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << argv;
  }
}

// A result comes from the agent, inside the sandbox: numbers out of range are refused, not
// converted (json::get<int> of 1e300 is undefined behaviour).
TEST(ExecWireTest, OutOfRangeResultNumbersAreRefused) {
  const std::string rest =
      R"("reason":"exited","duration_ms":1,"cpu_ms":1,"stdout_truncated":false,)"
      R"("stderr_truncated":false,"limits_hit":[]})";
  auto parse = [&](const std::string& fields) {
    return ExecResultFromWire(R"({"ok":true,"result":{)" + fields + "," + rest + "}");
  };
  EXPECT_TRUE(parse(R"("exit_code":137,"signal":9,"peak_memory_bytes":1)").ok());
  for (const char* bad : {R"("exit_code":1e300,"signal":null,"peak_memory_bytes":1)",
                          R"("exit_code":-1,"signal":null,"peak_memory_bytes":1)",
                          R"("exit_code":256,"signal":null,"peak_memory_bytes":1)",
                          R"("exit_code":0,"signal":1e300,"peak_memory_bytes":1)",
                          R"("exit_code":0,"signal":0,"peak_memory_bytes":1)",
                          R"("exit_code":0,"signal":null,"peak_memory_bytes":-5)",
                          R"("exit_code":0,"signal":null,"peak_memory_bytes":1e300)",
                          R"("exit_code":"0","signal":null,"peak_memory_bytes":1)"}) {
    auto r = parse(bad);
    EXPECT_EQ(r.status().code(), StatusCode::kInternal) << bad;
  }
}

// The names the agent's DNS catcher saw cross the wire; anything else there is refused (they
// come from inside the sandbox).
TEST(ExecWireTest, LookupsCrossTheWireStrictly) {
  ExecResult r;
  AddLookups(r.network, {"pypi.org", "a\\032b.test"}, 1);
  auto back = ExecResultFromWire(ExecResultToWire(r));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(LookupNames(back->network), LookupNames(r.network));
  EXPECT_EQ(back->network.connections_dropped, 1u);
  for (const char* bad : {R"("lookups":"x")", R"("lookups":[""])", R"("lookups":["a b"])",
                          R"("lookups":[1])", R"("lookups":["a"],"lookups_lost":-1)"}) {
    std::string wire = ExecResultToWire(ExecResult{});
    const size_t at = wire.find("\"exit_code\"");
    ASSERT_NE(at, std::string::npos);
    wire.insert(at, std::string(bad) + ",");
    EXPECT_FALSE(ExecResultFromWire(wire).ok()) << bad;
  }
}

TEST(ExecWireTest, AnErrorQuotingBadBytesStillSerializes) {
  ExecResult result = ErrorResult(NotFound("command \"\xff\" not found"));
  auto back = ExecResultFromWire(ExecResultToWire(result));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->error, "command \"\xEF\xBF\xBD\" not found");
  EXPECT_EQ(back->error_code, StatusCode::kNotFound);  // the agent's code reaches HTTP and MCP
}

TEST(ExecWireTest, StdinAsFramesIsForAForegroundExecWithStdin) {
  ExecRequest r;
  r.argv = {"cat"};
  r.pass_stdin = true;
  r.stdin_frames = true;
  auto back = ExecRequestFromWire(ExecRequestToWire(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back->pass_stdin);
  EXPECT_TRUE(back->stdin_frames);
  EXPECT_FALSE(ExecRequestFromWire(R"({"op":"exec","argv":["cat"],"stdin_frames":true})").ok());
  EXPECT_FALSE(ExecRequestFromWire(
                   R"({"op":"exec","argv":["cat"],"stdin":true,"stdin_frames":true,"detach":true})")
                   .ok());
  EXPECT_FALSE(ExecRequestFromWire(R"({"op":"exec","argv":["cat"],"stdin_frames":1})").ok());
}

}  // namespace
}  // namespace agentbox
