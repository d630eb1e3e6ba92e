#include "proto/agent_hello.h"

#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <nettle/memops.h>

#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "sys/random_id.h"

namespace agentbox {

StatusOr<TcpAddress> ParseTcpAddress(std::string_view host_port) {
  const auto bad = [&] {
    return InvalidArgument("\"" + std::string(host_port) +
                           "\" is no HOST:PORT (an IPv4 or IPv6 literal and a port)");
  };
  const size_t colon = host_port.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return bad();
  std::string_view host = host_port.substr(0, colon);
  std::string_view port_text = host_port.substr(colon + 1);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port == 0 ||
      port > 65535) {
    return bad();
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string host_text(host);
  TcpAddress out;
  auto* v4 = reinterpret_cast<struct sockaddr_in*>(&out.addr);
  auto* v6 = reinterpret_cast<struct sockaddr_in6*>(&out.addr);
  if (::inet_pton(AF_INET, host_text.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    out.len = sizeof(*v4);
    return out;
  }
  if (::inet_pton(AF_INET6, host_text.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    out.len = sizeof(*v6);
    return out;
  }
  return bad();
}

void TuneAgentTcpConnection(int fd) {
  const int one = 1, idle = 30, interval = 10, count = 3;
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  (void)::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
}

bool IsTcpAgentAddress(std::string_view address) {
  return address.substr(0, kTcpAgentPrefix.size()) == kTcpAgentPrefix;
}

StatusOr<std::string> CheckAgentToken(std::string_view text) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  if (text.empty()) return InvalidArgument("the agent token is empty");
  if (text.size() < kAgentTokenMinBytes) {
    return InvalidArgument("the agent token is too short (" + std::to_string(text.size()) +
                           " bytes; at least " + std::to_string(kAgentTokenMinBytes) + ")");
  }
  if (text.size() > kAgentTokenMaxBytes) {
    return InvalidArgument("the agent token is too long (at most " +
                           std::to_string(kAgentTokenMaxBytes) + " bytes)");
  }
  return std::string(text);
}

std::string NewAgentToken() { return RandomHexId() + RandomHexId(); }

namespace {
constexpr const char* kEgressRelayTarget = "egress_relay";
constexpr const char* kClaimTarget = "claim";
}  // namespace

std::string HelloRequestToWire(std::string_view token, HelloTarget target) {
  nlohmann::json hello = {{"op", "hello"}, {"token", std::string(token)}};
  if (target == HelloTarget::kEgressRelay) hello["to"] = kEgressRelayTarget;
  if (target == HelloTarget::kClaim) hello["to"] = kClaimTarget;
  return hello.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

StatusOr<Hello> HelloFromWire(std::string_view payload) {
  auto j = nlohmann::json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.value("op", "") != "hello" || !j.contains("token") ||
      !j["token"].is_string()) {
    return InvalidArgument("the first request on a TCP connection must be a hello with a token");
  }
  Hello hello;
  hello.token = j["token"].get<std::string>();
  if (j.contains("to")) {
    // Only the targets there are: anything else is refused, never taken for the agent.
    const std::string to = j["to"].is_string() ? j["to"].get<std::string>() : "";
    if (to == kEgressRelayTarget) {
      hello.target = HelloTarget::kEgressRelay;
    } else if (to == kClaimTarget) {
      hello.target = HelloTarget::kClaim;
    } else {
      return InvalidArgument("a hello's \"to\" must be \"egress_relay\" or \"claim\" when given");
    }
  }
  return hello;
}

StatusOr<std::string> HelloTokenFromWire(std::string_view payload) {
  AB_ASSIGN_OR_RETURN(Hello hello, HelloFromWire(payload));
  return std::move(hello.token);
}

bool TokensMatch(std::string_view a, std::string_view b) {
  // Digests of equal length: the comparison's time says nothing of either token.
  const std::string da = Sha256Of(a), db = Sha256Of(b);
  return da.size() == db.size() && memeql_sec(da.data(), db.data(), da.size()) != 0;
}

}  // namespace agentbox
