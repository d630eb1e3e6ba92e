#include "http/openapi.h"

#include <string>

#include "http/openapi_schemas.h"
#include "http/routes.h"
#include "spec/spec_overlay.h"

namespace agentbox {
namespace {

using nlohmann::json;

json Ref(std::string_view schema) {
  return {{"$ref", "#/components/schemas/" + std::string(schema)}};
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
  return {{"type", "object"},
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
             {{"type", "boolean"},
              {"description", "with detach: keep its stdin open for .../stdin"}}},
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
  json str = {{"type", "string"}};
  json num = {{"type", "number"}};
  json boolean = {{"type", "boolean"}};
  return {{"type", "object"},
          {"description", "CONTRACT §1 JSON result"},
          {"properties",
           {{"exit_code", {{"type", "integer"}}},
            {"signal", {{"type", "integer"}, {"nullable", true}}},
            {"reason",
             {{"type", "string"}, {"enum", {"exited", "signaled", "timeout", "oom", "error"}}}},
            {"error", str},
            {"error_code",
             {{"type", "string"},
              {"description", "with error: the code an API error with this message has"}}},
            {"duration_ms", num},
            {"cpu_ms", num},
            {"peak_memory_bytes", {{"type", "integer"}}},
            {"stdout", str},
            {"stderr", str},
            {"stdout_truncated", boolean},
            {"stderr_truncated", boolean},
            {"limits_hit", {{"type", "array"}, {"items", str}}},
            {"rollback",
             {{"type", "object"},
              {"description", "with rollback_on_failure only"},
              {"properties", {{"rolled_back", boolean}, {"error", str}}}}}}}};
}

json ProcessSchema() {
  json str = {{"type", "string"}};
  json integer = {{"type", "integer"}};
  json result = Ref("ExecResult");
  result = {{"allOf", json::array({result})},
            {"nullable", true},
            {"description", "once exited: the exec result, without stdout and stderr (the logs)"}};
  return {{"type", "object"},
          {"description", "a background process (`agentbox exec -d`)"},
          {"properties",
           {{"id", {{"type", "string"}, {"description", "\"p1\", \"p2\", ... in start order"}}},
            {"argv", {{"type", "array"}, {"items", str}}},
            {"state", {{"type", "string"}, {"enum", {"running", "exited"}}}},
            {"started_at", {{"type", "number"}, {"description", "unix seconds"}}},
            {"stdin_open", {{"type", "boolean"}}},
            {"output_bytes",
             {{"type", "integer"}, {"description", "both streams since it started: the offsets"}}},
            {"dropped_bytes",
             {{"type", "integer"}, {"description", "the oldest of them, gone from the ring"}}},
            {"result", result}}}};
}

json VerifyReportSchema() {
  json str = {{"type", "string"}};
  json boolean = {{"type", "boolean"}};
  json check = {{"type", "object"},
                {"properties", {{"name", str}, {"want", str}, {"got", str}, {"ok", boolean}}}};
  return {{"type", "object"},
          {"description", "ok is true when every check passed (`agentbox inspect --verify`)"},
          {"properties",
           {{"id", str}, {"ok", boolean}, {"checks", {{"type", "array"}, {"items", check}}}}}};
}

json Schemas() {
  json str = {{"type", "string"}};
  json obj = {{"type", "object"}};
  json sandbox = {{"type", "object"},
                  {"properties",
                   {{"id", str},
                    {"name", str},
                    {"backend", str},
                    {"state", {{"type", "string"}, {"enum", {"running", "dead"}}}},
                    {"created_at", str},
                    {"workspace", str},
                    {"policy", obj},
                    {"usage", {{"type", "object"}, {"nullable", true}}}}}};
  json entry = {{"type", "object"},
                {"properties",
                 {{"name", str},
                  {"type", str},
                  {"size", {{"type", "integer"}}},
                  {"mode", {{"type", "integer"}}},
                  {"mtime", {{"type", "integer"}}}}}};
  return {
      {"Error",
       {{"type", "object"},
        {"required", {"error"}},
        {"properties", {{"error", str}, {"code", str}}}}},
      {"Sandbox", sandbox},
      {"SandboxList",
       {{"type", "object"},
        {"properties", {{"sandboxes", {{"type", "array"}, {"items", Ref("Sandbox")}}}}}}},
      {"CreateSandbox", CreateSandboxSchema()},
      {"ExecRequest", ExecRequestSchema()},
      {"ExecResult", ExecResultSchema()},
      {"StreamEvent",
       {{"type", "object"},
        {"description", "one NDJSON line or SSE data: stdout/stderr chunk or result"},
        {"properties",
         {{"type", {{"type", "string"}, {"enum", {"stdout", "stderr", "result"}}}},
          {"data", str},
          {"result", Ref("ExecResult")}}}}},
      {"DirListing",
       {{"type", "object"},
        {"properties", {{"path", str}, {"entries", {{"type", "array"}, {"items", entry}}}}}}},
      {"EditRequest",
       {{"type", "object"},
        {"required", {"path", "old_str", "new_str"}},
        {"properties", {{"path", str}, {"old_str", str}, {"new_str", str}}}}},
      {"Written",
       {{"type", "object"}, {"properties", {{"path", str}, {"bytes", {{"type", "integer"}}}}}}},
      {"Removed", {{"type", "object"}, {"properties", {{"removed", str}}}}},
      {"JsonRpc", {{"type", "object"}, {"description", "a JSON-RPC 2.0 message (MCP)"}}},
      {"VerifyReport", VerifyReportSchema()},
      {"Process", ProcessSchema()},
      {"ProcessList",
       {{"type", "object"},
        {"properties", {{"processes", {{"type", "array"}, {"items", Ref("Process")}}}}}}},
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
       {{"type", "object"},
        {"description",
         "one NDJSON line or SSE data: stdout/stderr chunks, then process (or error) last"},
        {"properties",
         {{"type", {{"type", "string"}, {"enum", {"stdout", "stderr", "process", "error"}}}},
          {"data", str},
          {"from", {{"type", "integer"}}},
          {"next", {{"type", "integer"}}},
          {"process", Ref("Process")},
          {"error", str},
          {"code", str}}}}},
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

json Operation(const Route& route) {
  json op = {{"operationId", std::string(route.operation_id)},
             {"summary", std::string(route.summary)},
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
    op["requestBody"] = {
        {"required", true},
        {"content",
         {{"application/octet-stream", {{"schema", {{"type", "string"}, {"format", "binary"}}}}}}}};
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
            {"version", "0.1.0"},
            {"description", "Sandboxes for AI agents' shell commands (docs/api.md)"}}},
          {"paths", paths},
          {"security", json::array({{{"bearer", json::array()}}})},
          {"components",
           {{"schemas", Schemas()},
            {"securitySchemes", {{"bearer", {{"type", "http"}, {"scheme", "bearer"}}}}}}}};
}

}  // namespace agentbox
