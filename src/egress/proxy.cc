#include "egress/proxy.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cerrno>

#include "egress/proxy_internal.h"
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
  report.connections.push_back(std::move(c));
  return report.connections.size() - 1;
}

void ExecEntry::OnEvents(int fd, uint32_t events) {
  if (fd == listener.get()) return AcceptClients();
  if (fd == control.get()) {
    if (events & EPOLLIN) return ReadControl();
    End(false);
  }
}

void ExecEntry::AcceptClients() {
  for (int i = 0; i < 16 && !ended; ++i) {
    UniqueFd client(::accept4(listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!client.valid()) return;
    if (connections.size() >= proxy->limits().connections_per_exec) {
      // Refused at once, not queued: a flood gets answers, not a stall.
      Record(Target{"", false, 0}, false,
             "over egress_connections (" + std::to_string(proxy->limits().connections_per_exec) +
                 " at once)");
      continue;
    }
    auto connection = std::make_unique<Connection>(proxy, this, std::move(client));
    Connection* raw = connection.get();
    connections.insert(raw);
    proxy->Adopt(std::move(connection));
    raw->Start();
  }
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
  if (text == "open" && fd.valid() && !listener.valid() && IsListeningTcp(fd.get())) {
    listener = std::move(fd);
    // Accepted until EAGAIN: it must not block, whatever the sender made it.
    const int flags = ::fcntl(listener.get(), F_GETFL);
    if (flags < 0 || ::fcntl(listener.get(), F_SETFL, flags | O_NONBLOCK) != 0 ||
        !proxy->loop().Add(listener.get(), EPOLLIN, this).ok()) {
      End(false);
    }
    return;
  }
  End(text == "finish");
}

void ExecEntry::End(bool answer) {
  if (ended) return;
  ended = true;
  if (listener.valid()) proxy->loop().Remove(listener.get());
  listener.reset();
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
