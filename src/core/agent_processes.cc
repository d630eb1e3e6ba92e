#include "core/agent_processes.h"

#include <nlohmann/json.hpp>

#include "core/agent_client.h"
#include "proto/agent_protocol.h"

namespace agentbox {
namespace {

using nlohmann::json;

// Sends one request (then `data`) on a connection of its own and reads its answer; output
// frames go to `output` when given.
StatusOr<json> Ask(const AgentEndpoint& agent, const json& request, OutputCapture* output = nullptr,
                   ExecCancellation* cancellation = nullptr, std::string_view data = {}) {
  AB_ASSIGN_OR_RETURN(UniqueFd conn, ConnectAgent(agent));
  ExecCancellation::Scope scope(cancellation, conn.get());
  AgentFrameSink sink;
  if (output) {
    sink = [output](const Frame& frame) -> Status {
      if (frame.type != FrameType::kStdout && frame.type != FrameType::kStderr) {
        return Internal("unexpected frame from the agent");
      }
      output->Append(
          frame.type == FrameType::kStdout ? OutputStream::kStdout : OutputStream::kStderr,
          frame.payload);
      return OkStatus();
    };
  }
  auto answer = CallAgent(conn.get(), request, data, sink);
  if (!answer.ok() && cancellation && cancellation->cancelled()) return Unavailable("cancelled");
  return answer;
}

StatusOr<ProcessInfo> InfoOf(const json& answer) {
  if (!answer.contains("process")) return Internal("the agent's answer has no process");
  return ProcessInfoFromWire(answer["process"]);
}

json ProcRequest(const char* op, const std::string& id) { return {{"op", op}, {"proc", id}}; }

}  // namespace

StatusOr<ProcessInfo> AgentStartProcess(const AgentEndpoint& agent, const ExecRequest& request) {
  if (!request.detach) return InvalidArgument("AgentStartProcess: not a detached exec");
  json wire = json::parse(ExecRequestToWire(request));
  AB_ASSIGN_OR_RETURN(json answer, Ask(agent, wire));
  return InfoOf(answer);
}

StatusOr<std::vector<ProcessInfo>> AgentListProcesses(const AgentEndpoint& agent) {
  AB_ASSIGN_OR_RETURN(json answer, Ask(agent, {{"op", "ps"}}));
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

StatusOr<ProcessLogs> AgentProcessLogs(const AgentEndpoint& agent, const std::string& id,
                                       bool follow, uint64_t since, OutputCapture& output,
                                       ExecCancellation* cancellation) {
  json request = ProcRequest("proc_logs", id);
  request["follow"] = follow;
  request["since"] = since;
  AB_ASSIGN_OR_RETURN(json answer, Ask(agent, request, &output, cancellation));
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

StatusOr<ProcessInfo> AgentWaitProcess(const AgentEndpoint& agent, const std::string& id,
                                       double timeout_seconds, ExecCancellation* cancellation) {
  json request = ProcRequest("proc_wait", id);
  if (timeout_seconds > 0) {
    request["timeout_ms"] = static_cast<uint64_t>(std::max(1.0, timeout_seconds * 1000));
  }
  AB_ASSIGN_OR_RETURN(json answer, Ask(agent, request, nullptr, cancellation));
  return InfoOf(answer);
}

StatusOr<ProcessInfo> AgentSignalProcess(const AgentEndpoint& agent, const std::string& id,
                                         int signal) {
  json request = ProcRequest("proc_kill", id);
  request["signal"] = signal;
  AB_ASSIGN_OR_RETURN(json answer, Ask(agent, request));
  return InfoOf(answer);
}

StatusOr<ProcessInfo> AgentWriteProcessStdin(const AgentEndpoint& agent, const std::string& id,
                                             const std::string& data, bool close) {
  if (data.size() > kMaxPendingStdinBytes) {
    return ResourceExhausted("stdin for a background process: at most 1 MiB at once");
  }
  json request = ProcRequest("proc_stdin", id);
  request["size"] = data.size();
  request["close"] = close;
  AB_ASSIGN_OR_RETURN(json answer, Ask(agent, request, nullptr, nullptr, data));
  return InfoOf(answer);
}

}  // namespace agentbox
