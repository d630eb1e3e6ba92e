// One client connection of the egress proxy: read the request, decide, resolve, connect, relay.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "egress/proxy_internal.h"

namespace agentbox::egress {
namespace {

constexpr auto kSetupTime = std::chrono::seconds(15);  // head, lookup and connect, together

// The host's own addresses, read per lookup: an address added since start counts too.
std::vector<IpAddress> HostAddresses() {
  std::vector<IpAddress> out;
  struct ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (struct ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr) continue;
    IpAddress a;
    if (i->ifa_addr->sa_family == AF_INET) {
      std::memcpy(a.bytes.data(), &reinterpret_cast<struct sockaddr_in*>(i->ifa_addr)->sin_addr, 4);
    } else if (i->ifa_addr->sa_family == AF_INET6) {
      a.v6 = true;
      std::memcpy(a.bytes.data(), &reinterpret_cast<struct sockaddr_in6*>(i->ifa_addr)->sin6_addr,
                  16);
    } else {
      continue;
    }
    out.push_back(a);
  }
  ::freeifaddrs(list);
  return out;
}

std::string HttpAnswer(int code, const char* status, const std::string& body) {
  return "HTTP/1.1 " + std::to_string(code) + " " + status +
         "\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: " +
         std::to_string(body.size() + 1) + "\r\n\r\n" + body + "\n";
}

std::string Describe(const Target& t) {
  return (t.host.find(':') != std::string::npos ? "[" + t.host + "]" : t.host) + ":" +
         std::to_string(t.port);
}

}  // namespace

Connection::Connection(Proxy* proxy, ExecEntry* exec, UniqueFd client)
    : proxy_(proxy),
      exec_(exec),
      client_(std::move(client)),
      deadline_(Clock::now() + kSetupTime) {}

Connection::~Connection() {
  if (client_.valid()) proxy_->loop().Remove(client_.get());
  if (upstream_.valid()) proxy_->loop().Remove(upstream_.get());
}

void Connection::Start() {
  if (!proxy_->loop().Add(client_.get(), EPOLLIN, this).ok()) Close("");
}

void Connection::Close(const std::string& reason) {
  if (state_ == State::kClosed) return;
  state_ = State::kClosed;
  if (!reason.empty() && entry_ != SIZE_MAX) {
    NetworkConnection& entry = exec_->report.connections[entry_];
    if (entry.reason.empty()) entry.reason = reason;
  }
  if (client_.valid()) proxy_->loop().Remove(client_.get());
  if (upstream_.valid()) proxy_->loop().Remove(upstream_.get());
  client_.reset();
  upstream_.reset();
  exec_->connections.erase(this);
  proxy_->Retire(this);  // and no longer found by its id
}

void Connection::Answer(const std::string& bytes) {
  // Best effort: the client is told why, or it is not; it is closed either way.
  ssize_t ignored = ::send(client_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  (void)ignored;
}

void Connection::OnEvents(int fd, uint32_t events) {
  if (state_ == State::kClosed) return;
  if (state_ == State::kHead || state_ == State::kSocksRequest) {
    ReadHead();
  } else if (state_ == State::kConnecting && fd == upstream_.get()) {
    int err = 0;
    socklen_t len = sizeof(err);
    ::getsockopt(upstream_.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err == 0 && (events & EPOLLOUT)) {
      OnConnected();
    } else {
      proxy_->loop().Remove(upstream_.get());
      upstream_.reset();
      ConnectNext();
    }
  } else if (state_ == State::kRelay) {
    PumpRelay();
  } else if (events & (EPOLLHUP | EPOLLERR)) {
    Close("");  // the client left while its lookup ran
  }
}

void Connection::ReadHead() {
  char buf[4096];
  const ssize_t n = ::recv(client_.get(), buf, sizeof(buf), 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) return Close("");
  head_.append(buf, static_cast<size_t>(n));
  if (head_.size() > kMaxRequestHead) return Refuse("request over 16 KiB");
  if (state_ == State::kHead && static_cast<uint8_t>(head_[0]) == 5) {
    auto greeting = ParseSocks5Greeting(head_);
    if (!greeting.ok()) return Refuse(greeting.status().message());
    if (!*greeting) return;
    socks_ = true;
    if (!(*greeting)->no_auth_offered) {
      Answer(std::string("\x05\xff", 2));
      return Close("");
    }
    Answer(std::string("\x05\x00", 2));
    head_.erase(0, (*greeting)->consumed);
    state_ = State::kSocksRequest;
    if (head_.empty()) return;
  }
  if (state_ == State::kSocksRequest) {
    auto request = ParseSocks5Request(head_, &socks_reply_);
    if (!request.ok()) return Refuse(request.status().message());
    if (*request) OnRequest(std::move(**request));
    return;
  }
  auto request = ParseHttpProxyRequest(head_);
  if (!request.ok()) return Refuse(request.status().message());
  if (*request) OnRequest(std::move(**request));
}

void Connection::Refuse(const std::string& reason) {
  Answer(socks_ ? Socks5Reply(socks_reply_ == 0 ? 1 : socks_reply_)
                : HttpAnswer(400, "Bad Request", "agentbox: egress proxy: " + reason));
  Close("");
}

void Connection::Deny(const std::string& reason) {
  if (entry_ == SIZE_MAX) entry_ = exec_->Record(request_.target, false, reason);
  if (entry_ != SIZE_MAX) {
    exec_->report.connections[entry_].allowed = false;
    exec_->report.connections[entry_].reason = reason;
  }
  std::string line = "agentbox: network: connect to " + Describe(request_.target) +
                     " denied by policy (allow_hosts)";
  if (reason != kNotOnTheList) line += ": " + reason;
  // Once relaying (a TLS hello refused) the client speaks TLS: it is only closed.
  if (state_ != State::kRelay) Answer(socks_ ? Socks5Reply(2) : HttpAnswer(403, "Forbidden", line));
  Close("");
}

void Connection::OnRequest(ProxyRequest request) {
  request_ = std::move(request);
  head_.erase(0, request_.consumed);  // what follows the request: a body, or a TLS hello
  proxy_->loop().Modify(client_.get(), 0, this);  // nothing more is read until it is connected
  const Target& t = request_.target;
  if (t.is_address) {
    auto address = ParseIpAddress(t.host);
    if (!address || !proxy_->rules().AllowsAddressLiteral(*address, t.port)) {
      return Deny(kNotOnTheList);
    }
    addresses_ = {*address};
    state_ = State::kResolving;
    return OnResolved(addresses_);
  }
  if (!proxy_->rules().AllowsName(t.host, t.port)) return Deny(kNotOnTheList);
  state_ = State::kResolving;
  // By id, not pointer: the answer may come after this connection (or its exec) is gone.
  Proxy* proxy = proxy_;
  const uint64_t id = id_;
  proxy_->resolver().Resolve(t.host, [proxy, id](StatusOr<std::vector<IpAddress>> answer) {
    if (Connection* self = proxy->Find(id)) self->OnResolved(std::move(answer));
  });
}

void Connection::OnResolved(StatusOr<std::vector<IpAddress>> answer) {
  if (state_ != State::kResolving) return;
  if (!answer.ok()) {
    entry_ = exec_->Record(request_.target, true, "cannot resolve: " + answer.status().message());
    Answer(socks_ ? Socks5Reply(4)
                  : HttpAnswer(502, "Bad Gateway",
                               "agentbox: egress proxy: "
                               "cannot resolve " +
                                   request_.target.host));
    return Close("");
  }
  const std::vector<IpAddress> own = HostAddresses();
  addresses_.clear();
  for (const IpAddress& a : *answer) {
    auto refused = proxy_->rules().RefusedClass(a, request_.target.port, own);
    if (!refused) {
      addresses_.push_back(a.Canonical());
    } else if (refused_.empty()) {
      refused_ = std::string(request_.target.is_address ? "" : "resolves to ") +
                 AddressClassName(*refused) + " " + FormatIpAddress(a.Canonical());
    }
  }
  if (addresses_.empty()) return Deny(refused_);
  entry_ = exec_->Record(request_.target, true, "");
  next_address_ = 0;
  state_ = State::kConnecting;
  ConnectNext();
}

void Connection::ConnectNext() {
  while (next_address_ < addresses_.size()) {
    const IpAddress& a = addresses_[next_address_++];
    struct sockaddr_storage ss = {};
    socklen_t len = 0;
    if (a.v6) {
      auto* sin6 = reinterpret_cast<struct sockaddr_in6*>(&ss);
      sin6->sin6_family = AF_INET6;
      sin6->sin6_port = htons(request_.target.port);
      std::memcpy(&sin6->sin6_addr, a.bytes.data(), 16);
      len = sizeof(*sin6);
    } else {
      auto* sin = reinterpret_cast<struct sockaddr_in*>(&ss);
      sin->sin_family = AF_INET;
      sin->sin_port = htons(request_.target.port);
      std::memcpy(&sin->sin_addr, a.bytes.data(), 4);
      len = sizeof(*sin);
    }
    if (entry_ != SIZE_MAX) exec_->report.connections[entry_].address = FormatIpAddress(a);
    upstream_.reset(
        ::socket(a.v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!upstream_.valid()) break;
    if (::connect(upstream_.get(), reinterpret_cast<struct sockaddr*>(&ss), len) == 0 ||
        errno == EINPROGRESS) {
      if (proxy_->loop().Add(upstream_.get(), EPOLLOUT, this).ok()) return;
    }
    upstream_.reset();
  }
  Answer(socks_ ? Socks5Reply(5)
                : HttpAnswer(502, "Bad Gateway",
                             "agentbox: egress proxy: "
                             "cannot connect to " +
                                 Describe(request_.target)));
  Close("cannot connect");
}

void Connection::OnConnected() {
  if (request_.protocol == ProxyProtocol::kHttpPlain) {
    head_.insert(0, request_.upstream_head);
  } else {
    Answer(socks_ ? Socks5Reply(0) : "HTTP/1.1 200 Connection established\r\n\r\n");
    inspect_hello_ = true;  // what the client sends first may be a TLS hello: check its name
  }
  StartRelay();
}

void Connection::StartRelay() {
  state_ = State::kRelay;
  // Bytes are passed on as they come: Nagle's delay on top of the peers' own would add a
  // round of delayed ACKs (tens of ms) to every small exchange.
  const int one = 1;
  ::setsockopt(client_.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  ::setsockopt(upstream_.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  to_upstream_.data.resize(kRelayBufferBytes);
  to_client_.data.resize(kRelayBufferBytes);
  // Bytes the client sent with its request (a body, a hello): they go first.
  const size_t n = std::min(head_.size(), to_upstream_.data.size());
  std::memcpy(to_upstream_.data.data(), head_.data(), n);
  to_upstream_.end = n;
  head_.clear();
  if (inspect_hello_ && !InspectHello()) return;
  PumpRelay();
}

}  // namespace agentbox::egress
