#include "egress/proxy.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "egress/proxy_internal.h"
#include "egress/relay_dial.h"
#include "proto/agent_protocol.h"
#include "proto/relay_wire.h"
#include "sys/fd_passing.h"

namespace agentbox::egress {
namespace {

constexpr size_t kMaxReportBytes = 160 * 1024;  // under a SOCK_SEQPACKET message's limit

// A received listener must be what the host side sends: a listening TCP socket, nothing else.
bool IsListeningTcp(int fd) {
  int type = 0, listening = 0, domain = 0;
  socklen_t len = sizeof(int);
  return ::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM &&
         ::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 && listening == 1 &&
         ::getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 &&
         (domain == AF_INET || domain == AF_INET6);
}

// A relay listener's owner: a connected stream socket, unix (gVisor) or TCP (kubernetes).
bool IsConnectedStream(int fd) {
  int type = 0, domain = 0, listening = 0;
  socklen_t len = sizeof(int);
  return ::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM &&
         ::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 && listening == 0 &&
         ::getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 &&
         (domain == AF_UNIX || domain == AF_INET || domain == AF_INET6);
}

// A connection to the relay, not yet told what it is for.
UniqueFd DialRelay(const std::string& tcp, const std::string& token) {
  if (!tcp.empty()) {
    // Blocking, on the proxy's one thread: a connect and a hello's round trip to the pod (on a
    // cluster's network, well under a millisecond), at most kHelloTimeoutSeconds for a pod that
    // stopped answering, whose listeners then close and end the proxy.
    auto fd = DialTcpRelay(tcp, token);
    if (!fd.ok()) {
      std::fprintf(stderr, "%s\n", fd.status().message().c_str());
      return UniqueFd();
    }
    const int flags = ::fcntl(fd->get(), F_GETFL);
    if (flags < 0 || ::fcntl(fd->get(), F_SETFL, flags | O_NONBLOCK) != 0) return UniqueFd();
    return std::move(*fd);
  }
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, kEgressRelaySocketName, sizeof(addr.sun_path) - 1);
  if (!fd.valid() ||
      ::connect(fd.get(), reinterpret_cast<struct sockaddr*>(&addr), sizeof(addr)) != 0) {
    return UniqueFd();
  }
  return fd;
}

}  // namespace

size_t ExecEntry::Record(const Target& target, bool allowed, const std::string& reason) {
  if (report.connections.size() >= kMaxNetworkConnections) {
    ++report.connections_dropped;
    return SIZE_MAX;
  }
  NetworkConnection c;
  c.host = target.host;
  c.port = target.port;
  c.allowed = allowed;
  c.reason = reason;
  // Nobody asks for a background entry's report: its denials go to the proxy's log (its
  // stderr), as many lines as the report keeps.
  if (background && !allowed) {
    NetworkReport one;
    one.connections.push_back(c);
    std::fprintf(stderr, "background process: %s", NetworkDenialLines(one).c_str());
  }
  report.connections.push_back(std::move(c));
  return report.connections.size() - 1;
}

void ExecEntry::OnEvents(int fd, uint32_t events) {
  if (fd == listener.get()) return AcceptClients();
  if (fd == relay_owner.get()) return DropRelay();
  if (parked.count(fd) != 0) return OnParked(fd, events);
  if (fd == control.get()) {
    if (events & EPOLLIN) return ReadControl();
    End(false);
  }
}

void ExecEntry::AcceptClients() {
  for (int i = 0; i < 16 && !ended; ++i) {
    UniqueFd client(::accept4(listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!client.valid()) return;
    AdoptClient(std::move(client));
  }
}

void ExecEntry::AdoptClient(UniqueFd client) {
  if (connections.size() >= proxy->limits().connections_per_exec) {
    // Refused at once, not queued: a flood gets answers, not a stall.
    Record(Target{"", false, 0}, false,
           "over egress_connections (" + std::to_string(proxy->limits().connections_per_exec) +
               " at once)");
    return;
  }
  auto connection = std::make_unique<Connection>(proxy, this, std::move(client));
  Connection* raw = connection.get();
  connections.insert(raw);
  proxy->Adopt(std::move(connection));
  raw->Start();
}

void ExecEntry::ReadControl() {
  char message[64];
  int received = -1;
  const ssize_t got =
      sys::ReceiveWithFd(control.get(), message, sizeof(message), &received, MSG_DONTWAIT);
  UniqueFd fd(received);
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (got <= 0) return End(false);
  const std::string_view text(message, static_cast<size_t>(got));
  const bool fresh = !listener.valid() && !relay_owner.valid();
  if (text == "open" && fd.valid() && fresh && IsListeningTcp(fd.get())) {
    if (!UseListener(std::move(fd))) End(false);
    return;
  }
  constexpr std::string_view kRelay = "relay ";
  if (text.substr(0, kRelay.size()) == kRelay && fd.valid() && fresh &&
      IsConnectedStream(fd.get()) && proxy->relay_ready()) {
    relay_id = std::strtoull(std::string(text.substr(kRelay.size())).c_str(), nullptr, 10);
    relay_owner = std::move(fd);
    if (!proxy->loop().Add(relay_owner.get(), EPOLLIN | EPOLLRDHUP, this).ok()) return End(false);
    return Park();
  }
  if (text == "background" && !fresh) return KeepForBackground();
  End(text == "finish");
}

// From now on the entry serves every background process of the sandbox for the proxy's life:
// nobody will ask for its report, and its control connection's hang-up ends nothing.
void ExecEntry::KeepForBackground() {
  background = true;
  proxy->loop().Remove(control.get());
  control.reset();
}

bool ExecEntry::UseListener(UniqueFd fd) {
  listener = std::move(fd);
  // Accepted until EAGAIN: it must not block, whatever the sender made it.
  const int flags = ::fcntl(listener.get(), F_GETFL);
  return flags >= 0 && ::fcntl(listener.get(), F_SETFL, flags | O_NONBLOCK) == 0 &&
         proxy->loop().Add(listener.get(), EPOLLIN, this).ok();
}

void ExecEntry::Park() {
  while (!ended && relay_owner.valid() && parked.size() < kParkedPerExec) {
    UniqueFd fd = proxy->ConnectRelay(relay_id);
    if (!fd.valid()) return;  // tried again when a parked one is used or dropped
    const int raw = fd.get();
    if (!proxy->loop().Add(raw, EPOLLIN | EPOLLRDHUP, this).ok()) return;
    parked[raw] = std::move(fd);
  }
}

// The relay's word on a parked connection: a client connected ("c"), or it let it go.
void ExecEntry::OnParked(int fd, uint32_t events) {
  char told = 0;
  const ssize_t n = ::recv(fd, &told, 1, MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EINTR) && !(events & (EPOLLHUP | EPOLLERR))) return;
  proxy->loop().Remove(fd);
  UniqueFd conn = std::move(parked[fd]);
  parked.erase(fd);
  if (n == 1 && told == kRelayClientByte) AdoptClient(std::move(conn));
  Park();
}

// The relay closed the exec's listener (a command killed it, or the sandbox ended): no more
// clients come; those connected go on, and the report stays for "finish".
void ExecEntry::DropRelay() {
  if (background && !ended) proxy->OnBackgroundRelayGone();
  proxy->loop().Remove(relay_owner.get());
  relay_owner.reset();
  for (auto& [fd, conn] : parked) proxy->loop().Remove(fd);
  parked.clear();
}

void ExecEntry::End(bool answer) {
  if (ended) return;
  ended = true;
  if (listener.valid()) proxy->loop().Remove(listener.get());
  listener.reset();
  if (relay_owner.valid()) DropRelay();
  std::set<Connection*> open;
  open.swap(connections);
  for (Connection* c : open) c->Close("");
  if (answer) {
    std::string json = NetworkJson(report).dump();
    if (json.size() > kMaxReportBytes) json = "{\"egress\":true,\"connections\":[]}";
    ssize_t ignored = ::send(control.get(), json.data(), json.size(), MSG_NOSIGNAL);
    (void)ignored;
  }
  proxy->loop().Remove(control.get());
  control.reset();
  proxy->RetireExec(this);
}

Proxy::Proxy(EgressRules rules, ProxyLimits limits) : rules_(std::move(rules)), limits_(limits) {}

Status Proxy::SetRelayDir(int relay_dir) {
  if (::fchdir(relay_dir) != 0) return ErrnoStatus("enter the sandbox's run dir");
  relay_ready_ = true;
  return OkStatus();
}

void Proxy::SetRelayTcp(std::string address, std::string token) {
  relay_tcp_ = std::move(address);
  relay_token_ = std::move(token);
  relay_ready_ = true;
}

void Proxy::OnBackgroundRelayGone() {
  if (!relay_tcp_.empty()) stop_ = true;
}

UniqueFd Proxy::ConnectRelay(uint64_t id) {
  UniqueFd fd = DialRelay(relay_tcp_, relay_token_);
  if (!fd.valid()) return fd;
  const std::string line = RelayParkLine(id);
  if (::send(fd.get(), line.data(), line.size(), MSG_DONTWAIT | MSG_NOSIGNAL) !=
      static_cast<ssize_t>(line.size())) {
    return UniqueFd();
  }
  return fd;
}

Proxy::~Proxy() {
  for (auto& [raw, exec] : execs_) exec->ended = true;
  connections_.clear();
}

void Proxy::Adopt(std::unique_ptr<Connection> connection) {
  Connection* raw = connection.get();
  raw->set_id(next_id_++);
  by_id_[raw->id()] = raw;
  connections_[raw] = std::move(connection);
}

Connection* Proxy::Find(uint64_t id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

void Proxy::Retire(Connection* connection) {
  by_id_.erase(connection->id());
  retired_.push_back(connection);
}
void Proxy::RetireExec(ExecEntry* exec) { retired_execs_.push_back(exec); }

void Proxy::FreeRetired() {
  for (Connection* c : retired_) connections_.erase(c);
  retired_.clear();
  for (ExecEntry* e : retired_execs_) execs_.erase(e);
  retired_execs_.clear();
  // A run's proxy serves its one control connection and ends with it.
  if (!control_listens_ && execs_.empty()) stop_ = true;
}

void Proxy::AcceptControl() {
  UniqueFd fd(::accept4(control_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
  if (!fd.valid()) return;
  if (execs_.size() >= kMaxExecs) return;  // closed: that exec runs without egress
  auto exec = std::make_unique<ExecEntry>();
  exec->proxy = this;
  exec->control = std::move(fd);
  exec->report.egress = true;
  if (!loop_.Add(exec->control.get(), EPOLLIN, exec.get()).ok()) return;
  ExecEntry* raw = exec.get();
  execs_[raw] = std::move(exec);
}

void Proxy::OnEvents(int fd, uint32_t /*events*/) {
  if (fd == watch_fd_) stop_ = true;
  if (fd == control_.get()) AcceptControl();
}

void Proxy::CheckDeadlines() {
  const auto now = Clock::now();
  std::vector<Connection*> late;
  for (auto& [raw, c] : connections_) {
    if (c->Expired(now)) late.push_back(raw);
  }
  for (Connection* c : late) c->Close("timed out before it was connected");
}

Status Proxy::Run(UniqueFd control, bool control_listens, int watch_fd) {
  AB_RETURN_IF_ERROR(loop_.Init());
  AB_RETURN_IF_ERROR(resolver_.Init());
  control_ = std::move(control);
  control_listens_ = control_listens;
  watch_fd_ = watch_fd;
  if (control_listens_) {
    AB_RETURN_IF_ERROR(loop_.Add(control_.get(), EPOLLIN, this));
  } else {
    auto exec = std::make_unique<ExecEntry>();
    exec->proxy = this;
    exec->control = std::move(control_);
    exec->report.egress = true;
    AB_RETURN_IF_ERROR(loop_.Add(exec->control.get(), EPOLLIN, exec.get()));
    ExecEntry* raw = exec.get();
    execs_[raw] = std::move(exec);
  }
  if (watch_fd_ >= 0) AB_RETURN_IF_ERROR(loop_.Add(watch_fd_, EPOLLIN, this));
  auto last_check = Clock::now();
  while (!stop_) {
    int timeout = resolver_.TimeoutMs();
    if (timeout < 0 || timeout > 1000) timeout = 1000;
    AB_RETURN_IF_ERROR(loop_.RunOnce(timeout));
    resolver_.OnTimeout();
    resolver_.RunDeferred();
    if (Clock::now() - last_check >= std::chrono::seconds(1)) {
      CheckDeadlines();
      last_check = Clock::now();
    }
    FreeRetired();
  }
  return OkStatus();
}

}  // namespace agentbox::egress
