#include <gtest/gtest.h>

#include "mcp/text_editor.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

constexpr const char* kFile = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n";

TEST(McpTextEditorTest, ViewNumbersLinesLikeCatN) {
  auto out = EditorViewFile("a\n\tb\n", "/workspace/x", nullptr);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out,
            "Here's the result of running `cat -n` on /workspace/x:\n"
            "     1\ta\n"
            "     2\t\tb\n");
}

TEST(McpTextEditorTest, ViewRange) {
  auto out = EditorViewFile(kFile, "/workspace/x", json::array({3, 4}));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(
      *out,
      "Here's the result of running `cat -n` on /workspace/x:\n     3\tthree\n     4\tfour\n");
  auto tail = EditorViewFile(kFile, "/workspace/x", json::array({9, -1}));
  ASSERT_TRUE(tail.ok());
  EXPECT_NE(tail->find("    10\tten\n"), std::string::npos);
  EXPECT_EQ(tail->find("eight"), std::string::npos);
}

TEST(McpTextEditorTest, ViewRangeErrors) {
  EXPECT_EQ(EditorViewFile(kFile, "/w", json::array({1})).status().message(),
            "Invalid `view_range`. It should be a list of two integers.");
  EXPECT_EQ(EditorViewFile(kFile, "/w", json::array({0, 2})).status().message(),
            "Invalid `view_range`: [0,2]. Its first element `0` should be within the range of "
            "lines of the file: [1, 10]");
  EXPECT_EQ(EditorViewFile(kFile, "/w", json::array({2, 11})).status().message(),
            "Invalid `view_range`: [2,11]. Its second element `11` should be smaller than the "
            "number of lines in the file: `10`");
  EXPECT_EQ(EditorViewFile(kFile, "/w", json::array({5, 4})).status().message(),
            "Invalid `view_range`: [5,4]. Its second element `4` should be larger or equal than "
            "its first `5`");
}

TEST(McpTextEditorTest, LongViewsAreClipped) {
  std::string big(kMaxEditorResponse + 100, 'x');
  auto out = EditorViewFile(big, "/w", nullptr);
  ASSERT_TRUE(out.ok());
  EXPECT_NE(out->find("<response clipped>"), std::string::npos);
  EXPECT_LT(out->size(), kMaxEditorResponse + 600);
}

// The tool's max_characters (text_editor_20250728) sets the clip, in characters.
TEST(McpTextEditorTest, MaxCharactersIsHonoured) {
  auto small = EditorViewFile(kFile, "/w", nullptr, 9);  // "one\ntwo\nt"
  ASSERT_TRUE(small.ok());
  EXPECT_NE(small->find("     2\ttwo\n     3\tt<response clipped>"), std::string::npos) << *small;
  EXPECT_EQ(small->find("four"), std::string::npos);
  auto ranged = EditorViewFile(kFile, "/w", json::array({3, 4}), 3);
  ASSERT_TRUE(ranged.ok());
  EXPECT_NE(ranged->find("     3\tthr<response clipped>"), std::string::npos) << *ranged;
  auto whole = EditorViewFile(kFile, "/w", nullptr, 1000);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->find("<response clipped>"), std::string::npos);
  std::string accents;
  for (int i = 0; i < 20; ++i) accents += "\xC3\xA9";
  auto wide = EditorViewFile(accents, "/w", nullptr, 5);
  ASSERT_TRUE(wide.ok());
  EXPECT_NE(wide->find("\t\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9<response clipped>"),
            std::string::npos)
      << "5 characters, 10 bytes, none split";
}

TEST(McpTextEditorTest, StrReplaceShowsASnippet) {
  auto edit = EditorStrReplace(kFile, "/workspace/x", "six", "SIX\nSIX2");
  ASSERT_TRUE(edit.ok());
  EXPECT_EQ(edit->new_content, "one\ntwo\nthree\nfour\nfive\nSIX\nSIX2\nseven\neight\nnine\nten\n");
  EXPECT_EQ(edit->message,
            "The file /workspace/x has been edited. Here's the result of running `cat -n` on a "
            "snippet of /workspace/x:\n"
            "     2\ttwo\n     3\tthree\n     4\tfour\n     5\tfive\n     6\tSIX\n     7\tSIX2\n"
            "     8\tseven\n     9\teight\n    10\tnine\n    11\tten\n"
            "Review the changes and make sure they are as expected. Edit the file again if "
            "necessary.");
}

TEST(McpTextEditorTest, StrReplaceErrors) {
  EXPECT_EQ(EditorStrReplace(kFile, "/workspace/x", "zero", "0").status().message(),
            "No replacement was performed, old_str `zero` did not appear verbatim in "
            "/workspace/x.");
  EXPECT_EQ(EditorStrReplace(kFile, "/workspace/x", "e\n", "E").status().message(),
            "No replacement was performed. Multiple occurrences of old_str `e\n` in lines "
            "[1, 3, 5, 9]. Please ensure it is unique");
  EXPECT_FALSE(EditorStrReplace(kFile, "/workspace/x", "", "E").ok());
}

TEST(McpTextEditorTest, StrReplaceWithEmptyNewStrDeletes) {
  auto edit = EditorStrReplace("a\nb\nc\n", "/w", "b\n", "");
  ASSERT_TRUE(edit.ok());
  EXPECT_EQ(edit->new_content, "a\nc\n");
}

TEST(McpTextEditorTest, Insert) {
  auto top = EditorInsert("a\nb\n", "/w", 0, "first");
  ASSERT_TRUE(top.ok());
  EXPECT_EQ(top->new_content, "first\na\nb\n");
  auto end = EditorInsert("a\nb\n", "/w", 2, "x\ny\n");
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(end->new_content, "a\nb\nx\ny\n");
  EXPECT_EQ(end->message,
            "The file /w has been edited. Here's the result of running `cat -n` on a snippet of "
            "the edited file:\n     1\ta\n     2\tb\n     3\tx\n     4\ty\n"
            "Review the changes and make sure they are as expected (correct indentation, no "
            "duplicate lines, etc). Edit the file again if necessary.");
  auto no_newline = EditorInsert("a", "/w", 1, "b");
  ASSERT_TRUE(no_newline.ok());
  EXPECT_EQ(no_newline->new_content, "a\nb");
  EXPECT_EQ(EditorInsert("a\nb\n", "/w", 3, "x").status().message(),
            "Invalid `insert_line` parameter: 3. It should be within the range of lines of the "
            "file: [0, 2]");
}

TEST(McpTextEditorTest, DirectoryListing) {
  EXPECT_EQ(EditorViewDirectory("/workspace", {"a", "src", "src/main.c"}),
            "Here's the files and directories up to 2 levels deep in /workspace, excluding hidden "
            "items:\n/workspace\n/workspace/a\n/workspace/src\n/workspace/src/main.c\n");
}

TEST(McpTextEditorTest, Messages) {
  EXPECT_EQ(EditorPathError("/workspace/a"), "");
  EXPECT_EQ(EditorPathError("a.txt"),
            "The path a.txt is not an absolute path, it should start with `/`. Maybe you meant "
            "/workspace/a.txt?");
  EXPECT_EQ(EditorCreated("/workspace/a"), "File created successfully at: /workspace/a");
  EXPECT_EQ(EditorMissingParameter("old_str", "str_replace"),
            "Parameter `old_str` is required for command: str_replace");
}

}  // namespace
}  // namespace agentbox::mcp
