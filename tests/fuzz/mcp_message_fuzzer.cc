// MCP messages (src/mcp/*): one line of JSON-RPC as a client writes it on stdio or POSTs to
// /mcp, taken through what McpServer does before a sandbox is involved: classify, negotiate,
// cancellation and progress params, tool arguments, the exec request the tool would send, and
// the text editor run over a file's content (which the sandbox controls, so it is input too).
#include <nlohmann/json.hpp>

#include "fuzz_util.h"
#include "mcp/jsonrpc.h"
#include "mcp/modern_request.h"
#include "mcp/protocol.h"
#include "mcp/resources.h"
#include "mcp/streamable_http.h"
#include "mcp/text_editor.h"
#include "mcp/tool_args.h"
#include "mcp/tool_schemas.h"
#include "proto/exec_wire.h"

using namespace agentbox;
using nlohmann::json;

namespace {

void CheckExecTool(const json& arguments) {
  auto args = mcp::ParseExecToolArgs(arguments);
  if (!args.ok()) return;
  ExecRequest request;
  request.argv = args->argv;
  if (args->cwd) request.cwd = *args->cwd;
  request.env = args->env;
  if (args->timeout_seconds) request.timeout_seconds = *args->timeout_seconds;
  (void)ExecRequestFromWire(ExecRequestToWire(request));
}

void CheckEditor(const json& arguments) {
  auto args = mcp::ParseEditorToolArgs(arguments);
  if (!args.ok()) return;
  (void)mcp::EditorPathError(args->path);
  (void)mcp::EditorUnknownCommand(args->command);
  const std::string content = args->file_text.value_or("one\ntwo\n\tthree\nfour\n");
  (void)mcp::EditorViewFile(content, args->path, args->view_range);
  if (args->old_str) {
    (void)mcp::EditorStrReplace(content, args->path, *args->old_str, args->new_str.value_or(""));
  }
  if (args->insert_line && args->new_str) {
    (void)mcp::EditorInsert(content, args->path, *args->insert_line, *args->new_str);
  }
}

void CheckToolCall(const json& params) {
  auto name = params.find("name");
  if (name == params.end() || !name->is_string()) return;
  const json arguments = params.contains("arguments") ? params["arguments"] : json(nullptr);
  const std::string tool = name->get<std::string>();
  (void)mcp::IsKnownTool(tool);
  CheckExecTool(arguments);
  (void)mcp::ParseBashToolArgs(arguments);
  CheckEditor(arguments);
  for (const char* file_tool : {"read_file", "write_file", "list_files"}) {
    (void)mcp::ParseFileToolArgs(file_tool, arguments);
  }
}

void HandleOne(const json& message) {
  mcp::Incoming in = mcp::Classify(message);
  if (in.kind == mcp::MessageKind::kInvalid) {
    (void)mcp::Serialize(in.error);
    return;
  }
  if (in.kind == mcp::MessageKind::kResponse) return;  // we send no requests: nothing to match
  FUZZ_CHECK(in.params.is_object(), "params is not an object");
  (void)mcp::IdKey(in.id);
  if (in.method == "initialize") (void)mcp::Serialize(mcp::InitializeResult(in.params, "0"));
  if (auto id = mcp::CancelledRequestId(in.params)) (void)mcp::IdKey(*id);
  if (auto token = mcp::ProgressToken(in.params)) {
    (void)mcp::Serialize(mcp::ProgressNotification(*token, 1, "running"));
  }
  CheckToolCall(in.params);
  // 2026-07-28's envelope and the HTTP header checks, and a resource URI.
  if (mcp::IsModernRequest(in.method, in.params)) {
    json error;
    if (auto request = mcp::ReadModernRequest(in.id, in.params, &error)) {
      (void)mcp::Serialize(mcp::ModernResult(mcp::DiscoverResult(), "0"));
    } else {
      FUZZ_CHECK(error.contains("error"), "a refused envelope has no error response");
    }
    (void)mcp::CheckModernHeaders(message, [&](std::string_view name) {
      return name == "mcp-method" ? in.method : std::string();
    });
  }
  if (in.params.contains("uri") && in.params["uri"].is_string()) {
    auto path = mcp::WorkspacePathOfUri(in.params["uri"].get<std::string>());
    FUZZ_CHECK(!path.ok() || path->rfind("/workspace", 0) == 0, "a resource path left /workspace");
    if (path.ok()) {
      const std::string with_slash = *path + "/";
      FUZZ_CHECK(with_slash.find("/../") == std::string::npos, "a resource path holds ..");
    }
  }
  (void)mcp::Serialize(
      mcp::MakeError(in.id, mcp::kMethodNotFound, "Method not found: " + in.method));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bool ok = false;
  json message = mcp::ParseJsonOrError(fuzz::AsText(data, size), &ok);
  if (!ok) {
    (void)mcp::Serialize(message);
    return 0;
  }
  if (message.is_array()) {  // a batch
    for (const json& item : message) HandleOne(item);
  } else {
    HandleOne(message);
  }
  return 0;
}
