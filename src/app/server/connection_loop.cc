// ConnectionLoop: accepting, the registry of connections, the body budget, drain.
#include "app/server/connection_loop.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <asio/post.hpp>
#include <cerrno>
#include <system_error>

#include "app/cli.h"
#include "app/server/http_server.h"
#include "http/http_status.h"
#include "sys/tcp_peer_uid.h"

namespace agentbox {
namespace {

// How long accepting holds off when the process is out of fds or memory (no busy loop).
constexpr std::chrono::milliseconds kAcceptPause{50};
// Accepts per wake-up, so a flood of connects cannot starve the connections already in.
constexpr int kAcceptBatch = 64;

// Who a client is, for the per-peer cap: its uid over a unix socket and over TCP from this host
// (over loopback every local user has the same address: a cap by address let one of them hold
// every connection, and lock out all the others, /healthz included), its address otherwise.
std::string PeerKey(int fd, bool tcp) {
  if (!tcp) {
    struct ucred cred = {};
    socklen_t len = sizeof(cred);
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return "uid:?";
    return "uid:" + std::to_string(cred.uid);
  }
  if (std::optional<uid_t> uid = TcpPeerUid(fd)) return "uid:" + std::to_string(*uid);
  struct sockaddr_storage addr = {};
  socklen_t len = sizeof(addr);
  char text[INET6_ADDRSTRLEN] = "?";
  if (::getpeername(fd, reinterpret_cast<struct sockaddr*>(&addr), &len) == 0) {
    const void* ip =
        addr.ss_family == AF_INET6
            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&addr)->sin6_addr)
            : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&addr)->sin_addr);
    ::inet_ntop(addr.ss_family, ip, text, sizeof(text));
  }
  return text;
}

}  // namespace

ConnectionLoop::ConnectionLoop(ServerContext& ctx, LoopSettings settings)
    : ctx_(ctx),
      settings_(settings),
      read_buffer_(64 * 1024),
      long_pool_(settings.long_workers),
      short_pool_(settings.short_workers) {}

ConnectionLoop::~ConnectionLoop() {
  long_pool_.Stop();
  short_pool_.Stop();
}

void ConnectionLoop::Run(UniqueFd listener, const ListenAddress& address, UniqueFd signal_fd,
                         int abort_fd) {
  address_ = address;
  tcp_ = !address.unix_socket;
  abort_fd_ = abort_fd;
  listener_.emplace(io_, listener.release());
  signals_.emplace(io_, signal_fd.release());
  signals_->async_wait(asio::posix::descriptor_base::wait_read, [this](const asio::error_code& ec) {
    if (!ec) BeginDrain();
  });
  WaitAcceptable();
  io_.run();
  // Every connection is closed: the pools have nothing left (a job posts back before ending).
  long_pool_.Stop();
  short_pool_.Stop();
}

void ConnectionLoop::WaitAcceptable() {
  if (draining_ || !listener_ || accept_armed_) return;
  accept_armed_ = true;
  listener_->async_wait(asio::posix::descriptor_base::wait_read,
                        [this](const asio::error_code& ec) {
                          accept_armed_ = false;
                          if (!ec) OnAcceptable();
                        });
}

void ConnectionLoop::PauseAccepting() {
  accept_paused_ = true;
  if (idle_.empty()) return;  // a connection closing resumes it (Closed)
  // The longest-idle client becomes evictable then.
  evict_timer_.expires_at(idle_.front()->idle_since + kEvictAfterIdle);
  evict_timer_.async_wait([this](const asio::error_code& ec) {
    if (ec || !accept_paused_) return;
    accept_paused_ = false;
    OnAcceptable();
  });
}

void ConnectionLoop::OnAcceptable() {
  for (int i = 0; i < kAcceptBatch && !draining_; ++i) {
    if (connections_.size() >= static_cast<size_t>(settings_.max_connections) && !EvictIdle()) {
      // Full of busy connections: new clients wait in the listen backlog until one closes.
      return PauseAccepting();
    }
    int fd = ::accept4(listener_->native_handle(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of fds or memory: hold off a moment rather than spin on a listener we cannot
        // accept from. The clients wait in the backlog.
        pause_timer_.expires_after(kAcceptPause);
        pause_timer_.async_wait([this](const asio::error_code& ec) {
          if (!ec) WaitAcceptable();
        });
        return;
      }
      continue;  // ECONNABORTED and the like concern that one client only
    }
    Admit(fd);
  }
  WaitAcceptable();
}

void ConnectionLoop::Admit(int fd) {
  if (tcp_) {
    int one = 1;
    // Small answers go out at once: Nagle would hold them for the client's delayed ACK.
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  std::string peer = PeerKey(fd, tcp_);
  std::shared_ptr<ClientConnection> conn;
  try {
    conn = std::make_shared<ClientConnection>(*this, fd, peer);
  } catch (const std::exception&) {
    ::close(fd);  // out of memory, or epoll refused the fd: this client only
    return;
  }
  connections_[conn.get()] = conn;
  if (++per_peer_[peer] > settings_.max_per_peer) {
    return conn->Refuse(429,
                        QuotaExceeded("too many connections from " + peer + " (at most " +
                                      std::to_string(settings_.max_per_peer) +
                                      " at once): reuse a keep-alive connection"),
                        {});
  }
  conn->Start();
}

bool ConnectionLoop::EvictIdle() {
  if (idle_.empty() ||
      std::chrono::steady_clock::now() - idle_.front()->idle_since < kEvictAfterIdle) {
    return false;
  }
  idle_.front()->Close();  // the longest idle keep-alive client: it reconnects when it needs to
  return true;
}

void ConnectionLoop::BecameIdle(ClientConnection* conn) {
  conn->idle_since = std::chrono::steady_clock::now();
  conn->idle_pos = idle_.insert(idle_.end(), conn);
}

void ConnectionLoop::LeftIdle(ClientConnection* conn) { idle_.erase(conn->idle_pos); }

bool ConnectionLoop::ReserveBody(uint64_t bytes, const std::shared_ptr<ClientConnection>& conn) {
  if (body_waiters_.empty() && body_reserved_ + bytes <= settings_.body_budget) {
    body_reserved_ += bytes;
    return true;
  }
  body_waiters_.emplace_back(conn, bytes);
  return false;
}

void ConnectionLoop::ReleaseBody(uint64_t bytes) {
  body_reserved_ -= bytes;
  while (!body_waiters_.empty() &&
         body_reserved_ + body_waiters_.front().second <= settings_.body_budget) {
    auto [conn, want] = std::move(body_waiters_.front());
    body_waiters_.pop_front();
    body_reserved_ += want;
    conn->StartBody(want);
  }
}

bool ConnectionLoop::Submit(bool long_pool, std::function<void()> job) {
  return (long_pool ? long_pool_ : short_pool_).Submit(std::move(job));
}

void ConnectionLoop::Closed(ClientConnection* conn) {
  auto peer = per_peer_.find(conn->peer());
  if (peer != per_peer_.end() && --peer->second <= 0) per_peer_.erase(peer);
  // Posted, so the connection is not destroyed inside its own Close().
  auto it = connections_.find(conn);
  if (it != connections_.end()) {
    asio::post(io_, [doomed = std::move(it->second)] {});
    connections_.erase(it);
  }
  if (accept_paused_ && !draining_) {
    accept_paused_ = false;
    asio::post(io_, [this] { OnAcceptable(); });
  }
  CheckDrained();
}

void ConnectionLoop::BeginDrain() {
  if (draining_) return;
  draining_ = true;
  // Stop accepting first, so a client retrying elsewhere is told at once.
  asio::error_code ignored;
  listener_->close(ignored);
  if (address_.unix_socket && !address_.inherited) ::unlink(address_.path.c_str());
  std::vector<std::shared_ptr<ClientConnection>> all;
  for (auto& [raw, conn] : connections_) all.push_back(conn);
  for (auto& conn : all) conn->CloseIfIdle();
  grace_timer_.expires_after(std::chrono::seconds(kDrainGraceSeconds));
  grace_timer_.async_wait([this](const asio::error_code& ec) {
    if (ec) return;
    WriteStderr("agentbox serve: grace period over, cancelling the commands still running\n");
    uint64_t one = 1;
    (void)!::write(abort_fd_, &one, sizeof(one));
    grace_timer_.expires_after(std::chrono::seconds(3));
    grace_timer_.async_wait([](const asio::error_code& again) {
      if (again) return;
      // A handler stuck past cancellation still uses this process's state: leave without
      // unwinding it (the sandboxes live on; their commands were cancelled).
      WriteStderr("agentbox serve: stopped with requests unfinished\n");
      ::_exit(0);
    });
  });
  CheckDrained();
}

void ConnectionLoop::CheckDrained() {
  if (draining_ && connections_.empty()) io_.stop();
}

}  // namespace agentbox
