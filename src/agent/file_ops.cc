#include "agent/file_ops.h"

#include <exception>

#include "agent/file_request.h"
#include "proto/agent_protocol.h"

namespace agentbox {
namespace {

using OpFunction = StatusOr<nlohmann::json> (*)(const FileRequest&);

struct OpEntry {
  const char* name;
  OpFunction run;
};

constexpr OpEntry kOps[] = {
    {"read_file", ReadFileOp},
    {"write_file", WriteFileOp},
    {"list_dir", ListDirOp},
    {"stat", StatOp},
    {"mkdir", MkdirOp},
    {"remove", RemoveOp},
    {"str_replace", StrReplaceOp},
};

OpFunction FindOp(const std::string& op) {
  for (const OpEntry& entry : kOps) {
    if (op == entry.name) return entry.run;
  }
  return nullptr;
}

nlohmann::json ErrorResponse(const Status& status) {
  return {{"ok", false}, {"code", StatusCodeName(status.code())}, {"error", status.message()}};
}

nlohmann::json Respond(const FileRequest& r) {
  if (!r.request.is_object()) return ErrorResponse(InvalidArgument("request is not an object"));
  auto op = StringField(r.request, "op");
  if (!op.ok()) return ErrorResponse(op.status());
  OpFunction run = FindOp(*op);
  if (!run) return ErrorResponse(InvalidArgument("not a file operation: " + *op));
  StatusOr<nlohmann::json> result = run(r);
  if (!result.ok()) return ErrorResponse(result.status());
  nlohmann::json response = std::move(result).value();
  response["ok"] = true;
  return response;
}

}  // namespace

bool IsFileOp(const std::string& op) { return FindOp(op) != nullptr; }

void HandleFileRequest(int conn_fd, const nlohmann::json& request, int workspace_fd) {
  nlohmann::json response;
  try {
    response = Respond(FileRequest{conn_fd, request, workspace_fd});
  } catch (const std::exception& e) {
    // The ops check types before reading fields; this is the last line, not the plan.
    response = ErrorResponse(InvalidArgument(std::string("malformed request: ") + e.what()));
  }
  // File names need not be UTF-8; replace bad bytes rather than throw (type_error 316).
  std::string payload = response.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (payload.size() > kMaxFramePayload) {  // e.g. an error quoting a huge old_str
    payload = ErrorResponse(ResourceExhausted("the response of " + std::to_string(payload.size()) +
                                              " bytes exceeds the frame limit"))
                  .dump();
  }
  // A failed write means the client is gone: nobody is left to tell.
  (void)WriteFrame(conn_fd, FrameType::kResponse, payload);
}

}  // namespace agentbox
