#include "core/agent_processes.h"

#include <nlohmann/json.hpp>

#include "core/agent_client.h"
#include "proto/agent_protocol.h"

namespace agentbox {
namespace {

using nlohmann::json;

Status Lost(const Status& status) {
  return Unavailable("lost the connection to the sandbox's agent: " + status.message());
}

// Sends one request and reads frames until its response, which must be ok; output frames go to
// `output` when given.
StatusOr<json> Ask(const std::string& socket_path, const json& request,
                   OutputCapture* output = nullptr, ExecCancellation* cancellation = nullptr,
                   const std::string* data = nullptr) {
  AB_ASSIGN_OR_RETURN(UniqueFd conn, ConnectAgent(socket_path));
  if (cancellation) cancellation->Attach(conn.get());
  struct Detacher {
    ExecCancellation* c;
    ~Detacher() {
      if (c) c->Detach();
    }
  } detacher{cancellation};
  AB_RETURN_IF_ERROR(WriteFrame(conn.get(), FrameType::kRequest, request.dump()));
  for (size_t off = 0; data && off < data->size(); off += kMaxFramePayload) {
    AB_RETURN_IF_ERROR(WriteFrame(conn.get(), FrameType::kData,
                                  std::string_view(*data).substr(off, kMaxFramePayload)));
  }
  for (;;) {
    auto frame = ReadFrame(conn.get());
    if (!frame.ok()) {
      if (cancellation && cancellation->cancelled()) return Unavailable("cancelled");
      return Lost(frame.status());
    }
    if (frame->type == FrameType::kStdout || frame->type == FrameType::kStderr) {
      if (output) {
        output->Append(
            frame->type == FrameType::kStdout ? OutputStream::kStdout : OutputStream::kStderr,
            frame->payload);
      }
      continue;
    }
    if (frame->type != FrameType::kResponse) return Internal("unexpected frame from the agent");
    AB_RETURN_IF_ERROR(ResponseStatus(frame->payload));
    json answer = json::parse(frame->payload, nullptr, /*allow_exceptions=*/false);
    if (!answer.is_object()) return Internal("malformed response from the agent");
    return answer;
  }
}

StatusOr<ProcessInfo> InfoOf(const json& answer) {
  if (!answer.contains("process")) return Internal("the agent's answer has no process");
  return ProcessInfoFromWire(answer["process"]);
}

json ProcRequest(const char* op, const std::string& id) { return {{"op", op}, {"proc", id}}; }

}  // namespace

StatusOr<ProcessInfo> AgentStartProcess(const std::string& socket_path,
                                        const ExecRequest& request) {
  if (!request.detach) return InvalidArgument("AgentStartProcess: not a detached exec");
  json wire = json::parse(ExecRequestToWire(request));
  AB_ASSIGN_OR_RETURN(json answer, Ask(socket_path, wire));
  return InfoOf(answer);
}

StatusOr<std::vector<ProcessInfo>> AgentListProcesses(const std::string& socket_path) {
  AB_ASSIGN_OR_RETURN(json answer, Ask(socket_path, {{"op", "ps"}}));
  if (!answer.contains("processes") || !answer["processes"].is_array()) {
    return Internal("the agent's ps answer has no processes");
  }
  std::vector<ProcessInfo> out;
  for (const json& item : answer["processes"]) {
    AB_ASSIGN_OR_RETURN(ProcessInfo info, ProcessInfoFromWire(item));
    out.push_back(std::move(info));
  }
  return out;
}

StatusOr<ProcessLogs> AgentProcessLogs(const std::string& socket_path, const std::string& id,
                                       bool follow, uint64_t since, OutputCapture& output,
                                       ExecCancellation* cancellation) {
  json request = ProcRequest("proc_logs", id);
  request["follow"] = follow;
  request["since"] = since;
  AB_ASSIGN_OR_RETURN(json answer, Ask(socket_path, request, &output, cancellation));
  ProcessLogs logs;
  AB_ASSIGN_OR_RETURN(logs.process, InfoOf(answer));
  if (!answer.value("from", json()).is_number_unsigned() ||
      !answer.value("next", json()).is_number_unsigned()) {
    return Internal("the agent's logs answer has no offsets");
  }
  logs.from = answer["from"].get<uint64_t>();
  logs.next = answer["next"].get<uint64_t>();
  return logs;
}

StatusOr<ProcessInfo> AgentWaitProcess(const std::string& socket_path, const std::string& id,
                                       double timeout_seconds, ExecCancellation* cancellation) {
  json request = ProcRequest("proc_wait", id);
  if (timeout_seconds > 0) {
    request["timeout_ms"] = static_cast<uint64_t>(std::max(1.0, timeout_seconds * 1000));
  }
  AB_ASSIGN_OR_RETURN(json answer, Ask(socket_path, request, nullptr, cancellation));
  return InfoOf(answer);
}

StatusOr<ProcessInfo> AgentSignalProcess(const std::string& socket_path, const std::string& id,
                                         int signal) {
  json request = ProcRequest("proc_kill", id);
  request["signal"] = signal;
  AB_ASSIGN_OR_RETURN(json answer, Ask(socket_path, request));
  return InfoOf(answer);
}

StatusOr<ProcessInfo> AgentWriteProcessStdin(const std::string& socket_path, const std::string& id,
                                             const std::string& data, bool close) {
  if (data.size() > kMaxPendingStdinBytes) {
    return ResourceExhausted("stdin for a background process: at most 1 MiB at once");
  }
  json request = ProcRequest("proc_stdin", id);
  request["size"] = data.size();
  request["close"] = close;
  AB_ASSIGN_OR_RETURN(json answer, Ask(socket_path, request, nullptr, nullptr, &data));
  return InfoOf(answer);
}

}  // namespace agentbox
