#include "spec/cli_flags.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

constexpr FlagDef kDefs[] = {
    {"name", 'n', "NAME", "a name"},
    {"force", 'f', "", "force it"},
};

TEST(ParseFlagsTest, FormsAndRest) {
  StatusOr<ParsedArgs> p =
      ParseFlags(kDefs, {"-f", "--name", "a", "--name=b", "-nc", "-n", "d", "id", "-f"});
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->flags.size(), 5u);
  EXPECT_EQ(p->flags[0].def->long_name, "force");
  EXPECT_EQ(p->flags[1].value, "a");
  EXPECT_EQ(p->flags[2].value, "b");
  EXPECT_EQ(p->flags[3].value, "c");
  EXPECT_EQ(p->flags[4].value, "d");
  EXPECT_EQ(p->rest, (std::vector<std::string>{"id", "-f"}));
}

TEST(ParseFlagsTest, ValuesMayLookLikeOptions) {
  StatusOr<ParsedArgs> p = ParseFlags(kDefs, {"--name", "--force", "--name="});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->flags[0].value, "--force");
  EXPECT_EQ(p->flags[1].value, "");
  EXPECT_TRUE(p->rest.empty());
}

TEST(ParseFlagsTest, Errors) {
  EXPECT_EQ(ParseFlags(kDefs, {"--nam"}).status().message(), "unknown option \"--nam\"");
  EXPECT_EQ(ParseFlags(kDefs, {"-fx"}).status().message(), "unknown option \"-fx\"");
  EXPECT_EQ(ParseFlags(kDefs, {"--force=1"}).status().message(), "option --force takes no value");
  EXPECT_EQ(ParseFlags(kDefs, {"-n"}).status().message(), "option -n needs a value (NAME)");
}

TEST(ParseFlagsTest, ClustersOfFlagsWithoutValues) {
  constexpr FlagDef kTwo[] = {
      {"interactive", 'i', "", ""}, {"tty", 't', "", ""}, {"name", 'n', "NAME", ""}};
  StatusOr<ParsedArgs> p = ParseFlags(kTwo, {"-it", "-ti", "id"});
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->flags.size(), 4u);
  EXPECT_EQ(p->flags[0].def->long_name, "interactive");
  EXPECT_EQ(p->flags[1].def->long_name, "tty");
  EXPECT_EQ(p->flags[3].def->long_name, "interactive");
  EXPECT_EQ(p->rest, (std::vector<std::string>{"id"}));
  // A value flag inside a cluster is refused, and a value flag first keeps "-xvalue".
  EXPECT_EQ(ParseFlags(kTwo, {"-in"}).status().message(), "unknown option \"-in\"");
  EXPECT_EQ(ParseFlags(kTwo, {"-nit"})->flags[0].value, "it");
}

TEST(FormatFlagHelpTest, Aligned) {
  EXPECT_EQ(FormatFlagHelp(kDefs),
            "  -n, --name NAME   a name\n"
            "  -f, --force       force it\n");
}

// Defaults shown, hidden flags left out, long help wrapped under its column, and a flag too
// long for the column on a line of its own.
TEST(FormatFlagHelpTest, DefaultsHiddenWrappedAndLongFlags) {
  constexpr FlagDef kMore[] = {
      {"size", 's', "N", "how many", "2"},
      {"key", 0, "KEY", "internal", "", true},
      {"allow-root-owned-workspace-please", 0, "", "short"},
      {"text", 0, "T",
       "a help text long enough that it cannot fit on one line of eighty columns and so must wrap"},
  };
  EXPECT_EQ(FormatFlagHelp(kMore),
            "  -s, --size N   how many (default: 2)\n"
            "      --allow-root-owned-workspace-please\n"
            "                 short\n"
            "      --text T   a help text long enough that it cannot fit on one line of\n"
            "                 eighty columns and so must wrap\n");
}

// `rm ID -f` as docker takes it: options after operands; "--" still ends them.
TEST(ParseFlagsInterspersedTest, OptionsAfterOperands) {
  StatusOr<ParsedArgs> p = ParseFlagsInterspersed(kDefs, {"a", "-f", "b", "--name", "x", "-", "c"});
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->flags.size(), 2u);
  EXPECT_EQ(p->flags[0].def->long_name, "force");
  EXPECT_EQ(p->flags[1].value, "x");
  EXPECT_EQ(p->rest, (std::vector<std::string>{"a", "b", "-", "c"}));
  p = ParseFlagsInterspersed(kDefs, {"a", "--", "-f", "b"});
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->flags.empty());
  EXPECT_EQ(p->rest, (std::vector<std::string>{"a", "-f", "b"}));
  EXPECT_FALSE(ParseFlagsInterspersed(kDefs, {"a", "--bad"}).ok());
}

}  // namespace
}  // namespace agentbox
