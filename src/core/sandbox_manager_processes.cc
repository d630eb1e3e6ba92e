// SandboxManager's background processes: the checks every request shares, then the agent.
#include <optional>

#include "core/agent_processes.h"
#include "core/sandbox_activity.h"
#include "core/sandbox_manager.h"
#include "core/session_records.h"
#include "policy/sandbox_env.h"

namespace agentbox {

StatusOr<ProcessInfo> SandboxManager::StartProcess(const SandboxRecord& record,
                                                   const ExecRequest& request) {
  AB_RETURN_IF_ERROR(CheckUsable(record));
  ExecRequest detached = request;
  detached.detach = true;
  detached.pass_stdin = false;  // an interactive one's stdin is written with WriteProcessStdin
  // The proxy running on this host (one adopted from elsewhere gets its own here).
  AB_ASSIGN_OR_RETURN(SandboxRecord proxied, WithEgress(record));
  if (proxied.egress_background_port != 0) {
    // The sandbox's listener for background processes (backend_common/sandbox_egress.h); a
    // command's own -e of the variables wins, as in Exec.
    detached.env = EgressProxyEnvironment(proxied.egress_background_port);
    detached.env.insert(detached.env.end(), request.env.begin(), request.env.end());
  }
  // Its start is a use: it waits while a restore has the workspace to itself.
  ActivityHold starting(record);
  if (!Logging(record)) return AgentStartProcess(record.agent(), detached);
  // Logged as it starts: what it does later shows in the digests of the records after it.
  nlohmann::ordered_json rec = SessionRecordHead("exec", record);
  SetWorkspaceDigest(rec, "workspace_before", WorkspaceDigest(record));
  auto info = AgentStartProcess(record.agent(), detached);
  if (!info.ok()) return info;
  AddExecRequest(rec, detached);
  rec["process"] = info->id;
  if (info->result) rec["exit_code"] = info->result->exit_code;  // it could not start
  AppendLog(record, rec);
  return info;
}

StatusOr<std::vector<ProcessInfo>> SandboxManager::ListProcesses(const SandboxRecord& record) {
  AB_RETURN_IF_ERROR(CheckUsable(record));
  return AgentListProcesses(record.agent());
}

StatusOr<ProcessLogs> SandboxManager::ProcessOutput(const SandboxRecord& record,
                                                    const std::string& id, bool follow,
                                                    uint64_t since, OutputCapture& output,
                                                    ExecCancellation* cancellation) {
  AB_RETURN_IF_ERROR(CheckProcessId(id));
  AB_RETURN_IF_ERROR(CheckUsable(record));
  // Following is a use for as long as it lasts, as a running exec is.
  std::optional<ActivityHold> in_use;
  if (follow) in_use.emplace(record);
  return AgentProcessLogs(record.agent(), id, follow, since, output, cancellation);
}

StatusOr<ProcessInfo> SandboxManager::WaitProcess(const SandboxRecord& record,
                                                  const std::string& id, double timeout_seconds,
                                                  ExecCancellation* cancellation) {
  AB_RETURN_IF_ERROR(CheckProcessId(id));
  AB_RETURN_IF_ERROR(CheckUsable(record));
  ActivityHold in_use(record);
  return AgentWaitProcess(record.agent(), id, timeout_seconds, cancellation);
}

StatusOr<ProcessInfo> SandboxManager::SignalProcess(const SandboxRecord& record,
                                                    const std::string& id, int signal) {
  AB_RETURN_IF_ERROR(CheckProcessId(id));
  AB_RETURN_IF_ERROR(CheckUsable(record));
  return AgentSignalProcess(record.agent(), id, signal);
}

StatusOr<ProcessInfo> SandboxManager::WriteProcessStdin(const SandboxRecord& record,
                                                        const std::string& id,
                                                        const std::string& data, bool close) {
  AB_RETURN_IF_ERROR(CheckProcessId(id));
  AB_RETURN_IF_ERROR(CheckUsable(record));
  return AgentWriteProcessStdin(record.agent(), id, data, close);
}

}  // namespace agentbox
