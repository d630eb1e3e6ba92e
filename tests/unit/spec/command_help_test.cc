#include "spec/command_help.h"

#include <gtest/gtest.h>

#include "spec/completion.h"
#include "spec/run_args.h"

namespace agentbox {
namespace {

constexpr FlagDef kFlags[] = {
    {"json", 0, "", "print JSON"},
    {"quiet", 'q', "", "only ids"},
    {"format", 0, "FORMAT", "a -template- with \\t", "none"},
    {"key", 0, "KEY", "internal", "", true},
    {"help", 'h', "", "show this help"},
};

const CommandHelp kHelp = {
    .name = "ls",
    .summary = "list sandboxes",
    .usage = "ls [--json]\nls -q",
    .description =
        "Lists the sandboxes, newest first, in a paragraph that is long enough to be "
        "wrapped at eighty columns by the help formatter.\n"
        "\n"
        "  agentbox ls -q\n"
        ".dot starts this line",
    .flags = kFlags,
    .notes = "Exit status: 0.",
    .operands = "sandbox",
};

TEST(FormatHelpTest, UsageDescriptionOptionsNotes) {
  EXPECT_EQ(FormatHelp(kHelp),
            "Usage: agentbox ls [--json]\n"
            "       agentbox ls -q\n"
            "\n"
            "Lists the sandboxes, newest first, in a paragraph that is long enough to be\n"
            "wrapped at eighty columns by the help formatter.\n"
            "\n"
            "  agentbox ls -q\n"
            ".dot starts this line\n"
            "\n"
            "Options:\n"
            "      --json            print JSON\n"
            "  -q, --quiet           only ids\n"
            "      --format FORMAT   a -template- with \\t (default: none)\n"
            "  -h, --help            show this help\n"
            "\n"
            "Exit status: 0.\n");
}

TEST(FormatManPageTest, RoffFromTheSameTable) {
  const std::string page = FormatManPage(kHelp, "9.9");
  EXPECT_NE(page.find(".TH \"AGENTBOX-LS\" 1 \"\" \"agentbox 9.9\""), std::string::npos) << page;
  EXPECT_NE(page.find("agentbox\\-ls \\- list sandboxes"), std::string::npos) << page;
  EXPECT_NE(page.find("\\fBagentbox ls\\fR [\\-\\-json]"), std::string::npos) << page;
  // Every visible flag, its value and default; backslashes and a leading dot escaped.
  EXPECT_NE(page.find(".TP\n\\fB\\-q\\fR, \\fB\\-\\-quiet\\fR\nonly ids\n"), std::string::npos);
  EXPECT_NE(page.find("\\fB\\-\\-format\\fR \\fIFORMAT\\fR\na \\-template\\- with \\et (default: "
                      "none)"),
            std::string::npos)
      << page;
  EXPECT_EQ(page.find("internal"), std::string::npos);
  EXPECT_NE(page.find("\\&.dot starts"), std::string::npos) << page;
  EXPECT_NE(page.find(".nf\nagentbox ls \\-q\n.fi"), std::string::npos) << page;
  EXPECT_NE(page.find(".SH NOTES\nExit status: 0.\n"), std::string::npos);
}

TEST(FormatManPageTest, ProgramPageListsCommands) {
  const CommandHelp program = {.name = "agentbox", .summary = "a sandbox", .usage = "COMMAND"};
  const CommandHelp* commands[] = {&kHelp};
  const std::string page = FormatManPage(program, "1", commands);
  EXPECT_NE(page.find(".TH \"AGENTBOX\" 1"), std::string::npos);
  EXPECT_NE(page.find("\\fBagentbox ls\\fR\nlist sandboxes (\\fBagentbox\\-ls\\fR(1))"),
            std::string::npos)
      << page;
}

TEST(FormatCompletionTest, EveryShellOffersTheFlagsOfTheTable) {
  const CommandHelp* commands[] = {&kHelp, &RunHelp()};
  for (const char* shell : {"bash", "zsh", "fish"}) {
    StatusOr<std::string> script = FormatCompletion(shell, commands);
    ASSERT_TRUE(script.ok()) << shell;
    for (const char* want : {"ls", "run", "quiet", "format", "memory", "_agentbox_sandboxes"}) {
      const std::string needle =
          std::string(shell) == "fish" && want[0] == '_' ? "__agentbox_sandboxes" : want;
      EXPECT_NE(script->find(needle), std::string::npos) << shell << ": " << want;
    }
    EXPECT_EQ(script->find("internal"), std::string::npos) << shell;
  }
  EXPECT_FALSE(FormatCompletion("tcsh", commands).ok());
}

TEST(FormatHelpTextTest, WrapsParagraphsKeepsExamples) {
  EXPECT_EQ(FormatHelpText("one two three\nfour\n\n  keep   this", 9),
            "one two\nthree\nfour\n\n  keep   this\n");
}

}  // namespace
}  // namespace agentbox
