#include "agent/egress_relay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "agent/agent_socket.h"
#include "proto/relay_wire.h"
#include "sys/fd_passing.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

constexpr size_t kMaxListeners = 256;
constexpr size_t kMaxParked = 16;  // per listener
constexpr size_t kMaxPairs = 512;  // with two buffers each: at most 64 MiB, the sandbox's memory
constexpr size_t kMaxPending = 64;
constexpr size_t kBufferBytes = 64 * 1024;  // 16 KiB made a 10 MiB download 3x slower
constexpr uint32_t kPairEvents = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;

// One direction of a relayed connection.
struct Flow {
  std::vector<char> buf = std::vector<char>(kBufferBytes);
  size_t start = 0, end = 0;
  bool eof = false, shut = false;
};

// Moves what `from` has into `to` until neither can go on; false on an error. Edge-triggered
// callers rely on it: it stops only at EAGAIN, a full buffer `to` cannot take, or EOF.
bool Move(int from, int to, Flow& f) {
  for (bool progress = true; progress;) {
    progress = false;
    if (!f.eof && f.end < f.buf.size()) {
      const ssize_t n = ::recv(from, f.buf.data() + f.end, f.buf.size() - f.end, MSG_DONTWAIT);
      if (n > 0) f.end += static_cast<size_t>(n);
      if (n == 0) f.eof = true;
      if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
      progress = n >= 0;
    }
    if (f.end > f.start) {
      const ssize_t n =
          ::send(to, f.buf.data() + f.start, f.end - f.start, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
      if (n > 0) {
        f.start += static_cast<size_t>(n);
        progress = true;
      }
      if (f.start == f.end) f.start = f.end = 0;
    }
  }
  if (f.eof && f.start == f.end && !f.shut) {
    ::shutdown(to, SHUT_WR);  // the half close, passed on
    f.shut = true;
  }
  return true;
}

struct Listener;

struct Pair {
  Listener* listener;
  UniqueFd client, host;
  Flow up, down;  // client to host, host to client
};

struct Listener {
  uint64_t id = 0;
  UniqueFd tcp, owner;
  std::deque<UniqueFd> parked;  // oldest first
  std::set<Pair*> pairs;
};

struct Pending {
  UniqueFd fd;
  std::string line;
};

class Relay {
 public:
  Relay(int listen_fd, bool handed_over) : listen_fd_(listen_fd), handed_over_(handed_over) {}

  [[noreturn]] void Run() {
    // Accepted (or received) until EAGAIN: PID 1 made it blocking (and never reads it itself).
    const int flags = ::fcntl(listen_fd_, F_GETFL);
    if (flags < 0 || ::fcntl(listen_fd_, F_SETFL, flags | O_NONBLOCK) != 0) ::_exit(1);
    epoll_.reset(::epoll_create1(EPOLL_CLOEXEC));
    if (!epoll_.valid() || !Watch(listen_fd_, EPOLLIN, {Kind::kAccept, nullptr})) ::_exit(1);
    struct epoll_event events[64];
    for (;;) {
      const int n = ::epoll_wait(epoll_.get(), events, 64, -1);
      for (int i = 0; i < n; ++i) Dispatch(events[i].data.fd);
    }
  }

 private:
  enum class Kind { kAccept, kPending, kOwner, kTcp, kParked, kPair };
  struct Target {
    Kind kind;
    void* object;
  };

  bool Watch(int fd, uint32_t events, Target target) {
    struct epoll_event ev = {};
    ev.events = events;
    ev.data.fd = fd;
    if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev) != 0) return false;
    targets_[fd] = target;
    return true;
  }
  void Forget(int fd) {
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr);
    targets_.erase(fd);
  }
  void SetTcpInterest(Listener* l) {
    struct epoll_event ev = {};
    ev.events = l->parked.empty()
                    ? 0u
                    : static_cast<uint32_t>(EPOLLIN);  // clients wait in the backlog till one parks
    ev.data.fd = l->tcp.get();
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, l->tcp.get(), &ev);
  }

  void Dispatch(int fd) {
    auto it = targets_.find(fd);
    if (it == targets_.end()) return;  // closed earlier in this batch
    const Target t = it->second;
    switch (t.kind) {
      case Kind::kAccept:
        return AcceptHost();
      case Kind::kPending:
        return ReadLine(fd);
      case Kind::kOwner:
        return CloseListener(static_cast<Listener*>(t.object));
      case Kind::kTcp:
        return AcceptClients(static_cast<Listener*>(t.object));
      case Kind::kParked:
        return DropParked(static_cast<Listener*>(t.object), fd);
      case Kind::kPair:
        return Pump(static_cast<Pair*>(t.object));
    }
  }

  // The next host connection, accepted on the unix socket or (TCP) handed over by PID 1, into
  // *fd (left invalid when it was not one to serve). False once none is waiting.
  bool NextHost(UniqueFd* fd) {
    if (!handed_over_) {
      fd->reset(::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
      if (!fd->valid()) return false;
      // Only the host; anyone else is closed. gVisor reports a peer from the host side of a
      // host unix socket as the accepting task itself (here the relay, not PID 1).
      const pid_t peer = PeerPidInOurNamespace(fd->get());
      if (peer != ::getpid() && !IsHostPeer(peer)) fd->reset();
      return true;
    }
    // PID 1 checked the peer's address and token (agent/hello_gate.h) before it sent it here.
    char byte = 0;
    int received = -1;
    if (sys::ReceiveWithFd(listen_fd_, &byte, 1, &received, MSG_DONTWAIT) <= 0) {
      if (received >= 0) ::close(received);
      return false;
    }
    fd->reset(received);
    const int flags = fd->valid() ? ::fcntl(fd->get(), F_GETFL) : -1;
    if (flags < 0 || ::fcntl(fd->get(), F_SETFL, flags | O_NONBLOCK) != 0) fd->reset();
    return true;
  }

  void AcceptHost() {
    for (int i = 0; i < 16; ++i) {
      UniqueFd fd;
      if (!NextHost(&fd)) return;
      if (!fd.valid()) continue;
      if (pending_.size() >= kMaxPending) {
        Forget(pending_.begin()->first);
        pending_.erase(pending_.begin());
      }
      const int raw = fd.get();
      if (Watch(raw, EPOLLIN, {Kind::kPending, nullptr}))
        pending_[raw] = Pending{std::move(fd), {}};
    }
  }

  void ReadLine(int fd) {
    Pending& p = pending_[fd];
    char buf[kMaxRelayLine];
    const ssize_t n = ::recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n > 0) p.line.append(buf, static_cast<size_t>(n));
    const size_t nl = p.line.find('\n');
    if (n > 0 && nl == std::string::npos && p.line.size() < kMaxRelayLine) return;
    UniqueFd conn = std::move(p.fd);
    auto request = nl == p.line.size() - 1
                       ? ParseRelayRequest(std::string_view(p.line).substr(0, nl))
                       : std::nullopt;  // nothing may follow the line
    Forget(fd);
    pending_.erase(fd);
    const RelayRequest req = request.value_or(RelayRequest{RelayRequest::Kind::kPark, 0});
    if (!request) return;
    if (req.kind == RelayRequest::Kind::kListen) return Listen(std::move(conn));
    auto it = listeners_.find(req.id);
    if (it == listeners_.end() || it->second->parked.size() >= kMaxParked) return;
    Listener* l = it->second.get();
    if (!Watch(conn.get(), EPOLLIN | EPOLLRDHUP, {Kind::kParked, l})) return;
    l->parked.push_back(std::move(conn));
    if (l->parked.size() == 1) SetTcpInterest(l);
  }

  void Listen(UniqueFd owner) {
    if (listeners_.size() >= kMaxListeners) return;
    auto l = std::make_unique<Listener>();
    l->id = next_id_++;
    l->tcp.reset(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    struct sockaddr_in addr = {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (!l->tcp.valid() || ::bind(l->tcp.get(), reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(l->tcp.get(), 128) != 0 ||
        ::getsockname(l->tcp.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      return;
    }
    const std::string answer = RelayListenAnswer(l->id, ntohs(addr.sin_port));
    if (::send(owner.get(), answer.data(), answer.size(), MSG_DONTWAIT | MSG_NOSIGNAL) !=
        static_cast<ssize_t>(answer.size())) {
      return;
    }
    l->owner = std::move(owner);
    if (!Watch(l->owner.get(), EPOLLIN | EPOLLRDHUP, {Kind::kOwner, l.get()}) ||
        !Watch(l->tcp.get(), 0, {Kind::kTcp, l.get()})) {
      return CloseListener(l.release(), /*owned=*/false);
    }
    listeners_[l->id] = std::move(l);
  }

  // Everything of `l` closed: its listener, parked and relayed connections (owned: it is in
  // listeners_; else a listener never registered, deleted here).
  void CloseListener(Listener* l, bool owned = true) {
    std::set<Pair*> pairs;
    pairs.swap(l->pairs);
    for (Pair* p : pairs) ClosePair(p);
    for (UniqueFd& fd : l->parked) Forget(fd.get());
    for (int fd : {l->owner.get(), l->tcp.get()}) {
      if (fd >= 0) Forget(fd);
    }
    if (owned) {
      listeners_.erase(l->id);
    } else {
      delete l;
    }
  }

  void DropParked(Listener* l, int fd) {
    for (auto it = l->parked.begin(); it != l->parked.end(); ++it) {
      if (it->get() != fd) continue;
      Forget(fd);
      l->parked.erase(it);
      if (l->parked.empty()) SetTcpInterest(l);
      return;
    }
  }

  void AcceptClients(Listener* l) {
    while (!l->parked.empty()) {
      UniqueFd client(::accept4(l->tcp.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
      if (!client.valid()) break;
      if (pairs_ >= kMaxPairs) continue;  // closed: the client sees a reset
      UniqueFd host = std::move(l->parked.front());
      l->parked.pop_front();
      Forget(host.get());
      const char told = kRelayClientByte;
      if (::send(host.get(), &told, 1, MSG_DONTWAIT | MSG_NOSIGNAL) != 1) continue;
      auto* p = new Pair{l, std::move(client), std::move(host), {}, {}};
      ++pairs_;
      if (!Watch(p->client.get(), kPairEvents, {Kind::kPair, p}) ||
          !Watch(p->host.get(), kPairEvents, {Kind::kPair, p})) {
        ClosePair(p);
        continue;
      }
      l->pairs.insert(p);
      Pump(p);
    }
    SetTcpInterest(l);
  }

  void Pump(Pair* p) {
    const bool ok = Move(p->client.get(), p->host.get(), p->up) &&
                    Move(p->host.get(), p->client.get(), p->down);
    if (!ok || (p->up.shut && p->down.shut)) {
      p->listener->pairs.erase(p);
      ClosePair(p);
    }
  }

  // Not in its listener's set any more (the caller took it out).
  void ClosePair(Pair* p) {
    for (int fd : {p->client.get(), p->host.get()}) {
      if (targets_.count(fd) != 0) Forget(fd);
    }
    --pairs_;
    delete p;
  }

  int listen_fd_;
  bool handed_over_;
  UniqueFd epoll_;
  std::map<int, Target> targets_;
  std::map<int, Pending> pending_;
  std::map<uint64_t, std::unique_ptr<Listener>> listeners_;
  size_t pairs_ = 0;
  uint64_t next_id_ = 1;
};

}  // namespace

void RunEgressRelay(int listen_fd, bool handed_over) {
  ::prctl(PR_SET_NAME, "agentbox-relay", 0, 0, 0);
  Relay(listen_fd, handed_over).Run();
}

}  // namespace agentbox
