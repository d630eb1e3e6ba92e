#include "agent/hello_gate.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "proto/agent_hello.h"
#include "proto/agent_protocol.h"

namespace agentbox {
namespace {

constexpr size_t kHeaderBytes = 5;

// One line per second at most: a peer guessing in a loop must not flood the pod's log.
void LogRefused(const char* why) {
  static time_t last_logged = 0;
  static unsigned suppressed = 0;
  const time_t now = HelloGate::MonotonicSeconds();
  if (now == last_logged) {
    ++suppressed;
    return;
  }
  std::fprintf(stderr,
               "agentbox-agent: refused a TCP connection: %s (%u more refused since the "
               "last line)\n",
               why, suppressed);
  last_logged = now;
  suppressed = 0;
}

uint32_t PayloadLength(const std::string& header) {
  uint32_t len = 0;
  for (int i = 0; i < 4; ++i) {
    len |= static_cast<uint32_t>(static_cast<unsigned char>(header[1 + i])) << (8 * i);
  }
  return len;
}

// A small answer on a fresh connection fits its send buffer: never blocks.
void Answer(int conn, const nlohmann::json& body) {
  std::string frame;
  AppendFrame(FrameType::kResponse, body.dump(), &frame);
  (void)::send(conn, frame.data(), frame.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
}

}  // namespace

time_t HelloGate::MonotonicSeconds() {
  struct timespec ts = {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec;
}

void HelloGate::Add(UniqueFd conn, time_t now) {
  if (pending_.size() >= kMaxPendingHellos) {
    LogRefused("too many connections waiting for their hello (the oldest is dropped)");
    pending_.erase(pending_.begin());
  }
  pending_.push_back({std::move(conn), now + kHelloTimeoutSeconds, {}});
}

std::vector<int> HelloGate::fds() const {
  std::vector<int> out;
  for (const Pending& p : pending_) out.push_back(p.conn.get());
  return out;
}

// Reads exactly the hello frame and never past it: what follows is the request, the handler's.
bool HelloGate::ReadSome(Pending& p, bool* done) {
  *done = false;
  size_t want = kHeaderBytes;
  if (p.frame.size() >= kHeaderBytes) want += PayloadLength(p.frame);
  char buffer[512];
  const size_t room = std::min(sizeof(buffer), want - p.frame.size());
  ssize_t n = ::recv(p.conn.get(), buffer, room, MSG_DONTWAIT);
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
  if (n == 0) return false;  // gone before its hello
  p.frame.append(buffer, static_cast<size_t>(n));
  if (p.frame.size() == kHeaderBytes) {
    if (static_cast<FrameType>(p.frame[0]) != FrameType::kRequest ||
        PayloadLength(p.frame) > kMaxHelloPayload) {
      LogRefused("its first frame is no hello");
      return false;
    }
  }
  *done = p.frame.size() >= kHeaderBytes && p.frame.size() == kHeaderBytes + PayloadLength(p.frame);
  return true;
}

bool HelloGate::Verify(const Pending& p, HelloTarget* target) {
  auto hello = HelloFromWire(std::string_view(p.frame).substr(kHeaderBytes));
  if (!hello.ok()) {
    LogRefused("its first request is no hello");
    return false;
  }
  if (hello->target == HelloTarget::kClaim) {
    Claim(p, hello->token);
    return false;  // a claim opens nothing itself: the host connects again with the token
  }
  if (unclaimed_) {
    LogRefused("the sandbox is not claimed yet");
    Answer(p.conn.get(), {{"ok", false},
                          {"code", "permission_denied"},
                          {"error", "the agent has no token yet (it waits for its claim)"}});
    return false;
  }
  if (!TokensMatch(hello->token, token_)) {
    LogRefused("wrong token");
    Answer(
        p.conn.get(),
        {{"ok", false}, {"code", "permission_denied"}, {"error", "the agent refused the token"}});
    return false;
  }
  if (hello->target == HelloTarget::kEgressRelay && !egress_relay_) {
    Answer(p.conn.get(), {{"ok", false},
                          {"code", "unavailable"},
                          {"error", "this sandbox has no egress relay (it has no allow_hosts)"}});
    return false;
  }
  Answer(p.conn.get(), {{"ok", true}});
  *target = hello->target;
  return true;
}

// The one claim of a --token-by-claim agent: the first sets the token for good. A peer in the
// pod's own network never gets here (refused by address before its hello), and the pod's
// NetworkPolicy admits only agentbox, which claims right after the pod is bound to its claim.
void HelloGate::Claim(const Pending& p, const std::string& token) {
  if (!unclaimed_) {
    LogRefused("a second claim");
    Answer(
        p.conn.get(),
        {{"ok", false}, {"code", "permission_denied"}, {"error", "the agent is claimed already"}});
    return;
  }
  auto checked = CheckAgentToken(token);
  if (!checked.ok()) {
    LogRefused("a claim with an unusable token");
    Answer(p.conn.get(), {{"ok", false},
                          {"code", "invalid_argument"},
                          {"error", "the claim's token: " + checked.status().message()}});
    return;
  }
  token_ = std::move(*checked);
  unclaimed_ = false;
  Answer(p.conn.get(), {{"ok", true}});
}

UniqueFd HelloGate::OnReadable(int fd, HelloTarget* target) {
  auto it = std::find_if(pending_.begin(), pending_.end(),
                         [fd](const Pending& p) { return p.conn.get() == fd; });
  if (it == pending_.end()) return UniqueFd();
  bool done = false;
  const bool alive = ReadSome(*it, &done);
  if (alive && !done) return UniqueFd();
  UniqueFd conn;
  *target = HelloTarget::kAgent;
  if (alive && Verify(*it, target)) conn = std::move(it->conn);
  pending_.erase(it);
  return conn;
}

void HelloGate::Expire(time_t now) {
  const size_t before = pending_.size();
  std::erase_if(pending_, [now](const Pending& p) { return p.deadline <= now; });
  if (pending_.size() != before) LogRefused("no hello in time");
}

}  // namespace agentbox
