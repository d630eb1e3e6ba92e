// SandboxManager::Verify: the probe through the normal exec path, then the comparison of
// core/verify.h against the policy, the host's namespaces (a pod's node's initial ones) and the
// backend's cgroup reading, then the backend's own checks.
#include <charconv>

#include "core/sandbox_manager.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

// Long enough for a loaded host; the probe itself takes milliseconds.
constexpr double kProbeTimeoutSeconds = 30;
constexpr uint64_t kProbeOutputLimit = 1024 * 1024;

// The namespaces agentbox itself runs in: what the sandbox's must differ from.
std::map<std::string, std::string> OwnNamespaces() {
  std::map<std::string, std::string> links;
  for (const char* ns : kVerifiedNamespaces) {
    if (auto link = ReadLink(std::string("/proc/self/ns/") + ns); link.ok()) links[ns] = *link;
  }
  return links;
}

// The third field of each line of the host's /etc/passwd (agentbox is static: no NSS).
std::vector<uint32_t> HostAccountUids() {
  std::vector<uint32_t> uids;
  auto text = ReadFile("/etc/passwd");
  if (!text.ok()) return uids;
  size_t pos = 0;
  while (pos < text->size()) {
    size_t end = text->find('\n', pos);
    if (end == std::string::npos) end = text->size();
    std::string line = text->substr(pos, end - pos);
    pos = end + 1;
    size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    size_t c = b == std::string::npos ? b : line.find(':', b + 1);
    if (c == std::string::npos) continue;
    uint32_t uid = 0;
    auto [p, ec] = std::from_chars(line.data() + b + 1, line.data() + c, uid);
    if (ec == std::errc() && p == line.data() + c) uids.push_back(uid);
  }
  return uids;
}

}  // namespace

StatusOr<VerifyReport> SandboxManager::Verify(const std::string& ref) {
  AB_ASSIGN_OR_RETURN(SandboxStatus status, Find(ref));
  const SandboxRecord& record = status.record;
  if (status.state != SandboxState::kRunning) {
    return Unavailable("sandbox " + record.id + " is dead (remove it with `agentbox rm`)");
  }
  ExecRequest request = DefaultExecRequest(record);
  request.argv = VerifyProbeArgv();
  request.cwd = "/";
  request.timeout_seconds = kProbeTimeoutSeconds;
  request.output_limit = kProbeOutputLimit;
  OutputCapture capture(kProbeOutputLimit, /*forward_fds=*/false);
  AB_ASSIGN_OR_RETURN(ExecResult result, Exec(record, request, capture));
  if (result.reason != ExitReason::kExited || result.exit_code != 0 ||
      capture.truncated(OutputStream::kStdout)) {
    return Internal("the verify probe failed in sandbox " + record.id + " (" +
                    ExitReasonName(result.reason) + ", exit " + std::to_string(result.exit_code) +
                    ")");
  }
  VerifyExpectations want;
  // A pod runs on a node's kernel: agentbox's own namespaces and accounts say nothing of it.
  want.remote_node = record.backend == BackendKind::kKubernetes;
  if (!want.remote_node) {
    want.host_namespaces = OwnNamespaces();
    want.host_account_uids = HostAccountUids();
  }
  want.uid = record.spec.user.uid;  // 1000, or the image's user
  want.gid = record.spec.user.gid;
  want.memory_limit_bytes = record.spec.limits.memory_bytes;
  want.pids_limit = record.spec.limits.pids;
  AB_ASSIGN_OR_RETURN(Backend * backend, BackendFor(record.backend));
  if (auto snap = backend->Snapshot(record); snap.ok()) {
    want.got_memory_limit_bytes = snap->memory_limit_bytes;
    want.got_pids_limit = snap->pids_limit;
  }
  VerifyReport report;
  report.id = record.id;
  report.checks = CompareIsolation(SplitProbeOutput(capture.kept(OutputStream::kStdout)), want);
  for (VerifyCheck& check : backend->VerifyChecks(record))
    report.checks.push_back(std::move(check));
  return report;
}

}  // namespace agentbox
