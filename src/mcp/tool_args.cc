#include "mcp/tool_args.h"

#include <cmath>

#include "base/utf8.h"
#include "mcp/tool_schemas.h"
#include "proto/process_wire.h"
#include "spec/units.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

Status WrongType(const std::string& key, const char* expected) {
  return InvalidArgument("invalid arguments: `" + key + "` must be " + expected);
}

// Reads an optional string field; absent or null leaves `out` untouched.
Status OptionalString(const json& args, const std::string& key, std::optional<std::string>* out) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return OkStatus();
  if (!it->is_string()) return WrongType(key, "a string");
  *out = it->get<std::string>();
  return OkStatus();
}

Status RequiredString(const json& args, const std::string& key, std::string* out) {
  std::optional<std::string> value;
  AB_RETURN_IF_ERROR(OptionalString(args, key, &value));
  if (!value) return InvalidArgument("invalid arguments: `" + key + "` is required");
  *out = std::move(*value);
  return OkStatus();
}

Status OptionalInteger(const json& args, const std::string& key, std::optional<int64_t>* out) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return OkStatus();
  if (it->is_number_integer()) {
    *out = it->get<int64_t>();
  } else if (it->is_number_float() && std::abs(it->get<double>()) < 1e15 &&
             it->get<double>() == std::floor(it->get<double>())) {
    *out = static_cast<int64_t>(it->get<double>());  // 3.0 from a JavaScript client is 3
  } else {
    return WrongType(key, "an integer");
  }
  return OkStatus();
}

Status ParseStringArray(const json& value, const std::string& key, std::vector<std::string>* out) {
  if (!value.is_array()) return WrongType(key, "an array of strings");
  for (const json& item : value) {
    if (!item.is_string()) return WrongType(key, "an array of strings");
    out->push_back(item.get<std::string>());
  }
  return OkStatus();
}

Status ParseEnv(const json& args, ExecToolArgs* out) {
  auto env = args.find("env");
  if (env == args.end() || env->is_null()) return OkStatus();
  if (!env->is_object()) return WrongType("env", "an object of strings");
  for (const auto& [key, value] : env->items()) {
    if (!value.is_string()) return WrongType("env." + key, "a string");
    if (key.empty() || key.find('=') != std::string::npos) {
      return InvalidArgument("invalid arguments: bad environment variable name \"" + key + "\"");
    }
    out->env.emplace_back(key, value.get<std::string>());
  }
  return OkStatus();
}

// `timeout`: seconds, within what CheckTimeout accepts (the server's ceiling is checked later).
Status OptionalTimeout(const json& args, std::optional<double>* out) {
  auto timeout = args.find("timeout");
  if (timeout == args.end() || timeout->is_null()) return OkStatus();
  if (!timeout->is_number() || !CheckTimeout(timeout->get<double>()).ok()) {
    return WrongType("timeout", "a positive number of seconds, at most 604800 (one week)");
  }
  *out = timeout->get<double>();
  return OkStatus();
}

// `output_limit`: a positive number of bytes or a size ("64K"), as REST's exec takes it.
Status OptionalSize(const json& args, const std::string& key, std::optional<uint64_t>* out) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return OkStatus();
  StatusOr<uint64_t> size = InvalidArgument("");
  if (it->is_number_unsigned()) {
    size = it->get<uint64_t>();
  } else if (it->is_number_integer() && it->get<int64_t>() > 0) {
    size = static_cast<uint64_t>(it->get<int64_t>());
  } else if (it->is_number_float() && it->get<double>() >= 1 && it->get<double>() < 1e18) {
    size = static_cast<uint64_t>(it->get<double>());
  } else if (it->is_string()) {
    size = ParseSize(it->get<std::string>());
  }
  if (!size.ok() || *size == 0) {
    return WrongType(key, "a positive number of bytes or a size such as \"64K\"");
  }
  *out = *size;
  return OkStatus();
}

constexpr const char* kRollbackNotBackground =
    "invalid arguments: `rollback_on_failure` cannot be used with `background` (a background "
    "command's end is not this call's)";

Status OptionalBool(const json& args, const std::string& key, bool* out) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return OkStatus();
  if (!it->is_boolean()) return WrongType(key, "a boolean");
  *out = it->get<bool>();
  return OkStatus();
}

Status CheckObject(const json& arguments) {
  if (arguments.is_null() || arguments.is_object()) return OkStatus();
  return InvalidArgument("invalid arguments: `arguments` must be an object");
}

// Absent arguments are an empty object, so `args.find` is always safe below.
const json& ArgsOrEmpty(const json& arguments) {
  static const json* const kEmpty = new json(json::object());
  return arguments.is_object() ? arguments : *kEmpty;
}

}  // namespace

StatusOr<ExecToolArgs> ParseExecToolArgs(const json& arguments) {
  AB_RETURN_IF_ERROR(CheckObject(arguments));
  const json& args = ArgsOrEmpty(arguments);
  ExecToolArgs out;
  auto argv = args.find("argv");
  std::optional<std::string> command;
  AB_RETURN_IF_ERROR(OptionalString(args, "command", &command));
  if (argv != args.end() && !argv->is_null()) {
    AB_RETURN_IF_ERROR(ParseStringArray(*argv, "argv", &out.argv));
    if (out.argv.empty()) return InvalidArgument("invalid arguments: `argv` is empty");
    if (command) return InvalidArgument("invalid arguments: give `argv` or `command`, not both");
  } else if (command) {
    out.argv = {"/bin/sh", "-c", *command};
  } else {
    return InvalidArgument("invalid arguments: `argv` or `command` is required");
  }
  AB_RETURN_IF_ERROR(OptionalString(args, "cwd", &out.cwd));
  AB_RETURN_IF_ERROR(ParseEnv(args, &out));
  AB_RETURN_IF_ERROR(OptionalTimeout(args, &out.timeout_seconds));
  AB_RETURN_IF_ERROR(OptionalString(args, "stdin", &out.stdin_data));
  AB_RETURN_IF_ERROR(OptionalSize(args, "output_limit", &out.output_limit));
  AB_RETURN_IF_ERROR(OptionalBool(args, "background", &out.background));
  AB_RETURN_IF_ERROR(OptionalBool(args, "interactive", &out.interactive));
  AB_RETURN_IF_ERROR(OptionalBool(args, "rollback_on_failure", &out.rollback_on_failure));
  if (out.rollback_on_failure && out.background) {
    return InvalidArgument(kRollbackNotBackground);
  }
  if (out.interactive && !out.background) {
    return InvalidArgument(
        "invalid arguments: `interactive` needs `background`: only a background process can be "
        "written to (process_stdin)");
  }
  return out;
}

StatusOr<BashToolArgs> ParseBashToolArgs(const json& arguments) {
  AB_RETURN_IF_ERROR(CheckObject(arguments));
  const json& args = ArgsOrEmpty(arguments);
  BashToolArgs out;
  AB_RETURN_IF_ERROR(OptionalBool(args, "restart", &out.restart));
  AB_RETURN_IF_ERROR(OptionalBool(args, "background", &out.background));
  if (out.restart && out.background) {
    return InvalidArgument("invalid arguments: give `restart` or `background`, not both");
  }
  AB_RETURN_IF_ERROR(OptionalBool(args, "rollback_on_failure", &out.rollback_on_failure));
  if (out.rollback_on_failure && out.background) {
    return InvalidArgument(kRollbackNotBackground);
  }
  std::optional<std::string> command;
  AB_RETURN_IF_ERROR(OptionalString(args, "command", &command));
  if (!command && !out.restart) return InvalidArgument("no command provided.");
  AB_RETURN_IF_ERROR(OptionalTimeout(args, &out.timeout_seconds));
  out.command = command.value_or("");
  return out;
}

StatusOr<EditorToolArgs> ParseEditorToolArgs(const json& arguments) {
  AB_RETURN_IF_ERROR(CheckObject(arguments));
  const json& args = ArgsOrEmpty(arguments);
  EditorToolArgs out;
  AB_RETURN_IF_ERROR(RequiredString(args, "command", &out.command));
  AB_RETURN_IF_ERROR(RequiredString(args, "path", &out.path));
  AB_RETURN_IF_ERROR(OptionalString(args, "file_text", &out.file_text));
  AB_RETURN_IF_ERROR(OptionalString(args, "old_str", &out.old_str));
  AB_RETURN_IF_ERROR(OptionalString(args, "new_str", &out.new_str));
  AB_RETURN_IF_ERROR(OptionalInteger(args, "insert_line", &out.insert_line));
  if (auto range = args.find("view_range"); range != args.end()) out.view_range = *range;
  std::optional<int64_t> max_characters;
  AB_RETURN_IF_ERROR(OptionalInteger(args, "max_characters", &max_characters));
  if (max_characters && *max_characters < 1)
    return WrongType("max_characters", "a positive integer");
  if (max_characters) out.max_characters = static_cast<size_t>(*max_characters);
  return out;
}

StatusOr<ProcessToolArgs> ParseProcessToolArgs(std::string_view tool, const json& arguments) {
  AB_RETURN_IF_ERROR(CheckObject(arguments));
  const json& args = ArgsOrEmpty(arguments);
  ProcessToolArgs out;
  if (tool == kProcessListTool) return out;
  AB_RETURN_IF_ERROR(RequiredString(args, "proc", &out.proc));
  if (!CheckProcessId(out.proc).ok()) {
    return InvalidArgument("invalid arguments: `proc` must be a process id such as p1 (see " +
                           std::string(kProcessListTool) + "), not \"" + SanitizeUtf8(out.proc) +
                           "\"");
  }
  if (tool == kProcessOutputTool) {
    auto wait = args.find("wait_seconds");
    if (wait != args.end() && !wait->is_null()) {
      if (!wait->is_number() || wait->get<double>() < 0 || !std::isfinite(wait->get<double>())) {
        return WrongType("wait_seconds", "a number of seconds, 0 or more");
      }
      out.wait_seconds = wait->get<double>();
    }
  }
  if (tool == kProcessKillTool) {
    auto signal = args.find("signal");
    if (signal != args.end() && !signal->is_null()) {
      std::string text;
      if (signal->is_string()) {
        text = signal->get<std::string>();
      } else if (signal->is_number_integer()) {
        text = std::to_string(signal->get<int64_t>());
      } else {
        return WrongType("signal", "a signal name such as \"TERM\" or a number");
      }
      StatusOr<int> parsed = ParseSignal(text);
      if (!parsed.ok()) return InvalidArgument("invalid arguments: " + parsed.status().message());
      out.signal = *parsed;
    }
  }
  if (tool == kProcessStdinTool) {
    std::optional<std::string> data;
    AB_RETURN_IF_ERROR(OptionalString(args, "data", &data));
    AB_RETURN_IF_ERROR(OptionalBool(args, "close", &out.close));
    if (!data && !out.close) {
      return InvalidArgument("invalid arguments: `data` is required (or `close`: true)");
    }
    out.data = data.value_or("");
    if (out.data.size() > kMaxPendingStdinBytes) {
      return InvalidArgument("invalid arguments: `data` is over 1 MiB; send it in pieces");
    }
  }
  return out;
}

StatusOr<FileToolArgs> ParseFileToolArgs(std::string_view tool, const json& arguments) {
  AB_RETURN_IF_ERROR(CheckObject(arguments));
  const json& args = ArgsOrEmpty(arguments);
  FileToolArgs out;
  if (tool == kListFilesTool) {
    std::optional<std::string> path;
    AB_RETURN_IF_ERROR(OptionalString(args, "path", &path));
    out.path = path.value_or("/workspace");
    return out;
  }
  AB_RETURN_IF_ERROR(RequiredString(args, "path", &out.path));
  if (tool == kWriteFileTool) {
    AB_RETURN_IF_ERROR(RequiredString(args, "content", &out.content));
    std::optional<int64_t> mode;
    AB_RETURN_IF_ERROR(OptionalInteger(args, "mode", &mode));
    if (mode && (*mode < 0 || *mode > 0777)) return WrongType("mode", "within 0..511 (0777)");
    if (mode) out.mode = static_cast<uint32_t>(*mode);
  }
  if (tool == kReadFileTool) {
    std::optional<int64_t> max_bytes;
    AB_RETURN_IF_ERROR(OptionalInteger(args, "max_bytes", &max_bytes));
    if (max_bytes &&
        (*max_bytes < 1 || static_cast<uint64_t>(*max_bytes) > kMaxReadFileToolBytes)) {
      return WrongType("max_bytes", "a positive integer, at most 16777216 (16 MiB)");
    }
    if (max_bytes) out.max_bytes = static_cast<uint64_t>(*max_bytes);
  }
  return out;
}

}  // namespace agentbox::mcp
