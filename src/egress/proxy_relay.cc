// The relay of a connection the proxy allowed: bytes both ways, counted against the exec's
// egress_bytes, with the first client bytes of a CONNECT checked for a TLS server name.
#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "egress/proxy_internal.h"

namespace agentbox::egress {
namespace {

enum class Io { kProgress, kBlocked, kEof, kError };

// Reads from `fd` into the free end of `buf` (compacting it first).
Io Fill(int fd, RelayBuffer& buf) {
  if (buf.eof) return Io::kBlocked;
  if (buf.start > 0 && buf.room() == 0) {
    std::memmove(buf.data.data(), buf.data.data() + buf.start, buf.pending());
    buf.end -= buf.start;
    buf.start = 0;
  }
  if (buf.room() == 0) return Io::kBlocked;
  const ssize_t n = ::recv(fd, buf.data.data() + buf.end, buf.room(), MSG_DONTWAIT);
  if (n > 0) {
    buf.end += static_cast<size_t>(n);
    return Io::kProgress;
  }
  if (n == 0) {
    buf.eof = true;
    return Io::kEof;
  }
  return errno == EAGAIN || errno == EINTR ? Io::kBlocked : Io::kError;
}

// Writes what `buf` holds to `fd`; *written says how much.
Io Drain(int fd, RelayBuffer& buf, size_t* written) {
  *written = 0;
  if (buf.pending() == 0) return Io::kBlocked;
  const ssize_t n =
      ::send(fd, buf.data.data() + buf.start, buf.pending(), MSG_DONTWAIT | MSG_NOSIGNAL);
  if (n < 0) return errno == EAGAIN || errno == EINTR ? Io::kBlocked : Io::kError;
  buf.start += static_cast<size_t>(n);
  if (buf.start == buf.end) buf.start = buf.end = 0;
  *written = static_cast<size_t>(n);
  return Io::kProgress;
}

}  // namespace

// The TLS ClientHello's server name must be the host the client asked for (the proxy sees no
// more than that: it never decrypts). False when the connection was closed for it.
bool Connection::InspectHello() {
  auto name = ParseTlsServerName(
      std::string_view(to_upstream_.data.data() + to_upstream_.start, to_upstream_.pending()));
  if (!name.ok()) {
    Deny("unreadable TLS ClientHello: " + name.status().message());
    return false;
  }
  if (!*name) {
    if (to_upstream_.eof) inspect_hello_ = false;  // nothing more will come: pass it on
    return true;
  }
  inspect_hello_ = false;
  const std::string& sni = **name;
  if (sni.empty()) return true;  // not TLS, or no name to check
  const Target& t = request_.target;
  const bool matches = t.is_address ? proxy_->rules().AllowsName(sni, t.port) : sni == t.host;
  if (!matches) {
    Deny("the TLS server name " + sni + " is not the host asked for");
    return false;
  }
  return true;
}

void Connection::CountBytes(uint64_t n, bool sent) {
  if (entry_ != SIZE_MAX) {
    (sent ? exec_->report.connections[entry_].bytes_sent
          : exec_->report.connections[entry_].bytes_received) += n;
  }
  exec_->bytes += n;
}

void Connection::PumpRelay() {
  bool progress = true;
  while (progress && state_ == State::kRelay) {
    progress = false;
    size_t n = 0;
    Io in = Fill(client_.get(), to_upstream_);
    if (in == Io::kError) return Close("");
    progress |= in == Io::kProgress || in == Io::kEof;
    if (inspect_hello_ && progress && !InspectHello()) return;
    if (!inspect_hello_) {
      Io out = Drain(upstream_.get(), to_upstream_, &n);
      if (out == Io::kError) return Close("");
      CountBytes(n, true);
      progress |= n > 0;
    }
    in = Fill(upstream_.get(), to_client_);
    if (in == Io::kError) return Close("");
    progress |= in == Io::kProgress || in == Io::kEof;
    Io out = Drain(client_.get(), to_client_, &n);
    if (out == Io::kError) return Close("");
    CountBytes(n, false);
    progress |= n > 0;
    if (exec_->bytes > proxy_->limits().bytes_per_exec) {
      return Close("cut at egress_bytes (" + std::to_string(proxy_->limits().bytes_per_exec) +
                   " bytes per exec)");
    }
  }
  // A side that said EOF, once its bytes are through, is passed on as a half close.
  if (to_upstream_.eof && to_upstream_.pending() == 0 && !to_upstream_.shut_down &&
      !inspect_hello_) {
    ::shutdown(upstream_.get(), SHUT_WR);
    to_upstream_.shut_down = true;
  }
  if (to_client_.eof && to_client_.pending() == 0 && !to_client_.shut_down) {
    ::shutdown(client_.get(), SHUT_WR);
    to_client_.shut_down = true;
  }
  if (to_upstream_.shut_down && to_client_.shut_down) return Close("");
  UpdateInterest();
}

void Connection::UpdateInterest() {
  uint32_t client = 0, upstream = 0;
  if (!to_upstream_.eof && (to_upstream_.room() > 0 || to_upstream_.start > 0)) client |= EPOLLIN;
  if (to_client_.pending() > 0) client |= EPOLLOUT;
  if (!to_client_.eof && (to_client_.room() > 0 || to_client_.start > 0)) upstream |= EPOLLIN;
  if (to_upstream_.pending() > 0 && !inspect_hello_) upstream |= EPOLLOUT;
  // Only on a change: two epoll_ctl calls per pump were a third of a bulk transfer's syscalls.
  if (client != client_interest_) proxy_->loop().Modify(client_.get(), client, this);
  if (upstream != upstream_interest_) proxy_->loop().Modify(upstream_.get(), upstream, this);
  client_interest_ = client;
  upstream_interest_ = upstream;
}

}  // namespace agentbox::egress
