#include "backend_common/sandbox_egress.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "egress/proxy_process.h"
#include "proto/agent_hello.h"
#include "sys/process_identity.h"
#include "sys/syscalls.h"

namespace agentbox {
namespace {

// The proxies this process started and has not reaped (pid, start time). A long-lived serve
// starts them itself (kubernetes: for a sandbox adopted from elsewhere) and must wait for each,
// or every one that ends (removed, or its pod gone through another replica) stays a zombie until
// serve exits. Only these pids are waited for: another child's status is not ours to take.
std::mutex g_proxies_mutex;
std::vector<std::pair<pid_t, uint64_t>> g_proxies;

// Reaps the proxies of g_proxies that have ended; forgets those no longer ours (their pid gone or
// reused). `blocking_pid`, killed just now, is waited for until it has ended.
void ReapProxies(pid_t blocking_pid) {
  std::lock_guard<std::mutex> lock(g_proxies_mutex);
  std::erase_if(g_proxies, [&](const std::pair<pid_t, uint64_t>& proxy) {
    const auto [pid, start] = proxy;
    if (ProcessStartTime(pid) != start) return true;
    const bool wait = pid == blocking_pid;
    if (!wait && ProcessRunning(pid, start)) return false;
    siginfo_t info = {};
    int rc;
    while ((rc = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | (wait ? 0 : WNOHANG))) !=
               0 &&
           errno == EINTR) {
    }
    return rc != 0 || info.si_pid == pid;
  });
}

class ChannelEgress : public ExecEgress {
 public:
  explicit ChannelEgress(egress::ExecChannel channel) : channel_(std::move(channel)) {}
  uint16_t port() const override { return channel_.port(); }
  NetworkReport Finish() override { return channel_.Finish(); }

 private:
  egress::ExecChannel channel_;
};

StatusOr<UniqueFd> ListenControl(const std::string& path) {
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) {
    return InvalidArgument("state directory path too long for a unix socket: " + path);
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  ::unlink(path.c_str());
  // 0600 and root's, in the 0700 state directory: only the host side (root) connects. The
  // proxy, once it has dropped to its own id, keeps the listening fd and needs no path.
  if (::bind(fd.get(), reinterpret_cast<struct sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::chmod(path.c_str(), 0600) != 0 || ::listen(fd.get(), 64) != 0) {
    return ErrnoStatus("listen on " + path);
  }
  return fd;
}

// The dir of the sandbox's egress relay socket, for the proxy (O_PATH): checked to hold the
// socket the agent made, not a link a command planted (the dir is sealed: root's, 0755).
StatusOr<UniqueFd> OpenRelayDir(const std::string& relay_path) {
  const size_t slash = relay_path.rfind('/');
  UniqueFd dir(::open(relay_path.substr(0, slash).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  struct stat dir_st = {}, sock_st = {};
  if (!dir.valid() || ::fstat(dir.get(), &dir_st) != 0 ||
      ::fstatat(dir.get(), relay_path.substr(slash + 1).c_str(), &sock_st, AT_SYMLINK_NOFOLLOW) !=
          0) {
    return ErrnoStatus("the sandbox's egress relay socket " + relay_path);
  }
  if (!S_ISSOCK(sock_st.st_mode) || dir_st.st_uid != 0 || (dir_st.st_mode & 022) != 0) {
    return Internal("the sandbox's egress relay socket " + relay_path +
                    " is not a socket in a directory only root may change");
  }
  return dir;
}

StatusOr<egress::ExecChannel> OpenChannel(const SandboxRecord& record) {
  if (record.egress_socket.empty()) {
    return Unavailable("sandbox " + record.id + " has no egress proxy");
  }
  return record.egress_relay.empty()
             ? egress::ExecChannel::OpenForSandbox(record.egress_socket, record.init_pid,
                                                   record.init_start_time)
             : egress::ExecChannel::OpenRelayed(record.egress_socket, record.egress_relay,
                                                record.agent_token);
}

// The proxy, its listening control socket given; fills record.egress_pid and its start time.
Status SpawnProxy(SandboxRecord& record, int control) {
  egress::RelayAccess relay;
  UniqueFd watch, relay_dir;
  if (IsTcpAgentAddress(record.egress_relay)) {
    // A pod's PID 1 is on another machine: no pidfd. The proxy ends with the relay's
    // background listener instead (egress/proxy.h SetRelayTcp), and always at Destroy.
    relay.tcp_address = record.egress_relay;
    relay.token = record.agent_token;
  } else {
    watch.reset(sys::PidfdOpen(record.init_pid));
    if (!watch.valid() || !ProcessRunning(record.init_pid, record.init_start_time)) {
      return Unavailable("the sandbox's PID 1 ended before its egress proxy started");
    }
    if (!record.egress_relay.empty()) {
      AB_ASSIGN_OR_RETURN(relay_dir, OpenRelayDir(record.egress_relay));
      relay.dir_fd = relay_dir.get();
    }
  }
  AB_ASSIGN_OR_RETURN(pid_t pid, egress::StartEgressProxy(record.spec, control, true, watch.get(),
                                                          relay, record.state_dir + "/egress.log"));
  record.egress_pid = pid;
  record.egress_start_time = ProcessStartTime(pid);
  ReapProxies(0);
  std::lock_guard<std::mutex> lock(g_proxies_mutex);
  g_proxies.emplace_back(pid, record.egress_start_time);
  return OkStatus();
}

}  // namespace

Status StartSandboxEgress(SandboxRecord& record) {
  record.egress_socket = record.state_dir + "/egress.sock";
  AB_ASSIGN_OR_RETURN(UniqueFd control, ListenControl(record.egress_socket));
  AB_RETURN_IF_ERROR(SpawnProxy(record, control.get()));
  // The listener every background process (exec -d) is given, served for the sandbox's life.
  AB_ASSIGN_OR_RETURN(egress::ExecChannel background, OpenChannel(record));
  record.egress_background_port = background.port();
  return background.KeepForBackground();
}

void StopSandboxEgress(const SandboxRecord& record) {
  if (record.egress_pid <= 0) return;
  UniqueFd pidfd(sys::PidfdOpen(record.egress_pid));
  // Checked through the pidfd: the pid cannot be reused while it is held.
  const bool killed = pidfd.valid() &&
                      ProcessRunning(record.egress_pid, record.egress_start_time) &&
                      sys::PidfdSendSignal(pidfd.get(), SIGKILL) == 0;
  ReapProxies(killed ? record.egress_pid : 0);
}

bool SandboxEgressRuns(const SandboxRecord& record) {
  return !record.egress_socket.empty() &&
         ProcessRunning(record.egress_pid, record.egress_start_time);
}

StatusOr<std::unique_ptr<ExecEgress>> OpenSandboxEgress(const SandboxRecord& record) {
  AB_ASSIGN_OR_RETURN(egress::ExecChannel channel, OpenChannel(record));
  return std::unique_ptr<ExecEgress>(new ChannelEgress(std::move(channel)));
}

}  // namespace agentbox
