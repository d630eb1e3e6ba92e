// Which host directories may become /workspace: the system's and agentbox's own are refused.
#include "policy/host_paths.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

bool Allowed(const std::string& path, const std::string& state = "/var/lib/agentbox") {
  return CheckWorkspaceHostPath(path, state).ok();
}

TEST(HostPathsTest, SystemTreesAndEverythingInThemAreRefused) {
  for (const char* p : {"/etc", "/etc/nginx", "/usr", "/usr/lib/python3", "/bin", "/sbin", "/lib",
                        "/lib64", "/libx32/x", "/boot", "/proc/1", "/sys/fs", "/dev", "/run",
                        "/run/docker", "/var", "/var/lib/docker", "/var/log"}) {
    EXPECT_FALSE(Allowed(p)) << p;
  }
}

TEST(HostPathsTest, SharedParentsAreRefusedButNotWhatIsBeneathThem) {
  for (const char* p :
       {"/", "/home", "/root", "/tmp", "/var/tmp", "/mnt", "/media", "/srv", "/opt", "/dev/shm"}) {
    EXPECT_FALSE(Allowed(p)) << p;
  }
  for (const char* p : {"/home/alice/proj", "/root/proj", "/tmp/x", "/var/tmp/build", "/srv/ws",
                        "/opt/app/data", "/work/main", "/data"}) {
    EXPECT_TRUE(Allowed(p)) << p;
  }
}

TEST(HostPathsTest, TheStateDirInsideOrAroundIsRefused) {
  EXPECT_FALSE(Allowed("/srv/state", "/srv/state"));
  EXPECT_FALSE(Allowed("/srv/state/sandboxes/x", "/srv/state"));
  EXPECT_FALSE(Allowed("/srv", "/srv/state"));
  EXPECT_TRUE(Allowed("/srv/statex", "/srv/state"));
  EXPECT_TRUE(Allowed("/srv/other", "/srv/state"));
  // --rootfs: the same rule, naming its flag.
  EXPECT_EQ(CheckStateDirApart("--rootfs", "/srv", "/srv/state").message(),
            "--rootfs /srv: contains agentbox's state directory /srv/state (other sandboxes' "
            "agent sockets and records); give a directory of your own");
  EXPECT_FALSE(CheckStateDirApart("--rootfs", "/srv/state/x/..", "/srv/state").ok());
  EXPECT_TRUE(CheckStateDirApart("--rootfs", "/srv/rootfs", "/srv/state").ok());
  EXPECT_TRUE(CheckStateDirApart("--rootfs", "/srv", "").ok());
}

TEST(HostPathsTest, ThePathIsNormalisedBeforeTheCheck) {
  EXPECT_FALSE(Allowed("/tmp/../etc"));
  EXPECT_FALSE(Allowed("//etc//"));
  EXPECT_FALSE(Allowed("/tmp/./.."));
  EXPECT_EQ(NormalizeAbsolutePath("/a/./b/../c//d/"), "/a/c/d");
  EXPECT_EQ(NormalizeAbsolutePath("/../.."), "/");
}

TEST(HostPathsTest, TheRefusalIsOneLineNamingThePath) {
  Status st = CheckWorkspaceHostPath("/etc/x", "");
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("/etc/x"), std::string::npos);
  EXPECT_EQ(st.message().find('\n'), std::string::npos);
}

}  // namespace
}  // namespace agentbox
