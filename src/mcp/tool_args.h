// The arguments of each MCP tool, checked against its input schema by hand (no exceptions):
// a wrong type comes back as kInvalidArgument naming the field, which the server turns into a
// tool result with isError, so the model can correct its call.
#pragma once

#include <csignal>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace agentbox::mcp {

struct ExecToolArgs {
  std::vector<std::string> argv;  // `command` becomes {"/bin/sh", "-c", command}
  std::optional<std::string> cwd;
  std::vector<std::pair<std::string, std::string>> env;
  std::optional<double> timeout_seconds;
  std::optional<std::string> stdin_data;  // the command's stdin; absent: /dev/null
  std::optional<uint64_t> output_limit;   // bytes kept per stream; absent: the sandbox's
  bool background = false;                // start it and return its process id at once
  bool interactive = false;               // background only: its stdin stays open
  bool rollback_on_failure = false;       // a failing command leaves the workspace as it was
};

struct BashToolArgs {
  std::string command;
  bool restart = false;
  std::optional<double> timeout_seconds;
  bool background = false;
  bool rollback_on_failure = false;
};

// process_output, process_kill and process_stdin (process_list takes nothing).
struct ProcessToolArgs {
  std::string proc;                    // checked: "p" and a number
  std::optional<double> wait_seconds;  // process_output: wait this long for it to exit
  int signal = SIGTERM;                // process_kill: unless given
  std::string data;                    // process_stdin
  bool close = false;                  // process_stdin: close its stdin after the data
};

struct EditorToolArgs {
  std::string command;
  std::string path;
  std::optional<std::string> file_text;
  std::optional<std::string> old_str;
  std::optional<std::string> new_str;
  std::optional<int64_t> insert_line;
  nlohmann::json view_range;  // null when absent; checked by the editor for its own messages
  std::optional<size_t> max_characters;  // view: clip past this many characters
};

// The most read_file's max_bytes may ask: the file comes back inside one JSON-RPC message, and
// its text (escaped as JSON) is held in memory while it goes out.
inline constexpr uint64_t kMaxReadFileToolBytes = 16u << 20;

struct FileToolArgs {
  std::string path;
  std::string content;                // write_file
  std::optional<uint64_t> max_bytes;  // read_file
  uint32_t mode = 0644;               // write_file
};

StatusOr<ExecToolArgs> ParseExecToolArgs(const nlohmann::json& arguments);
StatusOr<BashToolArgs> ParseBashToolArgs(const nlohmann::json& arguments);
StatusOr<EditorToolArgs> ParseEditorToolArgs(const nlohmann::json& arguments);
// `tool` is process_list, process_output, process_kill or process_stdin.
StatusOr<ProcessToolArgs> ParseProcessToolArgs(std::string_view tool,
                                               const nlohmann::json& arguments);
// `tool` is read_file, write_file or list_files: each requires what it needs.
StatusOr<FileToolArgs> ParseFileToolArgs(std::string_view tool, const nlohmann::json& arguments);

}  // namespace agentbox::mcp
