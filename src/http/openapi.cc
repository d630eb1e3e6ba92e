#include "http/openapi.h"

#include <string>
#include <vector>

#include "base/build_info.h"
#include "http/openapi_schemas.h"
#include "http/routes.h"
#include "spec/spec_overlay.h"

namespace agentbox {
namespace {

using nlohmann::json;

json Ref(std::string_view schema) {
  return {{"$ref", "#/components/schemas/" + std::string(schema)}};
}

// An object whose every listed property is in every answer: generated clients then type
// them as present (docs/api.md says which appear only sometimes; those are left out here).
json Object(json properties, std::vector<std::string> required, std::string description = "") {
  json o = {{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) o["required"] = std::move(required);
  if (!description.empty()) o["description"] = std::move(description);
  return o;
}

json Nullable(json schema) {
  schema["nullable"] = true;
  return schema;
}

// The exec result's fields, without stdout and stderr (a background process's result lacks
// them: they are its logs).
json ResultProperties() {
  json str = {{"type", "string"}};
  json num = {{"type", "number"}};
  json boolean = {{"type", "boolean"}};
  return {
      {"exit_code", {{"type", "integer"}}},
      {"signal", Nullable({{"type", "integer"}})},
      {"reason", {{"type", "string"}, {"enum", {"exited", "signaled", "timeout", "oom", "error"}}}},
      {"error", {{"type", "string"}, {"description", "with reason \"error\": the message"}}},
      {"error_code",
       {{"type", "string"},
        {"description", "with error: the code an API error with this message has"}}},
      {"duration_ms", num},
      {"cpu_ms", num},
      {"peak_memory_bytes", {{"type", "integer"}}},
      {"stdout_truncated", boolean},
      {"stderr_truncated", boolean},
      {"limits_hit",
       {{"type", "array"},
        {"items",
         {{"type", "string"}, {"enum", {"timeout", "memory", "pids", "output", "disk", "cpu"}}}}}},
      {"disk_limit", Ref("DiskLimit")},
      // (a $ref takes no sibling description: docs/api.md says it is absent when reason is error)
      {"network", Ref("NetworkReport")},
      // Absent, like network, when reason is error (docs/api.md "The effect report").
      {"effects", Ref("Effects")}};
}

const std::vector<std::string> kResultRequired = {
    "exit_code",         "signal",           "reason",           "duration_ms", "cpu_ms",
    "peak_memory_bytes", "stdout_truncated", "stderr_truncated", "limits_hit"};

// The `network` section of every result of a command that ran, not of one whose reason is
// "error" (proto/exec_result.h NetworkReport, docs/api.md).
json NetworkReportSchema() {
  json integer = {{"type", "integer"}};
  json connection = Object(
      {{"kind",
        {{"type", "string"},
         {"enum", {"connect", "lookup"}},
         {"description",
          "connect: through the egress proxy; lookup: a name looked up in the sandbox (denied)"}}},
       {"host",
        {{"type", "string"}, {"description", "the name or IP literal the command asked for"}}},
       {"port", integer},
       {"allowed", {{"type", "boolean"}}},
       {"address", Nullable({{"type", "string"}, {"description", "the address reached, if any"}})},
       {"bytes_sent", integer},
       {"bytes_received", integer},
       {"reason", {{"type", "string"}, {"description", "why it was denied or cut short"}}}},
      {"kind", "host", "port", "allowed", "address", "bytes_sent", "bytes_received"});
  return Object(
      {{"egress",
        {{"type", "boolean"},
         {"description", "allow_hosts was set: the command had agentbox's egress proxy"}}},
       {"connections", {{"type", "array"}, {"items", connection}}},
       {"connections_dropped",
        {{"type", "integer"}, {"description", "attempts past the ones listed"}}}},
      {"egress", "connections"});
}

// The `effects` section of every result of a command that ran (proto/effect_report.h,
// docs/api.md "The effect report").
json EffectsSchema() {
  json integer = {{"type", "integer"}};
  json str = {{"type", "string"}};
  json change =
      Object({{"path", str},
              {"change", {{"type", "string"}, {"enum", {"created", "modified", "deleted"}}}},
              {"type", {{"type", "string"}, {"enum", {"file", "dir", "symlink", "other"}}}},
              {"size_delta", integer}},
             {"path", "change", "type", "size_delta"});
  json workspace =
      Object({{"observed",
               {{"type", "boolean"},
                {"description", "false: the workspace was not compared (reason says why)"}}},
              {"reason", str},
              {"created", integer},
              {"modified", integer},
              {"deleted", integer},
              {"size_delta", integer},
              {"changes", {{"type", "array"}, {"items", change}, {"description", "at most 100"}}},
              {"changes_omitted", integer},
              {"partial",
               {{"type", "boolean"},
                {"description", "the walk met its bound: later paths not compared"}}}},
             {"observed"});
  json wall = Object(
      {{"wall",
        {{"type", "string"},
         {"enum",
          {"seccomp", "read_only_root", "permission", "pid_namespace", "network", "limit"}}}},
       {"what", str},
       {"count", integer},
       {"errno", str},
       {"rule", {{"type", "string"}, {"description", "the policy rule that stopped it"}}},
       {"process", str},
       {"seen_by",
        {{"type", "string"},
         {"enum",
          {"seccomp_notification", "stderr", "egress_proxy", "dns_catcher", "supervisor"}}}},
       {"message", {{"type", "string"}, {"description", "one line an agent can act on"}}}},
      {"wall", "what", "count", "rule", "seen_by", "message"});
  return Object(
      {{"workspace", workspace},
       {"walls", {{"type", "array"}, {"items", wall}}},
       {"walls_omitted", integer},
       {"syscalls_observed",
        {{"type", "boolean"},
         {"description", "denied syscalls are itemized (false: syscalls_reason says why)"}}},
       {"syscalls_reason", str},
       {"processes_started", Nullable(integer)},
       {"bytes_written", Nullable(integer)}},
      {"workspace", "walls", "syscalls_observed", "processes_started", "bytes_written"});
}

// Policy keys come from the spec's own field table: a new policy key shows up here by itself.
json CreateSandboxSchema() {
  json props = {{"name", {{"type", "string"}, {"description", "unique name; optional"}}}};
  for (const SpecField& f : SpecFields()) {
    json p;
    switch (f.kind) {
      case FieldKind::kBool:
        p = {{"type", "boolean"}};
        break;
      case FieldKind::kEnv:
        p = {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}};
        break;
      case FieldKind::kString:
        p = {{"type", "string"}};
        break;
      case FieldKind::kHostList:
        p = {{"type", "array"}, {"items", {{"type", "string"}}}};
        break;
      default:
        p = {{"oneOf", json::array({{{"type", "number"}}, {{"type", "string"}}})}};
    }
    props[std::string(f.key)] = p;
  }
  return {{"type", "object"}, {"additionalProperties", false}, {"properties", props}};
}

json ExecRequestSchema() {
  json str = {{"type", "string"}};
  json num_or_str = {{"oneOf", json::array({{{"type", "number"}}, str})}};
  return {
      {"type", "object"},
      {"required", {"argv"}},
      {"additionalProperties", false},
      {"properties",
       {{"argv", {{"type", "array"}, {"minItems", 1}, {"items", str}}},
        {"env", {{"type", "object"}, {"additionalProperties", str}}},
        {"cwd", str},
        {"timeout", num_or_str},
        {"output_limit", num_or_str},
        {"stdin", str},
        {"stream", {{"type", "string"}, {"enum", {"ndjson", "sse"}}}},
        {"detach",
         {{"type", "boolean"},
          {"description",
           "start a background process: 201 and its Process at once (no stdin, no stream)"}}},
        {"interactive",
         {{"type", "boolean"}, {"description", "with detach: keep its stdin open for .../stdin"}}},
        {"rollback_on_failure",
         {{"type", "boolean"},
          {"description",
           "a failing command (non-zero exit, timeout, signal, OOM) leaves the workspace "
           "exactly as it was; refused while another command or a background process "
           "runs"}}}}}};
}

// The terminal WebSocket's first message: an exec body without what a terminal replaces.
json TerminalStartSchema() {
  json schema = ExecRequestSchema();
  for (const char* key : {"stdin", "stream", "detach", "interactive", "rollback_on_failure"}) {
    schema["properties"].erase(key);
  }
  json size = {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}};
  schema["properties"]["rows"] = size;
  schema["properties"]["rows"]["description"] = "the window's rows; default 24";
  schema["properties"]["cols"] = size;
  schema["properties"]["cols"]["description"] = "the window's columns; default 80";
  schema["description"] =
      "the first (text) message of GET .../exec/tty: the command and its terminal's size";
  return schema;
}

json ExecResultSchema() {
  json props = ResultProperties();
  props["stdout"] = {{"type", "string"}};
  props["stderr"] = {{"type", "string"}};
  props["rollback"] = {
      {"type", "object"},
      {"description", "with rollback_on_failure only"},
      {"properties", {{"rolled_back", {{"type", "boolean"}}}, {"error", {{"type", "string"}}}}}};
  std::vector<std::string> required = kResultRequired;
  required.insert(required.end(), {"stdout", "stderr"});
  return Object(props, required, "the exec result (docs/contract.md §1)");
}

json ProcessSchema() {
  json str = {{"type", "string"}};
  json integer = {{"type", "integer"}};
  json result = {
      {"type", "object"},
      {"allOf", json::array({Ref("ProcessResult")})},
      {"nullable", true},
      {"description", "once exited: the exec result, without stdout and stderr (the logs)"}};
  return Object(
      {{"id", {{"type", "string"}, {"description", "\"p1\", \"p2\", ... in start order"}}},
       {"argv", {{"type", "array"}, {"items", str}}},
       {"state", {{"type", "string"}, {"enum", {"running", "exited"}}}},
       {"started_at", {{"type", "number"}, {"description", "unix seconds"}}},
       {"stdin_open", {{"type", "boolean"}}},
       {"output_bytes",
        {{"type", "integer"}, {"description", "both streams since it started: the offsets"}}},
       {"dropped_bytes",
        {{"type", "integer"}, {"description", "the oldest of them, gone from the ring"}}},
       {"result", result}},
      {"id", "argv", "state", "started_at", "stdin_open", "output_bytes", "dropped_bytes",
       "result"},
      "a background process (`agentbox exec -d`)");
}

json VerifyReportSchema() {
  json str = {{"type", "string"}};
  json boolean = {{"type", "boolean"}};
  json check =
      Object({{"name", str},
              {"want", str},
              {"got", str},
              {"ok", Nullable({{"type", "boolean"}, {"description", "null: not applicable here"}})},
              {"reason", {{"type", "string"}, {"description", "when not applicable: why"}}}},
             {"name", "want", "got", "ok"});
  return Object({{"id", str}, {"ok", boolean}, {"checks", {{"type", "array"}, {"items", check}}}},
                {"id", "ok", "checks"},
                "ok is true when every check that applies passed (`agentbox inspect --verify`)");
}

json DiskLimitSchema() {
  return Object({{"bytes", Nullable({{"type", "integer"}})},
                 {"enforced", {{"type", "boolean"}}},
                 {"mechanism", Nullable({{"type", "string"}})},
                 {"reason", {{"type", "string"}, {"description", "when not enforced: why"}}}},
                {"bytes", "enforced", "mechanism"}, "how the disk limit is held (docs/policy.md)");
}

json SandboxSchemas(json* summary) {
  json str = {{"type", "string"}};
  json summary_props = {
      {"id", str},
      {"name", {{"type", "string"}, {"description", "\"\" when it has none"}}},
      {"backend", {{"type", "string"}, {"enum", {"native", "docker", "kubernetes"}}}},
      {"state", {{"type", "string"}, {"enum", {"running", "dead"}}}},
      {"created_at", {{"type", "string"}, {"description", "RFC 3339, UTC"}}},
      {"workspace", str}};
  *summary = Object(summary_props, {"id", "name", "backend", "state", "created_at", "workspace"},
                    "one sandbox in a list");
  json props = summary_props;
  props["expires_at"] = Nullable({{"type", "string"}, {"description", "RFC 3339; null: no ttl"}});
  props["last_active_at"] = Nullable(str);
  props["workspace_temporary"] = {{"type", "boolean"}};
  props["disk_limit"] = Ref("DiskLimit");
  props["pids_limit"] =
      Object({{"count", {{"type", "integer"}}},
              {"enforced", Nullable({{"type", "boolean"}})},
              {"reason", {{"type", "string"}, {"description", "when not enforced: why"}}}},
             {"count", "enforced"},
             "whether the box's kernel holds the policy's pids limit now (null: a dead sandbox; "
             "docs/policy.md)");
  props["policy"] = {{"type", "object"}, {"description", "every policy key, sizes in bytes"}};
  props["usage"] = Nullable(Object({{"peak_memory_bytes", {{"type", "integer"}}},
                                    {"cpu_ms", {{"type", "number"}}},
                                    {"oom_kills", {{"type", "integer"}}},
                                    {"disk_added_bytes", {{"type", "integer"}}}},
                                   {}));
  props["pid"] = {{"type", "integer"}, {"description", "while running: the agent's host pid"}};
  props["container_id"] = {{"type", "string"}, {"description", "docker backend only"}};
  return Object(props,
                {"id", "name", "backend", "state", "created_at", "expires_at", "workspace",
                 "workspace_temporary", "disk_limit", "pids_limit", "policy", "usage"},
                "what `agentbox inspect` prints");
}

json Schemas() {
  json str = {{"type", "string"}};
  json integer = {{"type", "integer"}};
  json summary;
  json sandbox = SandboxSchemas(&summary);
  json entry =
      Object({{"name", str},
              {"type", {{"type", "string"}, {"enum", {"file", "dir", "symlink", "other"}}}},
              {"size", integer},
              {"mode", integer},
              {"mtime", integer}},
             {"name", "type", "size", "mode", "mtime"});
  return {
      {"Error", Object({{"error", str}, {"code", str}}, {"error", "code"})},
      {"Sandbox", sandbox},
      {"SandboxSummary", summary},
      {"SandboxList", Object({{"sandboxes", {{"type", "array"}, {"items", Ref("SandboxSummary")}}}},
                             {"sandboxes"})},
      {"DiskLimit", DiskLimitSchema()},
      {"NetworkReport", NetworkReportSchema()},
      {"Effects", EffectsSchema()},
      {"ProcessResult", Object(ResultProperties(), kResultRequired,
                               "a background process's result: the exec result without stdout "
                               "and stderr")},
      {"CreateSandbox", CreateSandboxSchema()},
      {"ExecRequest", ExecRequestSchema()},
      {"ExecResult", ExecResultSchema()},
      {"StreamEvent",
       Object({{"type", {{"type", "string"}, {"enum", {"stdout", "stderr", "result"}}}},
               {"data", str},
               {"result", Ref("ExecResult")}},
              {"type"}, "one NDJSON line or SSE data: stdout/stderr chunk (data) or result")},
      {"DirListing", Object({{"path", str}, {"entries", {{"type", "array"}, {"items", entry}}}},
                            {"path", "entries"})},
      {"EditRequest",
       {{"type", "object"},
        {"required", {"path", "old_str", "new_str"}},
        {"properties", {{"path", str}, {"old_str", str}, {"new_str", str}}}}},
      {"Written", Object({{"path", str}, {"bytes", integer}}, {"path"})},
      {"Removed", Object({{"removed", str}}, {"removed"})},
      {"Extracted",
       Object({{"path", str}, {"files", integer}, {"directories", integer}, {"bytes", integer}},
              {"path", "files", "directories", "bytes"}, "what a tar stream put in the sandbox")},
      {"JsonRpc", {{"type", "object"}, {"description", "a JSON-RPC 2.0 message (MCP)"}}},
      {"VerifyReport", VerifyReportSchema()},
      {"Process", ProcessSchema()},
      {"ProcessList",
       Object({{"processes", {{"type", "array"}, {"items", Ref("Process")}}}}, {"processes"})},
      {"KillRequest",
       {{"type", "object"},
        {"additionalProperties", false},
        {"properties",
         {{"signal",
           {{"oneOf", json::array({{{"type", "string"}}, {{"type", "integer"}}})},
            {"description",
             "a name (\"TERM\", \"SIGINT\") or a number; default TERM; STOP is "
             "refused"}}}}}}},
      {"TerminalStart", TerminalStartSchema()},
      {"Snapshot", SnapshotSchema()},
      {"SnapshotList",
       {{"type", "object"},
        {"properties", {{"snapshots", {{"type", "array"}, {"items", Ref("Snapshot")}}}}}}},
      {"SnapshotRequest", NameOnlySchema("a name, unique among the sandbox's snapshots")},
      {"ForkRequest", NameOnlySchema("a unique name for the new sandbox")},
      {"Restored", RestoredSchema()},
      {"WorkspaceDiff", WorkspaceDiffSchema()},
      {"TerminalMessage",
       {{"type", "object"},
        {"description",
         "a text message of the terminal WebSocket. Client: resize (rows, cols) or eof. Server, "
         "last: result (the exec result, output not repeated) or error (error, code)"},
        {"required", {"type"}},
        {"properties",
         {{"type", {{"type", "string"}, {"enum", {"resize", "eof", "result", "error"}}}},
          {"rows", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}}},
          {"cols", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}}},
          {"result", Ref("ExecResult")},
          {"error", str},
          {"code", str}}}}},
      {"ProcessLogEvent",
       Object({{"type", {{"type", "string"}, {"enum", {"stdout", "stderr", "process", "error"}}}},
               {"data", str},
               {"from", integer},
               {"next", integer},
               {"process", Ref("Process")},
               {"error", str},
               {"code", str}},
              {"type"},
              "one NDJSON line or SSE data: stdout/stderr chunks, then process (or error) last")},
  };
}

json Parameters(const Route& route) {
  json params = json::array();
  std::string_view p = route.pattern;
  for (size_t open = p.find('{'); open != std::string_view::npos; open = p.find('{', open + 1)) {
    std::string name(p.substr(open + 1, p.find('}', open) - open - 1));
    params.push_back({{"name", name},
                      {"in", "path"},
                      {"required", true},
                      {"schema", {{"type", "string"}}},
                      {"description", name == "proc"   ? "background process id (\"p1\")"
                                      : name == "snap" ? "snapshot id, unique id prefix or name"
                                                       : "sandbox id, unique id prefix or name"}});
  }
  std::string_view q = route.query;
  while (!q.empty()) {
    std::string_view name = q.substr(0, q.find(','));
    q.remove_prefix(std::min(q.size(), name.size() + 1));
    const QueryParam* def = FindQueryParam(name);
    if (def == nullptr) continue;
    params.push_back({{"name", std::string(name)},
                      {"in", "query"},
                      {"required", def->required},
                      {"schema", {{"type", std::string(def->type)}}},
                      {"description", std::string(def->description)}});
  }
  return params;
}

json Responses(const Route& route) {
  json ok = {{"description", std::string(route.summary)}};
  if (!route.success_type.empty()) {
    json schema = route.result.empty() ? json{{"type", "string"}} : Ref(route.result);
    ok["content"][std::string(route.success_type)]["schema"] = schema;
  }
  if (route.id == RouteId::kExec) {
    ok["content"]["application/x-ndjson"]["schema"] = Ref("StreamEvent");
    ok["content"]["text/event-stream"]["schema"] = Ref("StreamEvent");
  }
  if (route.id == RouteId::kProcessLogs) {
    ok["content"]["text/event-stream"]["schema"] = Ref("ProcessLogEvent");
  }
  if (route.id == RouteId::kMcpPost) {
    ok["content"]["text/event-stream"]["schema"] = {
        {"type", "string"},
        {"description",
         "SSE events `message`, each one JSON-RPC message: the request's notifications, then its "
         "response"}};
  }
  if (route.id == RouteId::kReadFile) {
    ok["content"]["application/json"]["schema"] = Ref("DirListing");
  }
  if (route.id == RouteId::kExecTty) {
    ok["description"] =
        "Switching Protocols: a WebSocket (RFC 6455). The client's first message (text) is a "
        "TerminalStart; then binary messages are keys and text messages TerminalMessage resize "
        "or eof. The server sends what the terminal shows as binary messages, then a "
        "TerminalMessage result (or error) and closes with 1000 (1008: a bad message, 1013: "
        "cannot run now, 1011: failed). Ping/pong answered; a client that leaves kills the "
        "command's process tree.";
    ok["x-websocket-messages"] = {{"first", Ref("TerminalStart")},
                                  {"text", Ref("TerminalMessage")}};
  }
  if (route.id == RouteId::kReadFile || route.id == RouteId::kReadArchive) {
    ok["content"][std::string(route.success_type)]["schema"] = {{"type", "string"},
                                                                {"format", "binary"}};
  }
  json responses = {{std::to_string(route.success), ok}};
  if (route.id == RouteId::kExec) {
    responses["201"] = {
        {"description", "\"detach\": the background process started (Location: its URL)"},
        {"content", {{"application/json", {{"schema", Ref("Process")}}}}}};
  }
  if (route.id == RouteId::kMcpPost) {
    responses["202"] = {{"description", "notifications and responses only: accepted, no body"}};
  }
  // Besides the route's own: what the front door and the event loop may answer on any route
  // (a foreign Host or Origin, a head or body past its deadline, a body of the wrong type).
  std::string errors = std::string(route.errors) + ",403,408";
  if (route.body != BodyKind::kNone) errors += ",415";
  std::string_view e = errors;
  while (!e.empty()) {
    std::string code(e.substr(0, e.find(',')));
    e.remove_prefix(std::min(e.size(), code.size() + 1));
    if (code.empty()) continue;
    responses[code] = {{"description", "error"},
                       {"content", {{"application/json", {{"schema", Ref("Error")}}}}}};
  }
  return responses;
}

// The part of the API a route belongs to, for the document's tags (and generated clients'
// grouping).
std::string TagOf(const Route& route) {
  const std::string_view p = route.pattern;
  if (p == "/mcp") return "mcp";
  if (!p.starts_with("/v1/sandboxes")) return "server";
  if (p.find("/processes") != std::string_view::npos) return "processes";
  if (p.find("/files") != std::string_view::npos || p.find("/archive") != std::string_view::npos) {
    return "files";
  }
  if (p.find("/exec") != std::string_view::npos) return "exec";  // .../exec, .../exec/tty
  return "sandboxes";
}

json Operation(const Route& route) {
  json op = {{"operationId", std::string(route.operation_id)},
             {"summary", std::string(route.summary)},
             {"tags", json::array({TagOf(route)})},
             {"parameters", Parameters(route)},
             {"responses", Responses(route)}};
  if (!route.needs_auth) op["security"] = json::array();
  if (route.body == BodyKind::kJson) {
    // A kill without a body sends TERM; a snapshot or a fork without one has no name.
    const bool optional = route.id == RouteId::kKillProcess ||
                          route.id == RouteId::kCreateSnapshot ||
                          route.id == RouteId::kForkSnapshot;
    op["requestBody"] = {{"required", !optional},
                         {"content", {{"application/json", {{"schema", Ref(route.schema)}}}}}};
  } else if (route.body == BodyKind::kBytes) {
    const char* type =
        route.id == RouteId::kWriteArchive ? "application/x-tar" : "application/octet-stream";
    op["requestBody"] = {
        {"required", true},
        {"content", {{type, {{"schema", {{"type", "string"}, {"format", "binary"}}}}}}}};
  }
  return op;
}

}  // namespace

json OpenApiDocument() {
  json paths = json::object();
  for (const Route& route : Routes()) {
    std::string method(route.method);
    for (char& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    paths[std::string(route.pattern)][method] = Operation(route);
  }
  return {{"openapi", "3.0.3"},
          {"info",
           {{"title", "agentbox"},
            {"version", kAgentboxVersion},
            {"description", "Sandboxes for AI agents' shell commands (docs/api.md)"},
            {"license",
             {{"name", "Apache-2.0"}, {"url", "https://www.apache.org/licenses/LICENSE-2.0"}}}}},
          // `agentbox serve` listens on a unix socket by default (clients connect to it with any
          // host name) or on --listen tcp:HOST:PORT; the URL is the client's to choose.
          {"servers",
           json::array({{{"url", "http://{host}:{port}"},
                         {"description", "agentbox serve --listen tcp:HOST:PORT"},
                         {"variables",
                          {{"host", {{"default", "127.0.0.1"}}}, {"port", {{"default", "8080"}}}}}},
                        {{"url", "http://localhost"},
                         {"description", "agentbox serve on its unix socket (any host name)"}}})},
          {"tags",
           json::array({{{"name", "sandboxes"}, {"description", "create, list, inspect, remove"}},
                        {{"name", "exec"}, {"description", "run a command"}},
                        {{"name", "processes"}, {"description", "background processes"}},
                        {{"name", "files"}, {"description", "files beneath /workspace"}},
                        {{"name", "mcp"}, {"description", "MCP Streamable HTTP"}},
                        {{"name", "server"}, {"description", "health, metrics, this document"}}})},
          {"paths", paths},
          {"security", json::array({{{"bearer", json::array()}}})},
          {"components",
           {{"schemas", Schemas()},
            {"securitySchemes", {{"bearer", {{"type", "http"}, {"scheme", "bearer"}}}}}}}};
}

}  // namespace agentbox
