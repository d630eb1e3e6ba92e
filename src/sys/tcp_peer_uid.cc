#include "sys/tcp_peer_uid.h"

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "sys/unique_fd.h"

namespace agentbox {
namespace {

// Copies a socket address's port and address into a sock_diag id side (network byte order).
bool FillSide(const sockaddr_storage& addr, __be16* port, __be32 ip[4]) {
  if (addr.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    *port = in->sin_port;
    std::memcpy(ip, &in->sin_addr, sizeof(in->sin_addr));
    return true;
  }
  if (addr.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    *port = in6->sin6_port;
    std::memcpy(ip, &in6->sin6_addr, sizeof(in6->sin6_addr));
    return true;
  }
  return false;
}

}  // namespace

std::optional<uid_t> TcpPeerUid(int fd) {
  sockaddr_storage local = {}, peer = {};
  socklen_t local_len = sizeof(local), peer_len = sizeof(peer);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0 ||
      ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0 ||
      local.ss_family != peer.ss_family) {
    return std::nullopt;
  }
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } message = {};
  message.header.nlmsg_len = sizeof(message);
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message.header.nlmsg_flags = NLM_F_REQUEST;
  message.request.sdiag_family = static_cast<__u8>(peer.ss_family);
  message.request.sdiag_protocol = IPPROTO_TCP;
  message.request.idiag_states = ~0u;
  // The peer's socket: its source is our destination and the other way round.
  inet_diag_sockid& id = message.request.id;
  if (!FillSide(peer, &id.idiag_sport, id.idiag_src) ||
      !FillSide(local, &id.idiag_dport, id.idiag_dst)) {
    return std::nullopt;
  }
  id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;

  UniqueFd diag(::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG));
  if (!diag.valid()) return std::nullopt;
  sockaddr_nl kernel = {};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(diag.get(), &message, sizeof(message), 0, reinterpret_cast<sockaddr*>(&kernel),
               sizeof(kernel)) != static_cast<ssize_t>(sizeof(message))) {
    return std::nullopt;
  }
  alignas(nlmsghdr) char answer[8192];
  ssize_t n = ::recv(diag.get(), answer, sizeof(answer), 0);
  if (n < static_cast<ssize_t>(sizeof(nlmsghdr))) return std::nullopt;
  const auto* reply = reinterpret_cast<const nlmsghdr*>(answer);
  if (!NLMSG_OK(reply, static_cast<unsigned>(n)) || reply->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
      reply->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg))) {
    return std::nullopt;  // NLMSG_ERROR: no such socket here (a remote peer)
  }
  const auto* found = static_cast<const inet_diag_msg*>(NLMSG_DATA(reply));
  return static_cast<uid_t>(found->idiag_uid);
}

}  // namespace agentbox
