#include "sys/tcp_peer_uid.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sys/unique_fd.h"

namespace agentbox {
namespace {

// A loopback client of this process: the kernel names this process's uid as its owner.
TEST(TcpPeerUidTest, LoopbackClientIsItsOwnersUid) {
  UniqueFd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(listener.valid());
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(listener.get(), 1), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len), 0);
  UniqueFd client(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_EQ(::connect(client.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  UniqueFd accepted(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  ASSERT_TRUE(accepted.valid());
  std::optional<uid_t> uid = TcpPeerUid(accepted.get());
  ASSERT_TRUE(uid.has_value());
  EXPECT_EQ(*uid, ::getuid());
}

// Not a TCP socket with a peer: nothing to say.
TEST(TcpPeerUidTest, NoPeerNoUid) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  EXPECT_FALSE(TcpPeerUid(fd.get()).has_value());
}

}  // namespace
}  // namespace agentbox
