// The JSON bodies of the REST API (docs/api.md): strict parsing of requests and the events of
// a streamed exec. Pure, so every rule is unit-tested.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "proto/exec_result.h"
#include "proto/exec_wire.h"
#include "proto/process_wire.h"

namespace agentbox {

enum class StreamFormat { kNone, kNdjson, kSse };

struct ExecBody {
  ExecRequest request;
  std::optional<std::string> stdin_data;  // the command's stdin; /dev/null when absent
  StreamFormat stream = StreamFormat::kNone;
  // "detach": started as a background process and answered at once with its object;
  // "interactive" (detach only): its stdin stays open for POST .../stdin.
  bool detach = false;
  bool interactive = false;
  // "rollback_on_failure": a failing command leaves the workspace as it was (not with detach).
  bool rollback_on_failure = false;
};

// POST /v1/sandboxes/{id}/exec: {argv, env, cwd, timeout, output_limit, stdin, stream, detach,
// interactive, rollback_on_failure} laid over `defaults` (the sandbox's policy). Without "stream",
// an Accept of application/x-ndjson or text/event-stream picks the stream (never for a detached
// one: its output is read with .../logs). "interactive" without "detach", and "stdin" or "stream"
// with it, are refused. kInvalidArgument names the bad key.
StatusOr<ExecBody> ParseExecBody(const nlohmann::json& body, const ExecRequest& defaults,
                                 std::string_view accept);

struct CreateBody {
  nlohmann::json policy;  // the body without "name": a policy file's object
  std::string name;
};

// What a caller of the API may name on the host (docs/api.md, "Workspaces").
struct HostPathRules {
  // serve --workspace-root: a body's "workspace" NAME is workspace_root/tenant_dir/NAME. "": no
  // caller may name a workspace (each gets a private one agentbox makes).
  std::string workspace_root;
  std::string tenant_dir;  // the caller's directory beneath the root (kAnonymousWorkspaceDir)
  // serve --allow-host-paths: an absolute "workspace" or any "rootfs" is taken as a host path
  // (the CLI's checks then apply, as to `agentbox create`).
  bool allow_host_paths = false;
};

// The directory beneath --workspace-root of the one anonymous caller (no tokens file): not a
// tenant name, which starts with a letter or digit.
inline constexpr std::string_view kAnonymousWorkspaceDir = "_anonymous";

// POST /v1/sandboxes: policy keys plus "name". The policy itself is validated by the spec's
// own parser. "workspace": a NAME (1-64 of A-Z a-z 0-9 _ . -, starting with a letter or digit:
// no '/', no "..") becomes the path beneath the root; a name without a root, an absolute path
// or any "rootfs" without allow_host_paths is kPermissionDenied: they would hand the host's
// files to a caller of the API. A malformed name is kInvalidArgument.
StatusOr<CreateBody> ParseCreateBody(const nlohmann::json& body, const HostPathRules& rules);

// One output chunk ("stdout" / "stderr") as an NDJSON line or an SSE event.
std::string StreamEvent(StreamFormat format, std::string_view type, std::string_view data);
// The final event: {"type":"result","result":{...docs/contract.md §1...}}.
std::string StreamResultEvent(StreamFormat format, const ExecResult& result);
// What a stream sends now and then while the command prints nothing, so that clients and
// proxies with idle timeouts keep it (Node's fetch drops a body after 300 s without a byte):
// an SSE comment, which readers ignore. Nothing ("") for NDJSON, every line of which must be a
// JSON object: an empty line or a new event type would break readers of that contract.
std::string_view StreamKeepAlive(StreamFormat format);

// Background processes (`"detach": true`).

// POST .../processes/{proc}/kill: {"signal": "TERM"} (a name or a number, proto's ParseSignal);
// no key, or `empty` (no body at all), is SIGTERM.
StatusOr<int> ParseKillBody(const nlohmann::json& body, bool empty);

// GET .../processes/{proc}/logs: ?follow=1&since=N&stream=ndjson|sse. `since` is a byte offset
// (decimal digits); `stream` absent is NDJSON unless `accept` names text/event-stream.
struct LogsQuery {
  bool follow = false;
  uint64_t since = 0;
  StreamFormat format = StreamFormat::kNdjson;
};
StatusOr<LogsQuery> ParseLogsQuery(bool follow, std::string_view since, std::string_view stream,
                                   std::string_view accept);

// POST .../processes/{proc}/wait?timeout=T: seconds or a duration, within a week; "" is 0 (no
// bound: until the process exits).
StatusOr<double> ParseWaitTimeout(std::string_view text);

// {"processes": [process...]}, in the order given.
std::string ProcessListJson(const std::vector<ProcessInfo>& processes);
// The last event of a logs stream: {"type":"process","from":F,"next":N,"process":{...}}; a
// stream after a `since` of N gets only what came after (docs/api.md).
std::string ProcessEndEvent(StreamFormat format, const ProcessInfo& process, uint64_t from,
                            uint64_t next);
// The last event of a stream that failed after it began: {"type":"error","error","code"}, the
// body an API error with that status would have had.
std::string StreamErrorEvent(StreamFormat format, const Status& error);

// Holds back an incomplete UTF-8 sequence at the end of a chunk until the next one, so a
// character split across two reads is not turned into two U+FFFD.
class Utf8Carry {
 public:
  std::string Take(std::string_view chunk);
  std::string Flush() { return std::exchange(pending_, {}); }

 private:
  std::string pending_;
};

}  // namespace agentbox
