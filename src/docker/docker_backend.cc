#include "docker/docker_backend.h"

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "backend_common/sandbox_egress.h"
#include "backend_common/sandbox_resources.h"
#include "core/agent_binary.h"
#include "core/agent_client.h"
#include "docker/container_config.h"
#include "docker/daemon_image_user.h"
#include "docker/engine_client.h"
#include "docker/host_ids.h"
#include "docker/image_pull.h"
#include "docker/runtimes.h"
#include "policy/seccomp_docker_profile.h"
#include "proc/cgroup.h"
#include "proc/urandom_watch.h"
#include "proc/workspace.h"
#include "proto/agent_protocol.h"
#include "sys/file_util.h"
#include "sys/mountinfo.h"
#include "sys/process_identity.h"
#include "sys/syscalls.h"

namespace agentbox {
namespace {

using docker::EngineClient;
using docker::HttpResponse;

constexpr auto kAgentStartTimeout = std::chrono::seconds(20);
constexpr const char* kWorkspaceMount = "workspace-mnt";

bool AgentAnswers(const AgentEndpoint& agent) {
  auto conn = ConnectAgent(agent);
  if (!conn.ok()) return false;
  if (!WriteFrame(conn->get(), FrameType::kRequest, R"({"op":"ping"})").ok()) return false;
  auto frame = ReadFrame(conn->get());
  return frame.ok() && ResponseStatus(frame->payload).ok();
}

// The container's log (the agent's stderr), demultiplexed from Docker's 8-byte-header frames.
std::string ContainerLog(EngineClient& client, const std::string& name) {
  auto r = client.Call("GET", "/containers/" + name + "/logs?stdout=1&stderr=1&tail=5");
  if (!r.ok() || r->status != 200) return "";
  std::string out;
  std::string_view body = r->body;
  while (body.size() >= 8) {
    size_t len = (static_cast<unsigned char>(body[4]) << 24) |
                 (static_cast<unsigned char>(body[5]) << 16) |
                 (static_cast<unsigned char>(body[6]) << 8) | static_cast<unsigned char>(body[7]);
    body.remove_prefix(8);
    out.append(body.substr(0, len));
    body.remove_prefix(std::min(len, body.size()));
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  if (size_t nl = out.rfind('\n'); nl != std::string::npos) out = out.substr(nl + 1);
  return out;
}

// The host reaches the agent at this path: one past sun_path's 107 bytes could never be
// connected to, and would only show as an agent that never answers.
Status CheckAgentSocketPath(const std::string& path) {
  constexpr size_t kMax = sizeof(sockaddr_un::sun_path) - 1;
  if (path.size() <= kMax) return OkStatus();
  return InvalidArgument("the state directory's path is too long: the agent's socket would be " +
                         path + " (" + std::to_string(path.size()) +
                         " bytes; a unix socket path has at most " + std::to_string(kMax) +
                         "); set AGENTBOX_STATE_DIR to a shorter path");
}

class DockerBackend : public Backend {
 public:
  explicit DockerBackend(std::string state_root) : state_root_(std::move(state_root)) {}

  Status Create(SandboxRecord& record) override {
    if (record.spec.rootfs) {
      return InvalidArgument(
          "--rootfs is for the native backend; the docker backend takes --image");
    }
    AB_RETURN_IF_ERROR(CheckAgentSocketPath(record.state_dir + "/run/" + docker::kAgentSocketName));
    AB_ASSIGN_OR_RETURN(EngineClient * client, Client());
    AB_RETURN_IF_ERROR(docker::EnsureImage(*client, record.spec.image, !record.spec.no_pull));
    AB_ASSIGN_OR_RETURN(record.spec.user,
                        docker::ResolveDaemonImageUser(*client, record.spec.image,
                                                       docker::ContainerName(record.id) + "-user"));
    // gVisor's network stack is its own, not a kernel namespace the proxy's listener can be made
    // in: there the agent runs the egress relay, through which the proxy serves the sandbox.
    bool relay = false;
    if (!record.spec.allow_hosts.empty()) {
      AB_ASSIGN_OR_RETURN(relay, docker::RuntimeIsGvisor(*client, record.spec.runtime));
    }
    if (record.spec.clock_start_seconds) {
      // gVisor has no time namespaces: the offsets could not be set, and a clock that silently
      // is not the one asked for would make a replay diverge for no visible reason.
      AB_ASSIGN_OR_RETURN(bool gvisor, docker::RuntimeIsGvisor(*client, record.spec.runtime));
      if (gvisor) {
        return InvalidArgument(
            "clock_start is not available under gVisor (--runtime runsc): "
            "it has no time namespaces");
      }
    }
    if (record.spec.random_seed) {
      // gVisor gives no seccomp listener: getrandom could not be answered from the seed.
      AB_ASSIGN_OR_RETURN(bool gvisor, docker::RuntimeIsGvisor(*client, record.spec.runtime));
      if (gvisor) {
        return InvalidArgument(
            "random_seed is not available under gVisor (--runtime runsc): "
            "it has no seccomp user notification to answer getrandom with");
      }
      AB_RETURN_IF_ERROR(SeededUrandomSupported());  // the host's kernel answers (runc)
    }
    AB_ASSIGN_OR_RETURN(docker::ContainerIds default_ids, Ids(*client));
    const docker::ContainerIds ids = docker::WithSandboxUser(default_ids, record.spec.user);
    WorkspaceRequest ws_request = SandboxWorkspaceRequest(record, state_root_);
    ws_request.fixed_ids = SandboxHostIds{ids.host_uid, ids.host_gid};
    AB_ASSIGN_OR_RETURN(Workspace ws, PrepareWorkspace(ws_request));
    KeepWorkspace(ws, record);
    if (ws.idmapped_tree.valid()) {
      AB_ASSIGN_OR_RETURN(bool gvisor, docker::RuntimeIsGvisor(*client, record.spec.runtime));
      if (gvisor) {
        return docker::GvisorWorkspaceOwnerError(ws.host_path, ws.owner_uid, ws.owner_gid,
                                                 ids.host_uid, ids.host_gid);
      }
    }
    std::string bind_source = ws.host_path;
    if (ws.idmapped_tree.valid()) {
      // Files the sandbox's uid 1000 writes land owned by the directory's owner.
      bind_source = record.state_dir + "/" + kWorkspaceMount;
      AB_RETURN_IF_ERROR(MakeDir(bind_source, 0700));
      if (sys::MoveMount(ws.idmapped_tree.get(), "", AT_FDCWD, bind_source.c_str(),
                         MOVE_MOUNT_F_EMPTY_PATH) != 0) {
        return ErrnoStatus("attach the idmapped workspace at " + bind_source);
      }
    }
    // The agent binds its socket here; once it listens the dir is handed to root, so nothing in
    // the sandbox (same uid as the agent) can replace the socket.
    std::string run_dir = record.state_dir + "/run";
    AB_RETURN_IF_ERROR(MakeDir(run_dir, 0700));
    if (::chown(run_dir.c_str(), ids.host_uid, ids.host_gid) != 0)
      return ErrnoStatus("chown " + run_dir);
    record.agent_socket = run_dir + "/" + docker::kAgentSocketName;

    docker::ContainerInputs in;
    in.id = record.id;
    in.state_root = state_root_;
    in.agent_host_path = AgentBinaryPath();
    in.run_host_dir = run_dir;
    in.workspace_host_path = bind_source;
    in.disk_watch = ws.quota.enforced() && ws.quota.limited();
    in.clock_start = record.spec.clock_start_seconds;
    in.seccomp_profile_json = DockerSeccompProfileJson();
    in.user = ids.user;
    in.egress_relay = relay;
    in.resolv_conf_host_path = record.state_dir + "/resolv.conf";
    AB_RETURN_IF_ERROR(WriteFile(in.resolv_conf_host_path, kSandboxResolvConf));
    if (relay) record.egress_relay = run_dir + "/" + kEgressRelaySocketName;
    if (::access(in.agent_host_path.c_str(), X_OK) != 0) {
      return ErrnoStatus("the agent binary " + in.agent_host_path);
    }
    std::string name = docker::ContainerName(record.id);
    AB_ASSIGN_OR_RETURN(HttpResponse created,
                        client->Call("POST", "/containers/create?name=" + name,
                                     docker::ContainerCreateBody(record.spec, in)));
    if (created.status != 201) return CreateError(created, record.spec);
    auto j = nlohmann::json::parse(created.body, nullptr, false);
    record.container_id = j.is_object() ? j.value("Id", "") : "";
    AB_ASSIGN_OR_RETURN(HttpResponse started,
                        client->Call("POST", "/containers/" + name + "/start"));
    if (started.status != 204 && started.status != 304) {
      return Unavailable("docker: start " + name + ": " + docker::ErrorMessage(started));
    }
    AB_RETURN_IF_ERROR(AwaitAgent(*client, record));
    if (::chown(run_dir.c_str(), 0, 0) != 0 || ::chmod(run_dir.c_str(), 0755) != 0) {
      return ErrnoStatus("seal " + run_dir);
    }
    if (!record.spec.allow_hosts.empty()) AB_RETURN_IF_ERROR(StartSandboxEgress(record));
    return OkStatus();
  }

  StatusOr<std::unique_ptr<ExecEgress>> OpenExecEgress(const SandboxRecord& record) override {
    return OpenSandboxEgress(record);
  }

  bool IsAlive(const SandboxRecord& record) override {
    return ProcessRunning(record.init_pid, record.init_start_time);
  }

  Status Destroy(const SandboxRecord& record) override {
    StopSandboxEgress(record);
    AB_ASSIGN_OR_RETURN(EngineClient * client, Client());
    std::string name = docker::ContainerName(record.id);
    AB_ASSIGN_OR_RETURN(HttpResponse r,
                        client->Call("DELETE", "/containers/" + name + "?force=1&v=1"));
    if (r.status != 204 && r.status != 404) {
      return Unavailable("docker: remove " + name + ": " + docker::ErrorMessage(r));
    }
    UnmountWorkspace(record.state_dir);
    ReleaseSandboxWorkspace(record, state_root_);
    return OkStatus();
  }

  StatusOr<ResourceSnapshot> Snapshot(const SandboxRecord& record) override {
    auto cgroup = record.cgroup_location.empty() ? OpenContainerCgroup(record.init_pid)
                                                 : OpenCgroupAt(record.cgroup_location);
    if (!cgroup.ok()) return cgroup.status();
    AB_ASSIGN_OR_RETURN(CgroupStats stats, (*cgroup)->ReadStats());
    ResourceSnapshot snapshot = ToResourceSnapshot(stats);
    AddWorkspaceUsage(record, snapshot);
    return snapshot;
  }

  // Docker records an OOM kill of the container (under gVisor: of the Sentry, so of the box).
  // The connection drops as the box is killed, before dockerd has seen it stop: wait for that.
  std::optional<ExecResult> ExplainDeath(const SandboxRecord& record) override {
    auto client = Client();
    if (!client.ok()) return std::nullopt;
    const std::string path = "/containers/" + docker::ContainerName(record.id) + "/json";
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    for (;;) {
      auto r = (*client)->Call("GET", path);
      if (!r.ok() || r->status != 200) return std::nullopt;
      auto j = nlohmann::json::parse(r->body, nullptr, false);
      const nlohmann::json* state =
          j.is_object() && j.contains("State") && j["State"].is_object() ? &j["State"] : nullptr;
      if (state == nullptr) return std::nullopt;
      if (!state->value("Running", false)) {
        if (!state->value("OOMKilled", false)) return std::nullopt;
        ExecResult result;
        result.exit_code = 128 + 9;
        result.signal = 9;
        result.reason = ExitReason::kOom;
        result.AddLimitHit(kLimitMemory);
        return result;
      }
      if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  std::vector<std::string> CollectGarbage(const std::vector<std::string>& live_ids) override {
    std::vector<std::string> removed;
    auto is_live = [&](const std::string& id) {
      return std::find(live_ids.begin(), live_ids.end(), id) != live_ids.end();
    };
    auto client = Client();
    if (client.ok()) {
      nlohmann::json filters = {{"label",
                                 {std::string(docker::kLabelManaged) + "=1",
                                  std::string(docker::kLabelStateDir) + "=" + state_root_}}};
      auto r = (*client)->Call(
          "GET", "/containers/json?all=1&filters=" + docker::UrlEncode(filters.dump()));
      auto list = r.ok() && r->status == 200 ? nlohmann::json::parse(r->body, nullptr, false)
                                             : nlohmann::json();
      for (const auto& c : list.is_array() ? list : nlohmann::json::array()) {
        std::string id = c.value("/Labels"_json_pointer / docker::kLabelId, std::string());
        if (id.empty() || is_live(id)) continue;
        std::string cid = c.value("Id", "");
        auto del = (*client)->Call("DELETE", "/containers/" + cid + "?force=1&v=1");
        if (del.ok() && (del->status == 204 || del->status == 404)) {
          removed.push_back("docker container " + cid.substr(0, 12) + " (sandbox " + id + ")");
        }
      }
    }
    // Idmapped workspaces of sandboxes whose state is gone or dead.
    auto mounts = ReadFile("/proc/self/mountinfo");
    std::string prefix = state_root_ + "/sandboxes/";
    for (const MountInfoEntry& m : ParseMountInfo(mounts.ok() ? *mounts : "")) {
      if (m.mount_point.rfind(prefix, 0) != 0) continue;
      std::string rest = m.mount_point.substr(prefix.size());
      size_t slash = rest.find('/');
      if (slash == std::string::npos || rest.substr(slash + 1) != kWorkspaceMount) continue;
      if (is_live(rest.substr(0, slash))) continue;
      if (::umount2(m.mount_point.c_str(), MNT_DETACH) == 0) {
        removed.push_back("workspace mount " + m.mount_point);
      }
    }
    return removed;
  }

 private:
  StatusOr<EngineClient*> Client() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!client_) {
      auto c = EngineClient::FromEnvironment();
      if (!c.ok()) return Unavailable("backend docker: " + c.status().message());
      client_.emplace(std::move(c).value());
    }
    return &*client_;
  }

  // The container's cgroup, found from where its init lives.
  StatusOr<std::unique_ptr<Cgroup>> OpenContainerCgroup(pid_t init_pid) {
    AB_ASSIGN_OR_RETURN(CgroupHost host, Host());
    AB_ASSIGN_OR_RETURN(std::string proc_cgroup,
                        ReadFile("/proc/" + std::to_string(init_pid) + "/cgroup"));
    return OpenCgroupOf(host, proc_cgroup);
  }

  // Asked once per process: whether the daemon remaps user namespaces does not change under it.
  StatusOr<docker::ContainerIds> Ids(EngineClient& client) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!ids_) ids_ = docker::AskContainerIds(client);
    return *ids_;
  }

  StatusOr<CgroupHost> Host() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!host_) host_ = DetectCgroupHost();
    return *host_;
  }

  static Status CreateError(const HttpResponse& r, const SandboxSpec& spec) {
    std::string message = docker::ErrorMessage(r);
    if (r.status == 404) {
      return NotFound("image " + spec.image + " not found on the docker daemon (" + message + ")");
    }
    if (message.find("runtime") != std::string::npos) {
      return Unavailable("docker: runtime \"" + spec.runtime +
                         "\" is not registered with dockerd (" + message + ")");
    }
    return Unavailable("docker: create container: " + message);
  }

  Status AwaitAgent(EngineClient& client, SandboxRecord& record) {
    std::string name = docker::ContainerName(record.id);
    auto deadline = std::chrono::steady_clock::now() + kAgentStartTimeout;
    auto delay = std::chrono::microseconds(500);
    while (std::chrono::steady_clock::now() < deadline) {
      if (record.init_pid == 0) {
        AB_ASSIGN_OR_RETURN(HttpResponse r, client.Call("GET", "/containers/" + name + "/json"));
        auto j = nlohmann::json::parse(r.body, nullptr, false);
        if (r.status != 200 || !j.is_object()) {
          return Unavailable("docker: inspect " + name + ": " + docker::ErrorMessage(r));
        }
        const auto& state = j["State"];
        if (!state.value("Running", false)) {
          std::string log = ContainerLog(client, name);
          return Unavailable("docker: the sandbox's agent exited at start" +
                             (log.empty() ? std::string() : ": " + log));
        }
        record.init_pid = state.value("Pid", 0);
        // The image's id (its config's digest): the session log's image digest.
        if (j.contains("Image") && j["Image"].is_string()) record.image_id = j["Image"];
        record.init_start_time = ProcessStartTime(record.init_pid);
        if (auto cgroup = OpenContainerCgroup(record.init_pid); cgroup.ok()) {
          record.cgroup_location = (*cgroup)->Location();
        }
      } else if (!IsAlive(record)) {
        std::string log = ContainerLog(client, name);
        return Unavailable("docker: the sandbox's agent exited at start" +
                           (log.empty() ? std::string() : ": " + log));
      }
      if (AgentAnswers(record.agent())) return OkStatus();
      std::this_thread::sleep_for(delay);
      delay = std::min(delay * 2, std::chrono::microseconds(20000));
    }
    return Unavailable("docker: the sandbox's agent did not answer within 20 s");
  }

  static void UnmountWorkspace(const std::string& state_dir) {
    std::string mnt = state_dir + "/" + kWorkspaceMount;
    if (PathExists(mnt)) (void)::umount2(mnt.c_str(), MNT_DETACH);
  }

  std::string state_root_;
  std::mutex mutex_;
  std::optional<EngineClient> client_;
  std::optional<StatusOr<CgroupHost>> host_;
  std::optional<StatusOr<docker::ContainerIds>> ids_;
};

}  // namespace

std::unique_ptr<Backend> MakeDockerBackend(const std::string& state_root) {
  return std::make_unique<DockerBackend>(state_root);
}

}  // namespace agentbox
