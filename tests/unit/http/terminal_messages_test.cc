#include "http/terminal_messages.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

using Kind = TerminalEvent::Kind;

ws::Message Text(std::string s) { return {ws::Opcode::kText, std::move(s)}; }

TEST(TerminalStart, ExecBodyAndWindowSize) {
  auto start = ParseTerminalStart(R"({"argv":["sh"],"cwd":"/tmp","rows":33,"cols":101})");
  ASSERT_TRUE(start.ok()) << start.status().message();
  EXPECT_EQ(start->size.rows, 33);
  EXPECT_EQ(start->size.cols, 101);
  EXPECT_EQ(start->exec_body, nlohmann::json::parse(R"({"argv":["sh"],"cwd":"/tmp"})"));
}

TEST(TerminalStart, DefaultSizeIs24By80) {
  auto start = ParseTerminalStart(R"({"argv":["sh"]})");
  ASSERT_TRUE(start.ok());
  EXPECT_EQ(start->size.rows, 24);
  EXPECT_EQ(start->size.cols, 80);
}

TEST(TerminalStart, RefusesWhatIsNoExecBodyForATerminal) {
  for (const char* bad : {
           "",
           "{",
           "[1]",
           R"("sh")",
           R"({"argv":["sh"],"rows":0})",
           R"({"argv":["sh"],"cols":1001})",
           R"({"argv":["sh"],"rows":-1})",
           R"({"argv":["sh"],"rows":"24"})",
           R"({"argv":["sh"],"rows":2.5})",
           R"({"argv":["sh"],"stdin":"x"})",
           R"({"argv":["sh"],"stream":"ndjson"})",
           R"({"argv":["sh"],"detach":true})",
           R"({"argv":["sh"],"interactive":false})",
       }) {
    auto start = ParseTerminalStart(bad);
    ASSERT_FALSE(start.ok()) << bad;
    EXPECT_EQ(start.status().code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_NE(ParseTerminalStart(R"({"argv":["sh"],"stdin":"x"})").status().message().find("stdin"),
            std::string::npos);
}

TEST(TerminalMessage, BinaryIsKeys) {
  auto event = ParseTerminalMessage({ws::Opcode::kBinary, std::string("ls\r\x03", 4)});
  ASSERT_TRUE(event.ok());
  EXPECT_EQ(event->kind, Kind::kInput);
  EXPECT_EQ(event->bytes, std::string("ls\r\x03", 4));
}

TEST(TerminalMessage, ResizeAndEof) {
  auto resize = ParseTerminalMessage(Text(R"({"type":"resize","rows":40,"cols":120})"));
  ASSERT_TRUE(resize.ok()) << resize.status().message();
  EXPECT_EQ(resize->kind, Kind::kResize);
  EXPECT_EQ(resize->size.rows, 40);
  EXPECT_EQ(resize->size.cols, 120);
  auto eof = ParseTerminalMessage(Text(R"({"type":"eof"})"));
  ASSERT_TRUE(eof.ok());
  EXPECT_EQ(eof->kind, Kind::kEndOfInput);
}

TEST(TerminalMessage, RefusesOtherText) {
  for (const char* bad : {
           "ls\n",
           "{}",
           R"({"type":"input","data":"ls"})",
           R"({"type":"resize","rows":40})",
           R"({"type":"resize","rows":0,"cols":80})",
           R"({"type":"resize","rows":40,"cols":80,"x":1})",
           R"({"type":"eof","now":true})",
           R"({"type":7})",
       }) {
    EXPECT_FALSE(ParseTerminalMessage(Text(bad)).ok()) << bad;
  }
  EXPECT_FALSE(ParseTerminalMessage({ws::Opcode::kPing, ""}).ok());
}

TEST(TerminalServerMessages, ResultErrorAndCloseCodes) {
  ExecResult r;
  r.exit_code = 7;
  auto result = nlohmann::json::parse(TerminalResultMessage(r));
  EXPECT_EQ(result["type"], "result");
  EXPECT_EQ(result["result"]["exit_code"], 7);
  auto error = nlohmann::json::parse(TerminalErrorMessage(InvalidArgument("bad \xff")));
  EXPECT_EQ(error["type"], "error");
  EXPECT_EQ(error["code"], "invalid_argument");
  EXPECT_EQ(TerminalCloseCode(InvalidArgument("x")), ws::kClosePolicyViolation);
  EXPECT_EQ(TerminalCloseCode(NotFound("x")), ws::kClosePolicyViolation);
  EXPECT_EQ(TerminalCloseCode(Unavailable("x")), ws::kCloseTryAgainLater);
  EXPECT_EQ(TerminalCloseCode(Internal("x")), ws::kCloseInternalError);
}

}  // namespace
}  // namespace agentbox
