#include "proto/process_wire.h"

#include <gtest/gtest.h>
#include <signal.h>

#include "proto/exec_wire.h"

namespace agentbox {
namespace {

TEST(ProcessWire, InfoRoundTripsWithItsResult) {
  ProcessInfo info;
  info.id = "p12";
  info.argv = {"sh", "-c", "echo hi"};
  info.state = ProcessState::kExited;
  info.started_at = 1.5;
  info.output_bytes = 10;
  info.dropped_bytes = 2;
  ExecResult result;
  result.exit_code = 3;
  info.result = result;
  auto back = ProcessInfoFromWire(ProcessInfoToWire(info));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->id, "p12");
  EXPECT_EQ(back->argv, info.argv);
  EXPECT_EQ(back->state, ProcessState::kExited);
  EXPECT_EQ(back->output_bytes, 10u);
  EXPECT_EQ(back->dropped_bytes, 2u);
  ASSERT_TRUE(back->result.has_value());
  EXPECT_EQ(back->result->exit_code, 3);
  auto api = nlohmann::json::parse(ProcessInfoToJson(info));
  EXPECT_EQ(api["result"]["exit_code"], 3);
  EXPECT_FALSE(api["result"].contains("stdout"));
}

TEST(ProcessWire, MalformedInfoIsRefused) {
  EXPECT_FALSE(ProcessInfoFromWire(nlohmann::json::object()).ok());
  auto j = ProcessInfoToWire(ProcessInfo{.id = "p1"});
  j["state"] = "zombie";
  EXPECT_FALSE(ProcessInfoFromWire(j).ok());
}

TEST(ProcessWire, ProcessIds) {
  EXPECT_TRUE(CheckProcessId("p1").ok());
  EXPECT_TRUE(CheckProcessId("p32").ok());
  for (const char* bad : {"", "p", "p0", "p01", "1", "x1", "p1a", "p-1", "p12345678901234"}) {
    EXPECT_FALSE(CheckProcessId(bad).ok()) << bad;
  }
}

TEST(ProcessWire, Signals) {
  EXPECT_EQ(*ParseSignal("TERM"), SIGTERM);
  EXPECT_EQ(*ParseSignal("sigint"), SIGINT);
  EXPECT_EQ(*ParseSignal("9"), SIGKILL);
  EXPECT_EQ(*ParseSignal("HUP"), SIGHUP);
  EXPECT_FALSE(ParseSignal("STOP").ok());
  EXPECT_FALSE(ParseSignal("19").ok());
  EXPECT_FALSE(ParseSignal("NOPE").ok());
  EXPECT_FALSE(ParseSignal("0").ok());
  EXPECT_FALSE(ParseSignal("65").ok());
  EXPECT_FALSE(ParseSignal("").ok());
  EXPECT_EQ(SignalName(SIGTERM), "TERM");
}

TEST(ExecWire, DetachedRequestRoundTripsWithoutTimeout) {
  ExecRequest r;
  r.argv = {"sleep", "9"};
  r.detach = true;
  r.interactive = true;
  r.timeout_seconds = 0;
  auto back = ExecRequestFromWire(ExecRequestToWire(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back->detach);
  EXPECT_TRUE(back->interactive);
  EXPECT_EQ(back->timeout_seconds, 0);
}

TEST(ExecWire, NoTimeoutOrInteractiveWithoutDetach) {
  EXPECT_FALSE(ExecRequestFromWire(R"({"argv":["x"],"timeout_ms":0})").ok());
  EXPECT_FALSE(ExecRequestFromWire(R"({"argv":["x"],"interactive":true})").ok());
  EXPECT_FALSE(ExecRequestFromWire(R"({"argv":["x"],"detach":"yes"})").ok());
}

}  // namespace
}  // namespace agentbox
