#include "core/sandbox_manager.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>

#include "core/agent_client.h"
#include "core/agent_exec.h"
#include "core/sandbox_activity.h"
#include "core/session_records.h"
#include "core/warm_pool.h"
#include "policy/sandbox_env.h"
#include "proto/agent_protocol.h"
#include "proto/policy_walls.h"
#include "spec/spec_json.h"
#include "spec/units.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

// How many commands the agent is running right now (-1 if it does not answer).
int ActiveExecs(const AgentEndpoint& socket) {
  auto conn = ConnectAgent(socket);
  if (!conn.ok()) return -1;
  if (!WriteFrame(conn->get(), FrameType::kRequest, R"({"op":"ping"})").ok()) return -1;
  auto frame = ReadFrame(conn->get());
  if (!frame.ok()) return -1;
  auto j = nlohmann::json::parse(frame->payload, nullptr, false);
  // Checked, not j.value<int>(): a non-number would throw and a huge one convert undefined.
  if (!j.is_object() || !j.contains("active_execs") || !j["active_execs"].is_number_unsigned() ||
      j["active_execs"].get<uint64_t>() > 1'000'000) {
    return -1;
  }
  return static_cast<int>(j["active_execs"].get<uint64_t>());
}

// Names the sandbox-level limits an exec ran into, from two readings of the box's counters.
void AddSandboxLimits(const ResourceSnapshot& before, const ResourceSnapshot& after,
                      ExecResult& result) {
  bool oom = after.oom_kills > before.oom_kills;
  if (oom || after.memory_events > before.memory_events) result.AddLimitHit(kLimitMemory);
  if (after.pids_events > before.pids_events) result.AddLimitHit(kLimitPids);
  if (after.throttled_periods > before.throttled_periods) result.AddLimitHit(kLimitCpu);
  // Full after the command: a write there is refused (the quota keeps no count of refusals).
  if (after.disk_at_limit) result.AddLimitHit(kLimitDisk);
  if (oom && result.signal == 9 && result.reason == ExitReason::kSignaled) {
    result.reason = ExitReason::kOom;
  }
}

// What a caller hears of a sandbox whose ttl has ended (and that is, or is being, removed).
Status ExpiredError(const std::string& ref, const SandboxRecord& record, SandboxEnding ending,
                    const std::string& more = "") {
  if (ending == SandboxEnding::kIdle) {
    return NotFound("sandbox \"" + ref + "\" was unused for its idle_timeout (" +
                    FormatSeconds(record.spec.idle_timeout_seconds) + " seconds) and was removed" +
                    more);
  }
  return NotFound("sandbox \"" + ref + "\" reached the end of its ttl at " +
                  Rfc3339(record.expires_at) + " and was removed" + more);
}

// Whether, and why, a sandbox's life is over at `now` (the idle check does not lock).
std::optional<SandboxEnding> EndingAt(const SandboxRecord& record, int64_t now) {
  if (HasExpired(record, now)) return SandboxEnding::kTtl;
  if (!record.adopted && IdleTimeoutEnded(record, now)) return SandboxEnding::kIdle;
  return std::nullopt;
}

}  // namespace

const char* SandboxStateName(SandboxState state) {
  return state == SandboxState::kRunning ? "running" : "dead";
}

StatusOr<SandboxManager> SandboxManager::Open(BackendList backends) {
  AB_ASSIGN_OR_RETURN(StateStore store, StateStore::Open());
  return SandboxManager(std::move(store), std::move(backends));
}

StatusOr<Backend*> SandboxManager::BackendFor(BackendKind kind) {
  for (auto& [k, backend] : backends_) {
    if (k == kind) return backend.get();
  }
  for (const BackendMaker& maker : makers_) {
    if (maker.kind != kind) continue;
    backends_.emplace_back(kind, maker.make(store_.root()));
    return backends_.back().second.get();
  }
  return InvalidArgument(std::string("backend ") + BackendName(kind) +
                         " is not available in this build");
}

StatusOr<SandboxRecord> SandboxManager::Create(const SandboxSpec& spec, const std::string& name,
                                               const SandboxTenant& tenant) {
  AB_RETURN_IF_ERROR(BackendFor(spec.backend).status());
  if (!name.empty()) AB_RETURN_IF_ERROR(ValidateSandboxName(name));
  // A warm box was made for no tenant, and where the box carries its tenant (kubernetes: labels,
  // which serve's Role may not patch) a claimed one could not be given it: made fresh instead.
  const bool carries_tenant =
      (!tenant.tenant.empty() || !tenant.mcp_session.empty()) && Adopts(spec.backend);
  if (Poolable(spec) && !carries_tenant) {
    Status error;
    if (auto warm = ClaimWarm(spec, name, &error)) {
      LogCreate(*warm, nullptr);
      return *warm;
    }
    AB_RETURN_IF_ERROR(error);
  }
  AB_ASSIGN_OR_RETURN(SandboxRecord record, CreateRecord(spec, name, "", nullptr, tenant));
  LogCreate(record, nullptr);
  return record;
}

StatusOr<SandboxRecord> SandboxManager::CreateRecord(const SandboxSpec& spec,
                                                     const std::string& name,
                                                     const std::string& pool_key,
                                                     const ForkSource* from,
                                                     const SandboxTenant& tenant) {
  AB_ASSIGN_OR_RETURN(Backend * backend, BackendFor(spec.backend));
  AB_ASSIGN_OR_RETURN(std::string id, store_.AllocateId());
  SandboxRecord record;
  record.id = id;
  record.name = name;
  record.pool_key = pool_key;
  record.tenant = tenant.tenant;
  record.tenant_name = tenant.name;
  record.mcp_session = tenant.mcp_session;
  record.backend = spec.backend;
  record.created_at = NowRfc3339();
  record.spec = spec;
  record.state_dir = store_.SandboxDir(id);
  record.agent_socket = record.state_dir + "/agent.sock";
  if (from != nullptr) {
    record.workspace_source = from->workspace_source;
    record.forked_from = from->forked_from;
    record.digest_seed = from->digest_seed;
  }
  Status st = name.empty() ? OkStatus() : store_.ReserveName(name, id);
  if (st.ok()) st = backend->Create(record);
  // The lifetime starts once the sandbox is up (a warm one's when a create claims it).
  // (kubernetes sets it itself, to write it on the pod.)
  if (pool_key.empty() && record.expires_at == 0) {
    record.expires_at = ExpiryOf(spec, std::time(nullptr));
  }
  if (st.ok()) st = store_.Save(record);
  if (st.ok() && pool_key.empty()) MarkActive(record);
  if (!st.ok()) {
    (void)backend->Destroy(record);
    (void)store_.Remove(id, st.code() == StatusCode::kAlreadyExists ? "" : name);
    return st;
  }
  return record;
}

StatusOr<SandboxStatus> SandboxManager::Find(const std::string& ref) {
  auto lookup = [&]() -> StatusOr<SandboxRecord> {
    auto found = store_.Find(ref);
    if (found.ok() || found.status().code() != StatusCode::kNotFound) return found;
    return Adopt(ref, found.status());  // a miss here: kept elsewhere?
  };
  AB_ASSIGN_OR_RETURN(SandboxRecord record, lookup());
  if (!record.pool_key.empty()) return NotFound("no sandbox \"" + ref + "\"");
  if (auto ending = EndingAt(record, std::time(nullptr)); ending && Expire(record, *ending).ok()) {
    return ExpiredError(ref, record, *ending);
  }
  AB_ASSIGN_OR_RETURN(Backend * backend, BackendFor(record.backend));
  const bool alive = backend->IsAlive(record);
  if (DropIfGone(record, alive)) return NotFound("no such sandbox: " + ref);
  return SandboxStatus{std::move(record), alive ? SandboxState::kRunning : SandboxState::kDead};
}

std::vector<SandboxStatus> SandboxManager::List() {
  std::vector<SandboxStatus> out;
  const int64_t now = std::time(nullptr);
  std::set<std::string> known;
  for (SandboxRecord& record : store_.List()) {
    known.insert(record.id);
    if (!record.pool_key.empty()) continue;  // warm, not yet anyone's
    if (auto ending = EndingAt(record, now); ending && Expire(record, *ending).ok()) continue;
    auto backend = BackendFor(record.backend);
    bool alive = backend.ok() && (*backend)->IsAlive(record);
    if (DropIfGone(record, alive)) continue;
    out.push_back({std::move(record), alive ? SandboxState::kRunning : SandboxState::kDead});
  }
  // Those kept elsewhere that this store has not adopted (yet): shown, not adopted.
  auto elsewhere = Adoptable();
  for (SandboxRecord& record : elsewhere.ok() ? *elsewhere : std::vector<SandboxRecord>{}) {
    if (known.count(record.id) > 0 || HasExpired(record, now)) continue;
    auto backend = BackendFor(record.backend);
    bool alive = backend.ok() && (*backend)->IsAlive(record);
    out.push_back({std::move(record), alive ? SandboxState::kRunning : SandboxState::kDead});
  }
  return out;
}

ExecRequest SandboxManager::DefaultExecRequest(const SandboxRecord& record) {
  ExecRequest request;
  request.env = record.spec.env;
  request.cwd = record.spec.cwd;
  request.timeout_seconds = record.spec.limits.timeout_seconds;
  request.output_limit = record.spec.limits.output_bytes;
  return request;
}

Status SandboxManager::CheckUsable(const SandboxRecord& record) {
  AB_ASSIGN_OR_RETURN(Backend * backend, BackendFor(record.backend));
  if (HasExpired(record, std::time(nullptr))) {
    return ExpiredError(record.id, record, SandboxEnding::kTtl);
  }
  if (!backend->IsAlive(record)) {
    return Unavailable("sandbox " + record.id + " is dead (remove it with `agentbox rm`)");
  }
  MarkActive(record);
  return OkStatus();
}

StatusOr<ExecResult> SandboxManager::Exec(const SandboxRecord& record, const ExecRequest& request,
                                          OutputCapture& output, int stdin_fd,
                                          ExecCancellation* cancellation, TerminalInput* terminal) {
  // A record held since before its ttl ended (an MCP session's): say so, not "dead".
  if (HasExpired(record, std::time(nullptr))) {
    return ExpiredError(record.id, record, SandboxEnding::kTtl);
  }
  // In use from here to the result: never idle meanwhile. Taken after an idle removal that got
  // there first, which leaves no record. A restore (or a rollback's command) holding the
  // workspace to itself makes this wait.
  ActivityHold in_use(record);
  if (record.spec.idle_timeout_seconds > 0 && !store_.Load(record.id).ok()) {
    return ExpiredError(record.id, record, SandboxEnding::kIdle);
  }
  return ExecHeld(record, request, output, stdin_fd, cancellation, terminal);
}

StatusOr<ExecResult> SandboxManager::ExecHeld(const SandboxRecord& record,
                                              const ExecRequest& request, OutputCapture& output,
                                              int stdin_fd, ExecCancellation* cancellation,
                                              TerminalInput* terminal,
                                              const std::function<void(ExecResult&)>& settle) {
  if (!Logging(record)) {
    auto result = RunExec(record, request, output, stdin_fd, cancellation, terminal);
    if (result.ok() && settle) settle(*result);
    return result;
  }
  nlohmann::ordered_json rec = SessionRecordHead("exec", record);
  SetWorkspaceDigest(rec, "workspace_before", WorkspaceDigest(record));
  output.EnableDigests();
  auto result = RunExec(record, request, output, stdin_fd, cancellation, terminal);
  if (!result.ok()) return result;  // nothing ran: nothing to log
  if (settle) settle(*result);
  AddExecRequest(rec, request);
  AddExecOutcome(rec, *result, output.digest(OutputStream::kStdout),
                 output.digest(OutputStream::kStderr));
  if (result->rollback) rec["rolled_back"] = result->rollback->rolled_back;
  SetWorkspaceDigest(rec, "workspace_after", WorkspaceDigest(record));
  AppendLog(record, rec);
  return result;
}

StatusOr<ExecResult> SandboxManager::RunExec(const SandboxRecord& record,
                                             const ExecRequest& request, OutputCapture& output,
                                             int stdin_fd, ExecCancellation* cancellation,
                                             TerminalInput* terminal) {
  AB_ASSIGN_OR_RETURN(Backend * backend, BackendFor(record.backend));
  if (!backend->IsAlive(record)) {
    return Unavailable("sandbox " + record.id + " is dead (remove it with `agentbox rm`)");
  }
  // With allow_hosts: a proxy listener of this exec's own, named to the command by the proxy
  // variables (a command's own -e of them wins), its report taken when the exec is over.
  std::unique_ptr<ExecEgress> egress;
  ExecRequest with_proxy;
  const ExecRequest* sent = &request;
  if (!record.spec.allow_hosts.empty()) {
    AB_ASSIGN_OR_RETURN(SandboxRecord proxied, WithEgress(record));
    AB_ASSIGN_OR_RETURN(egress, backend->OpenExecEgress(proxied));
    with_proxy = request;
    with_proxy.env = EgressProxyEnvironment(egress->port());
    with_proxy.env.insert(with_proxy.env.end(), request.env.begin(), request.env.end());
    sent = &with_proxy;
  }
  auto before = backend->Snapshot(record);
  const auto started = std::chrono::steady_clock::now();
  auto executed = AgentExec(record.agent(), *sent, output, stdin_fd, cancellation, terminal);
  if (!executed.ok()) {
    bool cancelled = cancellation != nullptr && cancellation->cancelled();
    if (executed.status().code() == StatusCode::kUnavailable && !cancelled) {
      // The agent went away after the ttl ended: the sandbox is being removed for it (serve's
      // sweep, or another command that found it expired), however far that removal has got.
      if (HasExpired(record, std::time(nullptr))) {
        return ExpiredError(record.id, record, SandboxEnding::kTtl,
                            " (this command was killed with it)");
      }
      if (auto died = backend->ExplainDeath(record)) {
        died->duration_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                .count();
        return *died;
      }
    }
    return executed.status();
  }
  ExecResult result = std::move(executed).value();
  if (egress) {
    // The proxy's attempts, then the lookups the agent's DNS catcher saw (already in result).
    NetworkReport network = egress->Finish();
    AddLookups(network, LookupNames(result.network), result.network.connections_dropped);
    result.network = std::move(network);
  }
  auto after = backend->Snapshot(record);
  if (before.ok() && after.ok()) AddSandboxLimits(*before, *after, result);
  result.disk_limit = DiskLimitReportOf(record.disk_quota);
  LimitValues limits = LimitValuesOf(record.spec.limits);
  limits.timeout_seconds = request.timeout_seconds;
  limits.output_bytes = request.output_limit;
  AddPolicyWalls(result, limits);
  if (record.backend == BackendKind::kDocker && result.effects.syscalls_observed) {
    // The container's own profile holds the same rules and ranks first (ERRNO beats the
    // commands' user notification), so the listener never sees a denial there.
    result.effects.syscalls_observed = false;
    result.effects.syscalls_reason =
        "docker: the container's seccomp profile (the same rules) answers denied calls before "
        "the command's filter can report them: still denied, not itemized";
  }
  return result;
}

Status SandboxManager::Destroy(const SandboxRecord& record) {
  AB_ASSIGN_OR_RETURN(Backend * backend, BackendFor(record.backend));
  AB_RETURN_IF_ERROR(backend->Destroy(record));
  return store_.Remove(record.id, record.name);
}

Status SandboxManager::Expire(const SandboxRecord& record, SandboxEnding ending) {
  // A request and serve's sweep may find it expired at once: the sandbox dir's lock makes one
  // of them remove and count it; the other then finds no record (and counts nothing).
  UniqueFd dir(::open(record.state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return OkStatus();  // already removed
  while (::flock(dir.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return ErrnoStatus("lock " + record.state_dir);
  }
  if (!store_.Load(record.id).ok()) return OkStatus();
  // Idle: held through the removal, so no exec starts on it meanwhile; busy: not idle at all.
  UniqueFd idle;
  if (ending == SandboxEnding::kIdle) {
    idle = ClaimIdle(record, std::time(nullptr));
    if (!idle.valid()) return Unavailable("sandbox " + record.id + " is in use");
  }
  AB_RETURN_IF_ERROR(Destroy(record));
  if (on_expired_) on_expired_(record);
  return OkStatus();
}

Status SandboxManager::Remove(const std::string& ref, bool force) {
  AB_ASSIGN_OR_RETURN(SandboxStatus status, Find(ref));
  if (!force && status.state == SandboxState::kRunning) {
    int busy = ActiveExecs(status.record.agent());
    if (busy > 0) {
      // Each front end says how to force it in its own terms (rm -f, ?force=true).
      return FailedPrecondition("sandbox " + ref + " is running " + std::to_string(busy) +
                                " command(s)");
    }
  }
  return Destroy(status.record);
}

std::vector<std::pair<std::string, SandboxEnding>> SandboxManager::RemoveExpired() {
  std::vector<std::pair<std::string, SandboxEnding>> removed;
  const int64_t now = std::time(nullptr);
  for (const SandboxRecord& record : store_.List()) {
    if (!record.pool_key.empty()) continue;
    if (auto ending = EndingAt(record, now); ending && Expire(record, *ending).ok()) {
      removed.emplace_back(record.id, *ending);
    }
  }
  return removed;
}

GcReport SandboxManager::Gc() {
  GcReport report;
  for (const auto& [id, ending] : RemoveExpired()) {
    report.removed.push_back(
        "sandbox " + id +
        (ending == SandboxEnding::kTtl ? " (its ttl ended)" : " (unused for its idle_timeout)"));
  }
  // Leftovers are collected even when no record names their backend any more.
  for (const BackendMaker& maker : makers_) (void)BackendFor(maker.kind);
  std::vector<std::string> live;
  for (const SandboxRecord& record : store_.List()) {  // warm pool sandboxes included
    auto backend = BackendFor(record.backend);
    if (backend.ok() && (*backend)->IsAlive(record)) {
      live.push_back(record.id);
    } else if (Destroy(record).ok()) {
      if (!record.pool_key.empty()) ::unlink((PoolDir(record.pool_key) + "/" + record.id).c_str());
      report.removed.push_back("sandbox " + record.id);
    }
  }
  for (auto& [name, backend] : backends_) {
    for (std::string& line : backend->CollectGarbage(live)) report.removed.push_back(line);
  }
  for (std::string& path : store_.EmptyTrash()) report.removed.push_back("state " + path);
  return report;
}

PidsLimitReport SandboxManager::PidsLimitOf(const SandboxRecord& record) {
  std::optional<uint64_t> pids_max;
  if (auto backend = BackendFor(record.backend); backend.ok()) {
    if (auto snap = (*backend)->Snapshot(record); snap.ok()) pids_max = snap->pids_limit;
  }
  return PidsLimitReportOf(record.spec.limits.pids, pids_max,
                           record.backend == BackendKind::kKubernetes);
}

StatusOr<std::string> SandboxManager::InspectJson(const std::string& ref) {
  AB_ASSIGN_OR_RETURN(SandboxStatus status, Find(ref));
  const SandboxRecord& r = status.record;
  const std::optional<int64_t> last_active = LastActive(r);
  nlohmann::json j = {
      {"id", r.id},
      {"name", r.name},
      {"backend", BackendName(r.backend)},
      {"state", SandboxStateName(status.state)},
      {"created_at", r.created_at},
      {"expires_at", r.expires_at == 0 ? nlohmann::json() : nlohmann::json(Rfc3339(r.expires_at))},
      {"last_active_at", last_active ? nlohmann::json(Rfc3339(*last_active)) : nlohmann::json()},
      {"workspace", r.workspace},
      {"workspace_temporary", r.workspace_temporary},
      {"disk_limit", nlohmann::json::parse(DiskLimitJson(DiskLimitReportOf(r.disk_quota)))},
      {"policy", SpecToPolicyJson(r.spec)}};
  if (r.backend == BackendKind::kKubernetes) {
    j["kubernetes"] = {{"namespace", r.spec.kube.namespace_name}, {"pod", r.kube_pod}};
    if (!r.kube_claim.empty()) j["kubernetes"]["sandbox_claim"] = r.kube_claim;
  }
  nlohmann::json usage = nullptr;
  std::optional<uint64_t> pids_max;  // the box's, as its kernel says now
  if (status.state == SandboxState::kRunning) {
    AB_ASSIGN_OR_RETURN(Backend * backend, BackendFor(r.backend));
    if (auto snap = backend->Snapshot(r); snap.ok()) {
      usage = {{"peak_memory_bytes", snap->memory_bytes},
               {"cpu_ms", snap->cpu_ms},
               {"oom_kills", snap->oom_kills},
               {"disk_added_bytes", snap->disk_added_bytes}};
      pids_max = snap->pids_limit;
    }
    j["pid"] = r.init_pid;
  }
  j["pids_limit"] = PidsLimitJson(
      PidsLimitReportOf(r.spec.limits.pids, pids_max, r.backend == BackendKind::kKubernetes));
  if (!r.container_id.empty()) j["container_id"] = r.container_id;
  if (!r.image_id.empty()) j["image_id"] = r.image_id;
  j["usage"] = usage;
  return j.dump(2);
}

StatusOr<ExecResult> SandboxManager::RunOnce(const SandboxSpec& spec,
                                             const std::vector<std::string>& argv,
                                             OutputCapture& output, ExecCancellation* cancellation,
                                             Status* removal_error) {
  SandboxSpec once = spec;
  once.session_log = false;  // nothing outlives the one command to read it
  AB_ASSIGN_OR_RETURN(SandboxRecord record, Create(once, ""));
  ExecRequest request = DefaultExecRequest(record);
  request.argv = argv;
  request.pass_stdin = spec.pass_stdin;
  auto result = Exec(record, request, output, spec.pass_stdin ? 0 : -1, cancellation);
  *removal_error = Remove(record.id, /*force=*/true);
  if (!removal_error->ok()) {
    *removal_error = Status(removal_error->code(),
                            "sandbox " + record.id + " not removed: " + removal_error->message());
  }
  return result;
}

}  // namespace agentbox
