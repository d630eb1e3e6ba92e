#include "proto/output_walls.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

std::vector<Wall> Scan(std::string_view text) {
  OutputWalls walls;
  walls.Feed(text);
  return walls.Walls();
}

TEST(OutputWallsTest, ReadOnlyRootFromCommonToolsCountedByWhere) {
  auto walls = Scan(
      "rm: cannot remove '/usr/bin/ls': Read-only file system\n"
      "rm: cannot remove '/usr/bin/cat': Read-only file system\n"
      "mkdir: cannot create directory \xe2\x80\x98/usr/lib/x\xe2\x80\x99: Read-only file system\n"
      "sh: can't create /etc/motd: Read-only file system\n");
  ASSERT_EQ(walls.size(), 3u);
  EXPECT_EQ(walls[0].wall, kWallReadOnlyRoot);
  EXPECT_EQ(walls[0].what, "/usr/bin/ls");
  EXPECT_EQ(walls[0].count, 2u);
  EXPECT_EQ(walls[0].error, "EROFS");
  EXPECT_EQ(walls[0].seen_by, kSeenInOutput);
  EXPECT_NE(walls[0].message.find("read-only root: /usr/bin/ls (2 times under /usr/bin)"),
            std::string::npos)
      << walls[0].message;
  EXPECT_EQ(walls[1].what, "/usr/lib/x");
  EXPECT_EQ(walls[2].what, "/etc/motd");
}

TEST(OutputWallsTest, PipIntoTheSystemPython) {
  auto walls = Scan(
      "ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: "
      "'/usr/local/lib/python3.11/dist-packages/requests'\n"
      "OSError: [Errno 30] Read-only file system: '/usr/lib/python3/dist-packages/six.py'\n");
  ASSERT_EQ(walls.size(), 2u);
  EXPECT_EQ(walls[0].wall, kWallReadOnlyRoot);
  EXPECT_EQ(walls[0].error, "EACCES");
  EXPECT_EQ(walls[0].what, "/usr/local/lib/python3.11/dist-packages/requests");
  EXPECT_EQ(walls[1].what, "/usr/lib/python3/dist-packages/six.py");
  EXPECT_EQ(walls[1].error, "EROFS");
}

TEST(OutputWallsTest, NodeStyleErrorsAreLowerCase) {
  auto walls = Scan("npm ERR! Error: EACCES: permission denied, mkdir '/usr/lib/node_modules'\n");
  ASSERT_EQ(walls.size(), 1u);
  EXPECT_EQ(walls[0].what, "/usr/lib/node_modules");
}

TEST(OutputWallsTest, WritableDirsAndTheKernelsTreesAreNoReadOnlyRoot) {
  auto walls = Scan(
      "touch: cannot touch '/workspace/x': Permission denied\n"
      "cat: /proc/1/environ: Permission denied\n"
      "sh: /tmp/x: Read-only file system\n");
  ASSERT_EQ(walls.size(), 2u);
  EXPECT_EQ(walls[0].wall, kWallPermission);
  EXPECT_EQ(walls[0].what, "/workspace/x");
  EXPECT_EQ(walls[1].wall, kWallPermission);
}

TEST(OutputWallsTest, KillOfAHostProcess) {
  auto walls = Scan(
      "sh: kill: (4242) - No such process\n"
      "sh: can't kill pid 4243: No such process\n"
      "sh: 1: kill: No such process\n");
  ASSERT_EQ(walls.size(), 3u);
  EXPECT_EQ(walls[0].wall, kWallPidNamespace);
  EXPECT_EQ(walls[0].what, "4242");
  EXPECT_EQ(walls[1].what, "4243");
  EXPECT_EQ(walls[2].what, "") << "dash names no pid; its 1 is a line number";
  EXPECT_NE(walls[0].message.find("process 4242 is not in the sandbox"), std::string::npos);
}

TEST(OutputWallsTest, NetworkLookups) {
  auto walls = Scan(
      "curl: (6) Could not resolve host: example.com\n"
      "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>\n");
  ASSERT_EQ(walls.size(), 2u);
  EXPECT_EQ(walls[0].wall, kWallNetwork);
  EXPECT_EQ(walls[0].what, "example.com");
  EXPECT_EQ(walls[0].rule, "allow_hosts");
  EXPECT_EQ(walls[1].what, "");
}

TEST(OutputWallsTest, LinesSplitAcrossChunksAndALastLineWithoutNewline) {
  OutputWalls walls;
  walls.Feed("rm: cannot remove '/usr/b");
  walls.Feed("in/x': Read-only file system\nkill: (7) - No such ");
  walls.Feed("process");
  auto seen = walls.Walls();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].what, "/usr/bin/x");
  EXPECT_EQ(seen[1].what, "7");
}

TEST(OutputWallsTest, BoundedInBytesAndWalls) {
  OutputWalls walls;
  const std::string line = "rm: cannot remove '/usr/bin/x': Read-only file system\n";
  std::string flood;
  while (flood.size() < OutputWalls::kMaxScannedBytes + line.size() * 4) flood += line;
  walls.Feed(flood);
  auto seen = walls.Walls();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_LE(seen[0].count, OutputWalls::kMaxScannedBytes / line.size() + 1);
  EXPECT_NE(seen[0].message.find("at least"), std::string::npos);

  OutputWalls many;
  for (int i = 0; i < 40; ++i) {
    many.Feed("rm: cannot remove '/d" + std::to_string(i) + "/x': Read-only file system\n");
  }
  EXPECT_EQ(many.Walls().size(), OutputWalls::kMaxOutputWalls);
}

TEST(OutputWallsTest, OrdinaryOutputNamesNoWall) {
  EXPECT_TRUE(Scan("warning: unused variable\nerror: expected ';'\n").empty());
  EXPECT_TRUE(Scan("Permission denied (publickey).\n").empty()) << "no path: not a wall we know";
}

}  // namespace
}  // namespace agentbox
