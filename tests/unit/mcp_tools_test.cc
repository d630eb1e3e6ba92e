#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mcp/bash_tool.h"
#include "mcp/tool_args.h"
#include "mcp/tool_results.h"
#include "mcp/tool_schemas.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

TEST(McpToolSchemasTest, EveryToolHasNameDescriptionAndObjectSchema) {
  const json& tools = ToolDefinitions();
  ASSERT_EQ(tools.size(), 6u);
  for (const json& tool : tools) {
    EXPECT_TRUE(tool["name"].is_string());
    EXPECT_FALSE(tool["description"].get<std::string>().empty());
    EXPECT_EQ(tool["inputSchema"]["type"], "object") << tool["name"];
    if (tool.contains("outputSchema")) {
      EXPECT_EQ(tool["outputSchema"]["type"], "object");
    }
  }
  EXPECT_TRUE(IsKnownTool("bash"));
  EXPECT_TRUE(IsKnownTool("str_replace_based_edit_tool"));
  EXPECT_FALSE(IsKnownTool("rm_rf"));
}

TEST(McpToolSchemasTest, ExecOutputSchemaNamesEveryResultField) {
  for (const json& tool : ToolDefinitions()) {
    if (tool["name"] != "exec") continue;
    json result = json::parse(ExecResultToJson(ErrorResult("boom")));
    for (const auto& [key, value] : result.items()) {
      EXPECT_TRUE(tool["outputSchema"]["properties"].contains(key)) << key;
    }
  }
}

TEST(McpToolArgsTest, ExecArgvOrCommand) {
  auto a = ParseExecToolArgs({{"argv", {"echo", "hi"}}, {"env", {{"A", "1"}}}, {"timeout", 2.5}});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->argv, (std::vector<std::string>{"echo", "hi"}));
  EXPECT_EQ(a->env.size(), 1u);
  EXPECT_EQ(*a->timeout_seconds, 2.5);
  auto c = ParseExecToolArgs({{"command", "exit 3"}, {"cwd", "/tmp"}});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->argv, (std::vector<std::string>{"/bin/sh", "-c", "exit 3"}));
  EXPECT_EQ(*c->cwd, "/tmp");
}

TEST(McpToolArgsTest, ExecRejectsBadArguments) {
  for (const json& bad :
       {json::object(), json({{"argv", json::array()}}), json({{"argv", "ls"}}),
        json({{"argv", {1}}}), json({{"command", "ls"}, {"argv", {"ls"}}}),
        json({{"command", "ls"}, {"timeout", -1}}), json({{"command", "ls"}, {"timeout", 1e300}}),
        json({{"command", "ls"}, {"env", {{"A", 1}}}}),
        json({{"command", "ls"}, {"env", {{"A=B", "1"}}}}), json(5)}) {
    auto r = ParseExecToolArgs(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    }
  }
}

TEST(McpToolArgsTest, BashAndEditorAndFiles) {
  EXPECT_TRUE(ParseBashToolArgs({{"restart", true}}).ok());
  EXPECT_FALSE(ParseBashToolArgs(json::object()).ok());
  EXPECT_FALSE(ParseBashToolArgs({{"command", "ls"}, {"restart", "yes"}}).ok());
  auto e = ParseEditorToolArgs(
      {{"command", "insert"}, {"path", "/workspace/a"}, {"insert_line", 2.0}, {"new_str", "x"}});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(*e->insert_line, 2);
  EXPECT_FALSE(ParseEditorToolArgs({{"command", "view"}}).ok());
  EXPECT_FALSE(
      ParseEditorToolArgs({{"command", "insert"}, {"path", "/a"}, {"insert_line", 1.5}}).ok());
  auto w = ParseFileToolArgs(kWriteFileTool, {{"path", "a"}, {"content", "x"}, {"mode", 0755}});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->mode, 0755u);
  EXPECT_FALSE(
      ParseFileToolArgs(kWriteFileTool, {{"path", "a"}, {"content", "x"}, {"mode", 04755}}).ok());
  EXPECT_FALSE(ParseFileToolArgs(kWriteFileTool, {{"path", "a"}}).ok());
  EXPECT_EQ(ParseFileToolArgs(kListFilesTool, nullptr)->path, "/workspace");
  EXPECT_FALSE(ParseFileToolArgs(kReadFileTool, {{"path", "a"}, {"max_bytes", 0}}).ok());
}

TEST(McpBashToolTest, ScriptCarriesTheCommandAsItsOwnArgument) {
  std::vector<std::string> argv = BashCommandArgv("cd /tmp && echo '$HOME'");
  ASSERT_EQ(argv.size(), 5u);
  EXPECT_EQ(argv[0], "/bin/bash");
  EXPECT_EQ(argv[4], "cd /tmp && echo '$HOME'");  // never spliced into the script text
  EXPECT_NE(argv[2].find("trap __agentbox_save EXIT"), std::string::npos);
  EXPECT_NE(argv[2].find(kBashStateDir), std::string::npos);
}

TEST(McpBashToolTest, FormatsLikeAnthropicsTool) {
  ExecResult r;
  r.stdout_data = "hello\n";
  EXPECT_EQ(FormatBashResult(r, 60).text, "hello\n");
  r.exit_code = 2;
  BashToolText failed = FormatBashResult(r, 60);
  EXPECT_EQ(failed.text, "hello\n[exit code: 2]");
  EXPECT_FALSE(failed.is_error);
  r.reason = ExitReason::kTimeout;
  r.exit_code = 124;
  BashToolText timeout = FormatBashResult(r, 1.5);
  EXPECT_TRUE(timeout.is_error);
  EXPECT_NE(timeout.text.find("timeout: the command did not finish within 1.5 seconds"),
            std::string::npos);
}

TEST(McpToolResultsTest, ExecResultIsStructuredAndErrorsOnlyForFailures) {
  ExecResult r;
  r.exit_code = 3;
  r.stdout_data = "out\xff";
  json ok = ExecToolResult(r, 60);
  EXPECT_FALSE(ok["isError"].get<bool>());
  EXPECT_EQ(ok["structuredContent"]["exit_code"], 3);
  EXPECT_EQ(ok["structuredContent"]["stdout"], "out\xEF\xBF\xBD");
  EXPECT_EQ(json::parse(ok["content"][0]["text"].get<std::string>()), ok["structuredContent"]);
  r.reason = ExitReason::kOom;
  json oom = ExecToolResult(r, 60);
  EXPECT_TRUE(oom["isError"].get<bool>());
  EXPECT_EQ(oom["content"][0]["text"].get<std::string>().rfind("oom", 0), 0u);
}

TEST(McpToolResultsTest, TextResultShape) {
  json r = TextToolResult("hi");
  EXPECT_EQ(r, json::parse(R"({"content":[{"type":"text","text":"hi"}],"isError":false})"));
  EXPECT_TRUE(StatusToolResult(PermissionDenied("outside /workspace"))["isError"].get<bool>());
}

}  // namespace
}  // namespace agentbox::mcp
