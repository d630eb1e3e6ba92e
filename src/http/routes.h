// The routes of `agentbox serve`: one table that drives dispatch, auth, body limits and the
// OpenAPI document (openapi.h), so the three cannot drift apart.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"

namespace agentbox {

inline constexpr uint64_t kMaxJsonBody = 1u << 20;   // 1 MiB
inline constexpr uint64_t kMaxFileBody = 64u << 20;  // 64 MiB
// The input one POST .../stdin may carry: what may wait for a background process to read it
// (proto/process_wire.h, kMaxPendingStdinBytes).
inline constexpr uint64_t kMaxStdinBody = 1u << 20;  // 1 MiB

enum class BodyKind { kNone, kJson, kBytes };

enum class RouteId {
  kHealthz,
  kMetrics,
  kOpenApi,
  kListSandboxes,
  kCreateSandbox,
  kGetSandbox,
  kDeleteSandbox,
  kVerifySandbox,
  kExec,
  kExecTty,
  kListProcesses,
  kGetProcess,
  kProcessLogs,
  kWaitProcess,
  kKillProcess,
  kWriteProcessStdin,
  kReadFile,
  kWriteFile,
  kDeleteFile,
  kEditFile,
  kListSnapshots,
  kCreateSnapshot,
  kDeleteSnapshot,
  kRestoreSnapshot,
  kDiffSnapshot,
  kForkSnapshot,
  kSessionLog,
  kReadArchive,
  kWriteArchive,
  kMcpPost,
  kMcpGet,
  kMcpDelete,
};

struct Route {
  RouteId id;
  std::string_view method;
  std::string_view pattern;  // "/v1/sandboxes/{id}/exec": a {name} segment is a path parameter
  std::string_view operation_id;
  std::string_view summary;
  bool needs_auth;  // every route but /healthz, once a tokens file is given
  BodyKind body;
  std::string_view query;         // comma-separated query parameter names (see QueryParams())
  int success;                    // the status of a successful answer
  std::string_view success_type;  // its media type ("" for no body)
  std::string_view schema;        // components/schemas entry of the request ("" for none)
  std::string_view result;        // components/schemas entry of the answer ("" for none)
  std::string_view errors;        // comma-separated error statuses it may answer
};

struct QueryParam {
  std::string_view name;
  std::string_view type;  // OpenAPI type: "string", "boolean", "integer"
  bool required;
  std::string_view description;
};

std::span<const Route> Routes();
std::span<const QueryParam> QueryParams();
const QueryParam* FindQueryParam(std::string_view name);

// The most a request body to this route may hold.
uint64_t MaxBodyBytes(const Route& route);

struct RouteMatch {
  const Route* route = nullptr;
  std::map<std::string, std::string> params;  // {id} -> "3f2a..."
};

// kNotFound when no pattern matches the path; kInvalidArgument "method not allowed" (the
// caller answers 405 with `allow`) when one does for other methods only.
StatusOr<RouteMatch> MatchRoute(std::string_view method, std::string_view path,
                                std::string* allow = nullptr);

}  // namespace agentbox
