// What every request handler of `agentbox serve` shares, and the Exchange a handler answers on.
#pragma once

#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "app/backends.h"
#include "app/server/http_connection.h"
#include "base/byte_budget.h"
#include "core/sandbox_manager.h"
#include "http/access_log.h"
#include "http/auth.h"
#include "http/front_door.h"
#include "http/metrics.h"
#include "http/routes.h"
#include "http/server_config.h"
#include "http/tenants.h"

namespace agentbox {

class McpSessions;  // mcp_sessions.h

struct ServerContext {
  std::string state_root;
  std::optional<TokenTable> tokens;  // nullopt: no tokens file, every caller is anonymous
  std::unique_ptr<TenantRegistry> tenants;
  TenantMetrics metrics;
  std::string self_exe;  // this binary, run as the single-threaded `create` helper
  int abort_fd = -1;     // readable once in-flight commands must be cancelled (shutdown)
  ServerConfig config;   // the operator's: limits and their ceilings, workspaces, connections
  FrontDoorPolicy front_door;
  std::shared_ptr<McpSessions> mcp;
  std::unique_ptr<AccessLog> access_log;  // null: none
  // JSON text of exec results held at once (docs/api.md, "Connections"): one at the output
  // ceiling of 16M a stream takes up to 192 MB when every byte needs escaping.
  ByteBudget result_text{512ull << 20};

  // A manager per request: SandboxManager caches backends without a lock, and a fresh one
  // costs no syscall. A sandbox it finds past its ttl is removed, counted and forgotten.
  SandboxManager Manager() {
    SandboxManager manager = MakeSandboxManager(StateStore(state_root));
    manager.set_on_expired([this](const SandboxRecord& record) {
      metrics.RecordExpired(tenants->OwnerOf(record.id));
      (void)tenants->Forget(record.id);
    });
    return manager;
  }
};

// One request and its answer. A handler calls exactly one Reply* or a BeginStream/.../EndStream.
struct Exchange {
  const HttpRequest& request;
  const RouteMatch& match;
  const Caller& caller;
  HttpConnection& conn;
  bool keep_alive = true;
  int status = 0;  // what was answered (0: nothing yet)
  // What the handler adds to the request's access-log line (an exec's reason and exit code, an
  // MCP call's method and tool, the sandbox an MCP session works in). Never output or secrets.
  nlohmann::json audit = nlohmann::json::object();

  void Reply(int code, std::string_view content_type, std::string_view body, HeaderList extra = {});
  void ReplyJson(int code, const nlohmann::json& body, HeaderList extra = {});
  void ReplyError(const Status& error);
  bool BeginStream(int code, std::string_view content_type, HeaderList extra = {});
  bool StreamChunk(std::string_view data) { return conn.WriteChunk(data); }
  void EndStream();
  const std::string& Param(const std::string& name) const { return match.params.at(name); }
};

// The sandbox `ref` names (id, unique prefix or name), if the caller may see it; one kNotFound
// either way, so another tenant's ids cannot be probed.
StatusOr<SandboxStatus> FindVisible(ServerContext& ctx, const Caller& caller,
                                    const std::string& ref);

// Handlers, one file per group; dispatch.cc picks one per RouteId.
void HandleListSandboxes(ServerContext& ctx, Exchange& ex);      // handlers_sandboxes.cc
void HandleCreateSandbox(ServerContext& ctx, Exchange& ex);      // handlers_sandboxes.cc
void HandleGetSandbox(ServerContext& ctx, Exchange& ex);         // handlers_sandboxes.cc
void HandleDeleteSandbox(ServerContext& ctx, Exchange& ex);      // handlers_sandboxes.cc
void HandleVerifySandbox(ServerContext& ctx, Exchange& ex);      // handlers_sandboxes.cc
void HandleExec(ServerContext& ctx, Exchange& ex);               // handlers_exec.cc
void HandleExecTty(ServerContext& ctx, Exchange& ex);            // handlers_terminal.cc
void HandleListProcesses(ServerContext& ctx, Exchange& ex);      // handlers_processes.cc
void HandleGetProcess(ServerContext& ctx, Exchange& ex);         // handlers_processes.cc
void HandleProcessLogs(ServerContext& ctx, Exchange& ex);        // handlers_processes.cc
void HandleWaitProcess(ServerContext& ctx, Exchange& ex);        // handlers_processes.cc
void HandleKillProcess(ServerContext& ctx, Exchange& ex);        // handlers_processes.cc
void HandleWriteProcessStdin(ServerContext& ctx, Exchange& ex);  // handlers_processes.cc
void HandleReadFile(ServerContext& ctx, Exchange& ex);           // handlers_files.cc
void HandleWriteFile(ServerContext& ctx, Exchange& ex);          // handlers_files.cc
void HandleReadArchive(ServerContext& ctx, Exchange& ex);        // handlers_archive.cc
void HandleWriteArchive(ServerContext& ctx, Exchange& ex);       // handlers_archive.cc
void HandleDeleteFile(ServerContext& ctx, Exchange& ex);         // handlers_files.cc
void HandleEditFile(ServerContext& ctx, Exchange& ex);           // handlers_files.cc
void HandleListSnapshots(ServerContext& ctx, Exchange& ex);      // handlers_snapshots.cc
void HandleCreateSnapshot(ServerContext& ctx, Exchange& ex);     // handlers_snapshots.cc
void HandleDeleteSnapshot(ServerContext& ctx, Exchange& ex);     // handlers_snapshots.cc
void HandleRestoreSnapshot(ServerContext& ctx, Exchange& ex);    // handlers_snapshots.cc
void HandleDiffSnapshot(ServerContext& ctx, Exchange& ex);       // handlers_snapshots.cc
void HandleForkSnapshot(ServerContext& ctx, Exchange& ex);       // handlers_snapshots.cc
void HandleSessionLog(ServerContext& ctx, Exchange& ex);         // handlers_snapshots.cc
void HandleMcpPost(ServerContext& ctx, Exchange& ex);            // handlers_mcp.cc
void HandleMcpGet(ServerContext& ctx, Exchange& ex);             // handlers_mcp.cc
void HandleMcpDelete(ServerContext& ctx, Exchange& ex);          // handlers_mcp.cc

// Parses a JSON request body: an object, or kInvalidArgument "malformed JSON: ...".
StatusOr<nlohmann::json> ParseJsonBody(const HttpRequest& request);

}  // namespace agentbox
