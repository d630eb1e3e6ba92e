// The agent's TCP transport (kubernetes: the agent listens on the pod's network, not on a unix
// socket only the host can reach): the address form, the per-sandbox token and the handshake
// that must come first on every TCP connection.
//
// Handshake: the client's first frame is a kRequest {"op":"hello","token":"..."}. The agent
// answers one kResponse: {"ok":true} and the connection then carries one ordinary request as on
// the unix socket (proto/agent_protocol.h), or {"ok":false,"code":"permission_denied",...} and
// it is closed. A connection that sends no complete hello within kHelloTimeoutSeconds, or a
// first frame that is not a hello, is closed without an answer to anything it asked. Tokens
// are compared in constant time (their SHA-256 digests, so not even the length leaks).
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "base/status.h"

namespace agentbox {

// The agent's flags for the TCP mode: `--listen-tcp HOST:PORT --token-file PATH`.
inline constexpr const char* kAgentListenTcpFlag = "--listen-tcp";
inline constexpr const char* kAgentTokenFileFlag = "--token-file";
// Instead of --token-file PATH: no token yet; the first claim hello (HelloTarget::kClaim) sets it.
inline constexpr const char* kAgentTokenByClaimFlag = "--token-by-claim";

// The host's record of a TCP agent: "tcp:HOST:PORT" (HOST an IPv4 or IPv6 literal, the latter
// bracketed or not: the last colon starts the port).
inline constexpr std::string_view kTcpAgentPrefix = "tcp:";

// A token shorter than this is refused at the agent's start (agentbox makes 32 random bytes).
inline constexpr size_t kAgentTokenMinBytes = 16;
inline constexpr size_t kAgentTokenMaxBytes = 4096;
// How long an accepted TCP connection may take to complete its hello.
inline constexpr int kHelloTimeoutSeconds = 5;
// A hello frame's largest payload: a token and a little JSON. Longer: refused unread.
inline constexpr size_t kMaxHelloPayload = kAgentTokenMaxBytes + 256;

struct TcpAddress {
  struct sockaddr_storage addr = {};
  socklen_t len = 0;
};

// "HOST:PORT" -> the socket address. kInvalidArgument naming the text for anything else (a host
// name, a port of 0 or past 65535).
StatusOr<TcpAddress> ParseTcpAddress(std::string_view host_port);

// Both ends of an agent's TCP connection: TCP_NODELAY (frames are small and answered at once),
// and keepalives that notice a peer gone without a word (a pod or node lost, a host crashed)
// within about a minute, where a unix socket would have hung up at once: a command whose client
// is gone is killed, and a host waiting for a dead pod's answer gets an error.
void TuneAgentTcpConnection(int fd);

// True for "tcp:..." (the rest is for ParseTcpAddress).
bool IsTcpAgentAddress(std::string_view address);

// A token as the agent takes it from its file: one trailing newline (CRLF too) dropped; then
// kInvalidArgument when empty, shorter than kAgentTokenMinBytes or longer than the maximum.
StatusOr<std::string> CheckAgentToken(std::string_view file_text);

// A new sandbox's token: 256 random bits as 64 lowercase hex digits (also valid base64 text,
// which podman 4.3's Secret volumes need, tests/kubernetes/fakeapi/pods.py). One per sandbox,
// never reused or shared.
std::string NewAgentToken();

// Whom a hello asks for. kAgent: the connection then carries one agent request. kEgressRelay
// ({"op":"hello","token":...,"to":"egress_relay"}): the host's egress proxy asking for the
// sandbox's egress relay (agent/egress_relay.h); PID 1 hands the connection to the relay, and it
// then speaks proto/relay_wire.h. An agent without a relay closes such a connection after its ok.
// kClaim ({"op":"hello","token":...,"to":"claim"}): an agent started with --token-by-claim (a
// pod of a shared SandboxTemplate, which cannot hold a per-sandbox Secret) takes the hello's token
// as its own, once; the connection is then closed. Every other agent refuses it.
enum class HelloTarget { kAgent, kEgressRelay, kClaim };

struct Hello {
  std::string token;
  HelloTarget target = HelloTarget::kAgent;
};

// The client's hello payload.
std::string HelloRequestToWire(std::string_view token, HelloTarget target = HelloTarget::kAgent);
// A hello payload; kInvalidArgument when it is no hello (or names an unknown "to").
StatusOr<Hello> HelloFromWire(std::string_view payload);
// The token of a hello payload; kInvalidArgument when it is no hello.
StatusOr<std::string> HelloTokenFromWire(std::string_view payload);

// Constant-time equality of two tokens.
bool TokensMatch(std::string_view a, std::string_view b);

}  // namespace agentbox
