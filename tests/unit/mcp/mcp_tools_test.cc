#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "base/utf8.h"
#include "mcp/bash_tool.h"
#include "mcp/tool_args.h"
#include "mcp/tool_results.h"
#include "mcp/tool_schemas.h"
#include "proto/process_wire.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

TEST(McpToolSchemasTest, EveryToolHasNameDescriptionAndObjectSchema) {
  const json& tools = ToolDefinitions();
  ASSERT_EQ(tools.size(), 16u);
  for (const json& tool : tools) {
    EXPECT_TRUE(tool["name"].is_string());
    EXPECT_FALSE(tool["description"].get<std::string>().empty());
    EXPECT_EQ(tool["inputSchema"]["type"], "object") << tool["name"];
    if (tool.contains("outputSchema")) {
      EXPECT_EQ(tool["outputSchema"]["type"], "object");
    }
  }
  EXPECT_TRUE(IsKnownTool("bash"));
  EXPECT_TRUE(IsKnownTool("exec"));
  EXPECT_TRUE(IsKnownTool("str_replace_based_edit_tool"));
  for (const char* name : {"process_list", "process_output", "process_kill", "process_stdin"}) {
    EXPECT_TRUE(IsKnownTool(name)) << name;
    EXPECT_TRUE(IsProcessTool(name)) << name;
  }
  EXPECT_FALSE(IsProcessTool("bash"));
  EXPECT_FALSE(IsKnownTool("rm_rf"));
}

// Clients decide from these whether to ask the user first: every tool says all four, and none
// claims an open world while the sandbox has no network.
TEST(McpToolSchemasTest, EveryToolIsAnnotated) {
  for (const json& tool : ToolDefinitions()) {
    const json& a = tool["annotations"];
    ASSERT_TRUE(a.is_object()) << tool["name"];
    for (const char* hint :
         {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}) {
      EXPECT_TRUE(a[hint].is_boolean()) << tool["name"] << " " << hint;
    }
    EXPECT_FALSE(a["openWorldHint"].get<bool>()) << tool["name"];
    const std::string name = tool["name"];
    const bool read_only = name == "read_file" || name == "list_files" || name == "process_list" ||
                           name == "process_output" || name == "snapshot_list" ||
                           name == "snapshot_diff" || name == "session_log";
    EXPECT_EQ(a["readOnlyHint"].get<bool>(), read_only) << name;
    // A snapshot only adds one: it writes, and destroys nothing.
    EXPECT_EQ(a["destructiveHint"].get<bool>(), !read_only && name != "snapshot_create") << name;
  }
}

// With allow_hosts the tools that run commands reach those hosts, and say so; the rest do not.
TEST(McpToolSchemasTest, EgressOpensTheWorldOfBashAndExec) {
  const json& open = ToolDefinitions(/*open_world=*/true);
  ASSERT_EQ(open.size(), ToolDefinitions().size());
  for (size_t i = 0; i < open.size(); ++i) {
    const bool runs = open[i]["name"] == "bash" || open[i]["name"] == "exec";
    EXPECT_EQ(open[i]["annotations"]["openWorldHint"].get<bool>(), runs) << open[i]["name"];
    json closed = ToolDefinitions()[i];
    closed["annotations"]["openWorldHint"] = runs;
    EXPECT_EQ(open[i], closed) << "only the hint differs: " << open[i]["name"];
  }
}

TEST(McpToolSchemasTest, NewArgumentsAreDeclared) {
  for (const json& tool : ToolDefinitions()) {
    const json& props = tool["inputSchema"]["properties"];
    if (tool["name"] == "bash") {
      EXPECT_TRUE(props.contains("timeout"));
    }
    if (tool["name"] == "exec") {
      EXPECT_TRUE(props.contains("stdin"));
      EXPECT_TRUE(props.contains("output_limit"));
      EXPECT_TRUE(props.contains("background"));
      EXPECT_TRUE(props.contains("interactive"));
    }
    if (tool["name"] == "bash") {
      EXPECT_TRUE(props.contains("background"));
    }
    if (tool["name"] == "process_output") {
      EXPECT_TRUE(props.contains("wait_seconds"));
    }
    if (tool["name"] == "str_replace_based_edit_tool") {
      EXPECT_TRUE(props.contains("max_characters"));
    }
  }
}

// exec answers with its result, or with the process it started in the background.
TEST(McpToolSchemasTest, ExecOutputSchemaNamesEveryResultField) {
  int seen = 0;
  for (const json& tool : ToolDefinitions()) {
    if (tool["name"] != "exec") continue;
    ++seen;
    const json& any_of = tool["outputSchema"]["anyOf"];
    ASSERT_EQ(any_of.size(), 2u);
    json result = json::parse(ExecResultToJson(ErrorResult(Internal("boom"))));
    for (const auto& [key, value] : result.items()) {
      EXPECT_TRUE(any_of[0]["properties"].contains(key)) << key;
    }
    EXPECT_TRUE(any_of[1]["properties"].contains("stdin_open"));
  }
  EXPECT_EQ(seen, 1);
}

ProcessInfo ExitedProcess() {
  ProcessInfo info;
  info.id = "p2";
  info.argv = {"/bin/bash", "-c", "make -j4", "bash"};
  info.state = ProcessState::kExited;
  info.result = ExecResult{};
  info.result->exit_code = 0;
  return info;
}

// Clients validate structuredContent against outputSchema: every key ProcessInfoToJson writes is
// declared, and required, wherever the process schema is used.
TEST(McpToolSchemasTest, ProcessSchemasNameEveryProcessField) {
  json info = json::parse(ProcessInfoToJson(ExitedProcess()));
  std::map<std::string, json> schema;
  for (const json& tool : ToolDefinitions()) {
    if (tool.contains("outputSchema")) schema[tool["name"]] = tool["outputSchema"];
  }
  const json process_schemas[] = {schema["process_kill"], schema["process_stdin"],
                                  schema["process_output"]["properties"]["process"],
                                  schema["process_list"]["properties"]["processes"]["items"],
                                  schema["exec"]["anyOf"][1]};
  for (const json& s : process_schemas) {
    ASSERT_EQ(s["type"], "object") << s;
    for (const auto& [key, value] : info.items()) {
      EXPECT_TRUE(s["properties"].contains(key)) << key;
      EXPECT_NE(std::find(s["required"].begin(), s["required"].end(), key), s["required"].end())
          << key;
    }
  }
  EXPECT_EQ(schema["process_output"]["required"], json({"output", "from", "next", "process"}));
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
  EXPECT_FALSE(c->stdin_data);
  EXPECT_FALSE(c->output_limit);
  auto io = ParseExecToolArgs({{"command", "cat"}, {"stdin", "in\n"}, {"output_limit", "64K"}});
  ASSERT_TRUE(io.ok());
  EXPECT_EQ(*io->stdin_data, "in\n");
  EXPECT_EQ(*io->output_limit, 65536u);
  EXPECT_EQ(*ParseExecToolArgs({{"command", "cat"}, {"output_limit", 100}})->output_limit, 100u);
}

TEST(McpToolArgsTest, ExecRejectsBadArguments) {
  for (const json& bad :
       {json::object(), json({{"argv", json::array()}}), json({{"argv", "ls"}}),
        json({{"argv", {1}}}), json({{"command", "ls"}, {"argv", {"ls"}}}),
        json({{"command", "ls"}, {"timeout", -1}}), json({{"command", "ls"}, {"timeout", 1e300}}),
        json({{"command", "ls"}, {"env", {{"A", 1}}}}),
        json({{"command", "ls"}, {"env", {{"A=B", "1"}}}}), json(5),
        json({{"command", "ls"}, {"stdin", 5}}), json({{"command", "ls"}, {"output_limit", 0}}),
        json({{"command", "ls"}, {"output_limit", -4}}),
        json({{"command", "ls"}, {"output_limit", "lots"}})}) {
    auto r = ParseExecToolArgs(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    }
  }
}

TEST(McpToolArgsTest, BackgroundAndInteractive) {
  auto e = ParseExecToolArgs({{"command", "cat"}, {"background", true}, {"interactive", true}});
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->background);
  EXPECT_TRUE(e->interactive);
  EXPECT_FALSE(ParseExecToolArgs({{"command", "ls"}})->background);
  auto lone = ParseExecToolArgs({{"command", "cat"}, {"interactive", true}});
  ASSERT_FALSE(lone.ok());
  EXPECT_NE(lone.status().message().find("needs `background`"), std::string::npos);
  EXPECT_FALSE(ParseExecToolArgs({{"command", "ls"}, {"background", "yes"}}).ok());
  EXPECT_TRUE(ParseBashToolArgs({{"command", "sleep 9"}, {"background", true}})->background);
  EXPECT_FALSE(ParseBashToolArgs({{"restart", true}, {"background", true}}).ok());
  EXPECT_FALSE(ParseBashToolArgs({{"command", "ls"}, {"background", 1}}).ok());
}

TEST(McpToolArgsTest, ProcessTools) {
  EXPECT_TRUE(ParseProcessToolArgs(kProcessListTool, nullptr).ok());
  auto out = ParseProcessToolArgs(kProcessOutputTool, {{"proc", "p12"}, {"wait_seconds", 2.5}});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->proc, "p12");
  EXPECT_EQ(*out->wait_seconds, 2.5);
  EXPECT_FALSE(ParseProcessToolArgs(kProcessOutputTool, {{"proc", "p1"}})->wait_seconds);
  EXPECT_FALSE(
      ParseProcessToolArgs(kProcessOutputTool, {{"proc", "p1"}, {"wait_seconds", -1}}).ok());
  EXPECT_FALSE(
      ParseProcessToolArgs(kProcessOutputTool, {{"proc", "p1"}, {"wait_seconds", "5"}}).ok());
  for (const json& bad : {json::object(), json({{"proc", 1}}), json({{"proc", "1"}}),
                          json({{"proc", "p0"}}), json({{"proc", "x; rm -rf /"}})}) {
    auto r = ParseProcessToolArgs(kProcessKillTool, bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  }
  auto bad_id = ParseProcessToolArgs(kProcessOutputTool, {{"proc", "q7"}});
  EXPECT_EQ(bad_id.status().message(),
            "invalid arguments: `proc` must be a process id such as p1 (see process_list), not "
            "\"q7\"");
  EXPECT_EQ(ParseProcessToolArgs(kProcessKillTool, {{"proc", "p1"}})->signal, SIGTERM);
  EXPECT_EQ(ParseProcessToolArgs(kProcessKillTool, {{"proc", "p1"}, {"signal", "kill"}})->signal,
            SIGKILL);
  EXPECT_EQ(ParseProcessToolArgs(kProcessKillTool, {{"proc", "p1"}, {"signal", "SIGINT"}})->signal,
            SIGINT);
  EXPECT_EQ(ParseProcessToolArgs(kProcessKillTool, {{"proc", "p1"}, {"signal", 1}})->signal,
            SIGHUP);
  auto bad_signal = ParseProcessToolArgs(kProcessKillTool, {{"proc", "p1"}, {"signal", "BOGUS"}});
  ASSERT_FALSE(bad_signal.ok());
  EXPECT_NE(bad_signal.status().message().find("unknown signal \"BOGUS\""), std::string::npos);
  EXPECT_FALSE(ParseProcessToolArgs(kProcessKillTool, {{"proc", "p1"}, {"signal", "STOP"}}).ok());
  EXPECT_FALSE(ParseProcessToolArgs(kProcessKillTool, {{"proc", "p1"}, {"signal", 1.5}}).ok());
  auto in = ParseProcessToolArgs(kProcessStdinTool, {{"proc", "p3"}, {"data", "hi\n"}});
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->data, "hi\n");
  EXPECT_FALSE(in->close);
  EXPECT_TRUE(ParseProcessToolArgs(kProcessStdinTool, {{"proc", "p3"}, {"close", true}})->close);
  EXPECT_FALSE(ParseProcessToolArgs(kProcessStdinTool, {{"proc", "p3"}}).ok());
  EXPECT_FALSE(ParseProcessToolArgs(kProcessStdinTool, {{"proc", "p3"}, {"data", 5}}).ok());
  EXPECT_FALSE(ParseProcessToolArgs(kProcessStdinTool,
                                    {{"proc", "p3"}, {"data", std::string((1 << 20) + 1, 'x')}})
                   .ok());
}

TEST(McpToolArgsTest, BashAndEditorAndFiles) {
  EXPECT_TRUE(ParseBashToolArgs({{"restart", true}}).ok());
  EXPECT_FALSE(ParseBashToolArgs(json::object()).ok());
  EXPECT_FALSE(ParseBashToolArgs({{"command", "ls"}, {"restart", "yes"}}).ok());
  EXPECT_EQ(*ParseBashToolArgs({{"command", "ls"}, {"timeout", 300}})->timeout_seconds, 300);
  EXPECT_FALSE(ParseBashToolArgs({{"command", "ls"}})->timeout_seconds);
  EXPECT_FALSE(ParseBashToolArgs({{"command", "ls"}, {"timeout", 0}}).ok());
  EXPECT_FALSE(ParseBashToolArgs({{"command", "ls"}, {"timeout", "5"}}).ok());
  EXPECT_EQ(*ParseEditorToolArgs({{"command", "view"}, {"path", "/w"}, {"max_characters", 10}})
                 ->max_characters,
            10u);
  EXPECT_FALSE(
      ParseEditorToolArgs({{"command", "view"}, {"path", "/w"}, {"max_characters", 0}}).ok());
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

// The command is bash's own -c string (messages and ps read as a plain bash's); the wrapper
// comes on stdin through BASH_ENV, never spliced together with the command.
TEST(McpBashToolTest, CommandIsBashsOwnScriptAndTheWrapperComesOnStdin) {
  BashInvocation bash = BashCommand("cd /tmp && echo '$HOME'");
  EXPECT_EQ(bash.argv,
            (std::vector<std::string>{"/bin/bash", "-c", "cd /tmp && echo '$HOME'", "bash"}));
  EXPECT_EQ(bash.env,
            (std::vector<std::pair<std::string, std::string>>{{"BASH_ENV", "/proc/self/fd/0"}}));
  EXPECT_EQ(bash.stdin_script.rfind("unset BASH_ENV\n", 0), 0u) << "no child shell re-reads it";
  EXPECT_NE(bash.stdin_script.find("trap __agentbox_save EXIT"), std::string::npos);
  EXPECT_NE(bash.stdin_script.find("declare -p"), std::string::npos) << "unexported variables";
  EXPECT_NE(bash.stdin_script.find("</dev/null"), std::string::npos) << "stdin is not the script";
  EXPECT_NE(bash.stdin_script.find(kBashStateDir), std::string::npos);
  EXPECT_EQ(bash.stdin_script.find("cd /tmp"), std::string::npos);
}

// A background command is the same `bash -c COMMAND`, restoring the saved state read only from
// the script every call's prologue writes; nothing comes on its stdin.
TEST(McpBashToolTest, BackgroundCommandRestoresTheStateAndSavesNone) {
  BashInvocation bg = BashBackgroundCommand("npm start");
  EXPECT_EQ(bg.argv, (std::vector<std::string>{"/bin/bash", "-c", "npm start", "bash"}));
  EXPECT_EQ(bg.env,
            (std::vector<std::pair<std::string, std::string>>{{"BASH_ENV", kBashRestoreScript}}));
  EXPECT_TRUE(bg.stdin_script.empty());
  const std::string prologue = BashCommand("true").stdin_script;
  EXPECT_NE(prologue.find(std::string("\"$__agentbox_state/restore\"")), std::string::npos);
  const size_t restore = prologue.find("__agentbox_restore='unset BASH_ENV\n");
  ASSERT_NE(restore, std::string::npos);
  const size_t end = prologue.find('\'', restore + 20);
  const std::string script = prologue.substr(restore + 20, end - restore - 20);
  EXPECT_NE(script.find(". /tmp/.agentbox_bash/env"), std::string::npos) << script;
  EXPECT_NE(script.find("/tmp/.agentbox_bash/cwd"), std::string::npos) << script;
  EXPECT_EQ(script.find("trap"), std::string::npos) << "a background command saves nothing";
  EXPECT_NE(prologue.find("\ntrap __agentbox_save EXIT\n", end), std::string::npos)
      << "the whole restore script is inside its quotes";
}

TEST(McpBashToolTest, FormatsLikeAnthropicsTool) {
  ExecResult r;
  r.stdout_data = "hello\n";
  EXPECT_EQ(FormatBashResult(r, {}).text, "hello\n");
  r.exit_code = 2;
  BashToolText failed = FormatBashResult(r, {});
  EXPECT_EQ(failed.text, "hello\n[exit code: 2]");
  EXPECT_FALSE(failed.is_error);
  r.reason = ExitReason::kTimeout;
  r.exit_code = 124;
  BashToolText timeout = FormatBashResult(r, {.timeout_seconds = 1.5});
  EXPECT_TRUE(timeout.is_error);
  EXPECT_NE(timeout.text.find("timeout: the command did not finish within 1.5 seconds"),
            std::string::npos);
}

// The limits are said in words, with their values, as the model needs to act on them.
TEST(McpBashToolTest, LimitsAreSaidInWords) {
  const CommandLimits limits{60, 512ull << 20, 256, 1 << 20};
  ExecResult oom;
  oom.reason = ExitReason::kOom;
  oom.exit_code = 137;
  oom.AddLimitHit(kLimitMemory);
  BashToolText killed = FormatBashResult(oom, limits);
  EXPECT_TRUE(killed.is_error);
  EXPECT_EQ(killed.text, "killed: memory limit 512M reached");

  ExecResult refused;
  refused.exit_code = 1;
  refused.stdout_data = "fork: retry: Resource temporarily unavailable\n";
  refused.AddLimitHit(kLimitPids);
  refused.AddLimitHit(kLimitDisk);
  refused.disk_limit = DiskLimitReport{1ull << 30, QuotaMechanism::kNone, ""};
  BashToolText text = FormatBashResult(refused, limits);
  EXPECT_FALSE(text.is_error);
  EXPECT_NE(text.text.find("[pids limit 256 reached: a process or thread could not be started]"),
            std::string::npos)
      << text.text;
  EXPECT_NE(text.text.find("[disk limit 1G reached: a write to /workspace was refused]"),
            std::string::npos)
      << text.text;
  EXPECT_NE(text.text.find("[exit code: 1]"), std::string::npos);

  // A process of the shell killed by the OOM killer: bash says 137, the cgroup saw the limit.
  ExecResult child;
  child.exit_code = 137;
  child.AddLimitHit(kLimitMemory);
  BashToolText inside = FormatBashResult(child, limits);
  EXPECT_TRUE(inside.is_error);
  EXPECT_NE(inside.text.find("killed: memory limit 512M reached"), std::string::npos);
  child.exit_code = 1;
  BashToolText refused_alloc = FormatBashResult(child, limits);
  EXPECT_FALSE(refused_alloc.is_error);
  EXPECT_NE(refused_alloc.text.find("[memory limit 512M reached: an allocation was refused or a "
                                    "process was killed]"),
            std::string::npos)
      << refused_alloc.text;

  ExecResult flood;
  flood.stdout_truncated = true;
  EXPECT_NE(FormatBashResult(flood, limits).text.find("output limit of 1M per stream"),
            std::string::npos);
}

TEST(McpBashToolTest, LongOutputKeepsStartAndEnd) {
  EXPECT_EQ(ShapeBashOutput("short", 10, "unused"), "short");
  std::string big = "START" + std::string(100000, 'x') + "END";
  std::string shaped = ShapeBashOutput(big, 1000, "the full output is in /workspace/f.txt");
  EXPECT_EQ(shaped.rfind("STARTx", 0), 0u);
  EXPECT_EQ(shaped.substr(shaped.size() - 4), "xEND");
  EXPECT_NE(shaped.find("[... 99,008 of 100,008 characters cut from the middle; the full output "
                        "is in /workspace/f.txt ...]"),
            std::string::npos)
      << shaped.substr(400, 300);
  EXPECT_LT(shaped.size(), 1200u);
  // Characters, not bytes: a cut never splits one.
  std::string wide;
  for (int i = 0; i < 3000; ++i) wide += "\xC3\xA9";  // é
  std::string cut = ShapeBashOutput(wide, 100, "w");
  EXPECT_TRUE(IsValidUtf8(cut));
  EXPECT_EQ(cut.rfind("\xC3\xA9\xC3\xA9", 0), 0u);
  EXPECT_NE(cut.find("2,900 of 3,000 characters"), std::string::npos) << cut;
}

TEST(McpToolResultsTest, ExecResultIsStructuredAndErrorsOnlyForFailures) {
  ExecResult r;
  r.exit_code = 3;
  r.stdout_data = "out\xff";
  json ok = ExecToolResult(r, {});
  EXPECT_FALSE(ok["isError"].get<bool>());
  EXPECT_EQ(ok["structuredContent"]["exit_code"], 3);
  EXPECT_EQ(ok["structuredContent"]["stdout"], "out\xEF\xBF\xBD");
  EXPECT_EQ(json::parse(ok["content"][0]["text"].get<std::string>()), ok["structuredContent"]);
  EXPECT_EQ(ok["content"].size(), 1u);
  r.reason = ExitReason::kOom;
  json oom = ExecToolResult(r, {60, 256ull << 20, 0, 0});
  EXPECT_TRUE(oom["isError"].get<bool>());
  EXPECT_EQ(oom["content"][0]["text"], "killed: memory limit 256M reached");
  r.reason = ExitReason::kExited;
  r.AddLimitHit(kLimitPids);
  json pids = ExecToolResult(r, {60, 0, 64, 0});
  EXPECT_FALSE(pids["isError"].get<bool>());
  EXPECT_EQ(pids["content"].back()["text"],
            "[pids limit 64 reached: a process or thread could not be started]");
}

TEST(McpToolResultsTest, ProcessStatesInWords) {
  ProcessInfo info = ExitedProcess();
  EXPECT_EQ(ProcessEnding(info), "exited with code 0");
  EXPECT_EQ(ProcessCommandLine(info), "make -j4");
  info.result->reason = ExitReason::kSignaled;
  info.result->signal = SIGTERM;
  EXPECT_EQ(ProcessEnding(info), "was killed by signal TERM");
  info.result->reason = ExitReason::kTimeout;
  EXPECT_EQ(ProcessEnding(info), "timed out and was killed");
  info.result->reason = ExitReason::kError;
  info.result->error = "no such file";
  EXPECT_EQ(ProcessEnding(info), "failed: no such file");
  info.result.reset();
  info.state = ProcessState::kRunning;
  EXPECT_EQ(ProcessEnding(info), "is running");
  info.argv = {"sleep", "100"};
  EXPECT_EQ(ProcessCommandLine(info), "sleep 100");

  json list = ProcessListResult({info, ExitedProcess()});
  EXPECT_FALSE(list["isError"].get<bool>());
  EXPECT_EQ(list["content"][0]["text"],
            "p2  running  sleep 100\np2  exited with code 0  make -j4\n");
  EXPECT_EQ(list["structuredContent"]["processes"].size(), 2u);
  EXPECT_EQ(list["structuredContent"]["processes"][1]["result"]["exit_code"], 0);
  EXPECT_EQ(ProcessListResult({})["content"][0]["text"], "no background processes\n");
  EXPECT_EQ(ProcessListResult({})["structuredContent"], json({{"processes", json::array()}}));
}

TEST(McpToolResultsTest, ProcessOutputSaysWhatIsNewAndTheState) {
  ProcessInfo running = ExitedProcess();
  running.result.reset();
  running.state = ProcessState::kRunning;
  json r = ProcessOutputResult("tick 1\ntick 2", 0, 13, 0, running);
  EXPECT_FALSE(r["isError"].get<bool>());
  EXPECT_EQ(r["content"][0]["text"], "tick 1\ntick 2\n[p2 is still running]\n");
  EXPECT_EQ(r["structuredContent"]["output"], "tick 1\ntick 2");
  EXPECT_EQ(r["structuredContent"]["next"], 13);
  EXPECT_EQ(r["structuredContent"]["process"]["state"], "running");
  json idle = ProcessOutputResult("", 13, 13, 0, running);
  EXPECT_EQ(idle["content"][0]["text"], "[no new output]\n[p2 is still running]\n");
  ProcessInfo exited = ExitedProcess();
  exited.result->exit_code = 3;
  json done = ProcessOutputResult("bye\n", 2048, 2052, 1000, exited);
  EXPECT_EQ(done["content"][0]["text"],
            "bye\n[1000 bytes of earlier output were dropped before they were read: the sandbox "
            "keeps the latest output of a process only]\n[p2 exited with code 3]\n");
  EXPECT_EQ(done["structuredContent"]["process"]["result"]["exit_code"], 3);
  json one = ProcessToolResult("sent TERM to p2", exited);
  EXPECT_EQ(one["content"][0]["text"], "sent TERM to p2");
  EXPECT_EQ(one["structuredContent"]["id"], "p2");
}

TEST(McpToolResultsTest, TextResultShape) {
  json r = TextToolResult("hi");
  EXPECT_EQ(r, json::parse(R"({"content":[{"type":"text","text":"hi"}],"isError":false})"));
  EXPECT_TRUE(StatusToolResult(PermissionDenied("outside /workspace"))["isError"].get<bool>());
}

}  // namespace
}  // namespace agentbox::mcp
