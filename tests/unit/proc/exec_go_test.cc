// The "go" of a prepared exec init: what the handler sends is what the init runs.
#include "proc/exec_go.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace agentbox {
namespace {

struct SocketPair {
  SocketPair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0); }
  ~SocketPair() {
    for (int fd : fds)
      if (fd >= 0) ::close(fd);
  }
  int fds[2] = {-1, -1};
};

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

TEST(ExecGo, TheInitGetsWhatTheHandlerSent) {
  SocketPair pair;
  std::vector<std::string> argv = {"sh", "-c", "echo 'a b'", ""};  // an empty argument too
  std::vector<std::string> env = {"PATH=/usr/bin", "X=caf\xc3\xa9"};
  CommandLaunch sent;
  sent.cwd = "/workspace/sub dir";
  sent.argv = Pointers(argv);
  sent.envp = Pointers(env);
  sent.stdin_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(sent.stdin_fd, 0);
  ASSERT_TRUE(SendGo(pair.fds[0], sent).ok());

  CommandLaunch got;
  got.go_fd = pair.fds[1];
  pair.fds[1] = -1;  // ReceiveGo closes it
  ASSERT_TRUE(ReceiveGo(got));
  EXPECT_EQ(got.go_fd, -1);
  EXPECT_EQ(got.cwd, "/workspace/sub dir");
  ASSERT_EQ(got.argv.size(), 5u);
  for (size_t i = 0; i < argv.size(); ++i) EXPECT_EQ(std::string(got.argv[i]), argv[i]);
  EXPECT_EQ(got.argv[4], nullptr);
  ASSERT_EQ(got.envp.size(), 3u);
  EXPECT_EQ(std::string(got.envp[1]), env[1]);
  EXPECT_EQ(got.envp[2], nullptr);
  // The stdin fd arrived as a new descriptor of the same file.
  struct stat a, b;
  ASSERT_EQ(::fstat(sent.stdin_fd, &a), 0);
  ASSERT_EQ(::fstat(got.stdin_fd, &b), 0);
  EXPECT_NE(got.stdin_fd, sent.stdin_fd);
  EXPECT_EQ(a.st_ino, b.st_ino);
  ::close(sent.stdin_fd);
  ::close(got.stdin_fd);
}

TEST(ExecGo, AHangUpIsNoGo) {
  SocketPair pair;
  ::close(pair.fds[0]);
  pair.fds[0] = -1;
  CommandLaunch got;
  got.go_fd = pair.fds[1];
  EXPECT_FALSE(ReceiveGo(got));
}

TEST(ExecGo, GarbageIsNoGo) {
  SocketPair pair;
  // A length, no fd and no fields: refused, never run.
  uint64_t size = 3;
  ASSERT_EQ(::write(pair.fds[0], &size, sizeof(size)), static_cast<ssize_t>(sizeof(size)));
  ASSERT_EQ(::write(pair.fds[0], "abc", 3), 3);
  CommandLaunch got;
  got.go_fd = pair.fds[1];
  EXPECT_FALSE(ReceiveGo(got));
}

}  // namespace
}  // namespace agentbox
