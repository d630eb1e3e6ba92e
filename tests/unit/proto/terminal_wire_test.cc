#include "proto/terminal_wire.h"

#include <gtest/gtest.h>

#include "proto/exec_wire.h"

namespace agentbox {
namespace {

TEST(TerminalWireTest, WindowSizeRoundTrips) {
  auto back = WindowSizeFromWire(WindowSizeToWire({50, 132}));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->rows, 50);
  EXPECT_EQ(back->cols, 132);
}

TEST(TerminalWireTest, BadWindowSizesAreRefused) {
  for (const char* bad : {R"({"rows":0,"cols":80})", R"({"rows":24,"cols":1001})", R"({"rows":24})",
                          R"({"rows":-1,"cols":80})", R"({"rows":"24","cols":80})", R"([24,80])",
                          "{", R"({"rows":1e999,"cols":1})"}) {
    EXPECT_EQ(WindowSizeFromWire(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(TerminalWireTest, ExecRequestCarriesTheTerminal) {
  ExecRequest r;
  r.argv = {"sh"};
  r.tty = true;
  r.rows = 40;
  r.cols = 100;
  auto back = ExecRequestFromWire(ExecRequestToWire(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back->tty);
  EXPECT_EQ(back->rows, 40);
  EXPECT_EQ(back->cols, 100);
}

// A terminal is the command's stdin: a passed stdin fd or a background process has none.
TEST(TerminalWireTest, TerminalIsForegroundOnly) {
  for (const char* extra :
       {R"("stdin":true)", R"("detach":true)", R"("rows":0)", R"("cols":100000)"}) {
    auto r = ExecRequestFromWire(std::string(R"({"argv":["sh"],"tty":true,)") + extra + "}");
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << extra;
  }
}

}  // namespace
}  // namespace agentbox
