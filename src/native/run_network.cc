#include "native/run_network.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include "policy/sandbox_env.h"
#include "sys/netns.h"

namespace agentbox {

RunNetwork::~RunNetwork() { Stop(); }

Status RunNetwork::Start(const SandboxSpec& spec, LaunchRequest& request) {
  egress_ = !spec.allow_hosts.empty();
  if (egress_) {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
      return ErrnoStatus("socketpair for the egress proxy");
    }
    UniqueFd ours(pair[0]), theirs(pair[1]);
    AB_ASSIGN_OR_RETURN(proxy_pid_,
                        egress::StartEgressProxy(spec, theirs.get(), false, -1, {}, ""));
    control_ = std::move(ours);
    request.extra_env = EgressProxyEnvironment(egress::kRunProxyPort);
  }
  request.before_release = [this](pid_t child) { return OpenInNamespace(child); };
  return OkStatus();
}

Status RunNetwork::OpenInNamespace(pid_t child) {
  const std::string ns = "/proc/" + std::to_string(child) + "/ns/net";
  UniqueFd netns(::open(ns.c_str(), O_RDONLY | O_CLOEXEC));
  if (!netns.valid()) return ErrnoStatus("open the sandbox's network namespace");
  StatusOr<UniqueFd> listener = UniqueFd();
  AB_RETURN_IF_ERROR(sys::InNetworkNamespace(netns.get(), [&] {
    // Without a catcher the run goes on: a lookup then fails as it would anyway, and the
    // result's note falls back to reading stderr (proto/exec_result.h NetworkNotes).
    auto catcher = DnsCatcher::Open();
    if (catcher.ok()) catcher_ = std::move(*catcher);
    if (egress_) listener = egress::ListenOnLoopback(egress::kRunProxyPort);
    return listener.status();
  }));
  if (egress_) {
    AB_ASSIGN_OR_RETURN(auto channel,
                        egress::ExecChannel::Open(std::move(control_), std::move(*listener)));
    channel_ = std::move(channel);
  }
  if (catcher_) {
    stop_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!stop_.valid()) return ErrnoStatus("eventfd");
    catcher_thread_ = std::thread([this] { ServeCatcher(); });
  }
  return OkStatus();
}

// The catcher's thread: its sockets until the stop eventfd is written.
void RunNetwork::ServeCatcher() {
  for (;;) {
    std::vector<int> fds = catcher_->fds();
    std::vector<struct pollfd> pfds = {{stop_.get(), POLLIN, 0}};
    for (int fd : fds) pfds.push_back({fd, POLLIN, 0});
    if (::poll(pfds.data(), pfds.size(), -1) < 0) continue;
    if (pfds[0].revents != 0) return;
    for (size_t i = 1; i < pfds.size(); ++i) {
      if (pfds[i].revents != 0) catcher_->OnReadable(pfds[i].fd);
    }
  }
}

NetworkReport RunNetwork::Finish() {
  NetworkReport report;
  if (egress_) report = channel_ ? channel_->Finish() : NetworkReport{true, {}, 0};
  Stop();
  if (catcher_) {
    uint64_t lost = 0;
    std::vector<std::string> names = catcher_->NamesSince(0, &lost);
    AddLookups(report, names, lost);
  }
  return report;
}

// The proxy's report is in (or never will be): it ends on the hang-up, or now (our child, so
// its pid is still ours until we reap it).
void RunNetwork::Stop() {
  if (catcher_thread_.joinable()) {
    const uint64_t one = 1;
    (void)!::write(stop_.get(), &one, sizeof(one));
    catcher_thread_.join();
  }
  control_.reset();
  channel_.reset();
  if (proxy_pid_ > 0) {
    ::kill(proxy_pid_, SIGKILL);
    ::waitpid(proxy_pid_, nullptr, 0);
    proxy_pid_ = -1;
  }
}

}  // namespace agentbox
