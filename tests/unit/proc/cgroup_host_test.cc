// Cgroup against this host's real cgroups: runs only as root with memory, pids and cpu control
// available (v1 or v2); otherwise skipped with the reason.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>

#include "proc/cgroup.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

class CgroupHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to create cgroups";
    auto host = DetectCgroupHost();
    if (!host.ok()) GTEST_SKIP() << "no usable cgroups here: " << host.status().message();
    host_ = *host;
    // Orphaned grandchildren come back to us, so every test reaps all it started.
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    name_ = "abtest-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    auto cg = CreateCgroup(host_, name_);
    ASSERT_TRUE(cg.ok()) << cg.status().message();
    cg_ = std::move(*cg);
    Limits limits;
    limits.memory_bytes = 64 * kMiB;
    limits.pids = 16;
    ASSERT_TRUE(cg_->ApplyLimits(limits).ok());
  }
  void TearDown() override {
    if (cg_) {
      EXPECT_TRUE(cg_->KillAll().ok());
      ReapAll();
      EXPECT_TRUE(cg_->Remove().ok());
    }
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  }

  // Forks a child that runs `body` (then _exits with its result) once it is in the cgroup.
  pid_t ForkInCgroup(const std::function<int()>& body) {
    int go[2];
    if (::pipe(go) != 0) return -1;
    pid_t pid = ::fork();
    if (pid == 0) {
      char c;
      ::close(go[1]);
      if (::read(go[0], &c, 1) != 1) ::_exit(100);
      ::_exit(body());
    }
    ::close(go[0]);
    Status st = cg_->AddProcess(pid);
    EXPECT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(::write(go[1], "g", 1), 1);
    ::close(go[1]);
    return pid;
  }
  static void ReapAll() {
    while (::waitpid(-1, nullptr, __WALL | WNOHANG) > 0) {
    }
  }

  // This cgroup's directory (v1: in the first hierarchy, memory).
  std::string Dir() const {
    return (host_.version == CgroupVersion::kV2 ? host_.v2_parent
                                                : host_.v1_controllers[0].parent) +
           "/" + name_;
  }

  CgroupHost host_;
  std::string name_;
  std::unique_ptr<Cgroup> cg_;
};

TEST_F(CgroupHostTest, MemoryHogIsOomKilledAndReported) {
  pid_t pid = ForkInCgroup([] {
    constexpr size_t kSize = 200 * kMiB;
    // volatile: the compiler must not elide an allocation nobody reads back.
    volatile char* p = static_cast<volatile char*>(std::malloc(kSize));
    if (p == nullptr) return 3;
    for (size_t i = 0; i < kSize; i += 4096) p[i] = 1;  // the charge happens per touched page
    return p[kSize - 1] == 1 ? 0 : 4;
  });
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  auto stats = cg_->ReadStats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_TRUE(stats->oom_killed);
  EXPECT_TRUE(stats->memory_limit_hit);
  EXPECT_GT(stats->peak_memory_bytes, 32 * kMiB);
  EXPECT_LE(stats->peak_memory_bytes, 64 * kMiB + 1 * kMiB);
}

TEST_F(CgroupHostTest, ForkStormHitsPidsLimit) {
  pid_t pid = ForkInCgroup([] {
    int forked = 0;
    for (int i = 0; i < 50; ++i) {
      pid_t child = ::fork();
      if (child == 0) {
        ::pause();
        ::_exit(0);
      }
      if (child > 0) ++forked;
    }
    return forked;
  });
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_LT(WEXITSTATUS(status), 16) << "forks that succeeded";
  auto stats = cg_->ReadStats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_TRUE(stats->pids_limit_hit);
  EXPECT_FALSE(stats->oom_killed);
}

// True when one of the pids listed (one a line) is stopped (state T in /proc/PID/stat).
bool OneIsStopped(const std::string& pids) {
  size_t pos = 0;
  while (pos < pids.size()) {
    size_t end = pids.find('\n', pos);
    if (end == std::string::npos) end = pids.size();
    auto stat = ReadFile("/proc/" + pids.substr(pos, end - pos) + "/stat");
    if (stat.ok()) {
      size_t paren = stat->rfind(')');
      if (paren != std::string::npos && paren + 2 < stat->size() && (*stat)[paren + 2] == 'T') {
        return true;
      }
    }
    pos = end + 1;
  }
  return false;
}

TEST_F(CgroupHostTest, KillAllTakesStoppedAndDetachedProcesses) {
  pid_t pid = ForkInCgroup([]() -> int {
    if (::fork() == 0) {  // detached, ignores SIGTERM
      ::setsid();
      ::signal(SIGTERM, SIG_IGN);
      for (;;) ::pause();
    }
    if (::fork() == 0) ::raise(SIGSTOP);  // stopped
    for (;;) ::pause();
  });
  // Wait for the event (all three in the cgroup, one of them stopped), not a guess at how long
  // forking takes: on a busy host 20 ms saw one process. 60 s is only a hang guard.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (true) {
    auto procs = ReadFile(Dir() + "/cgroup.procs");
    ASSERT_TRUE(procs.ok()) << procs.status().message();
    if (std::count(procs->begin(), procs->end(), '\n') == 3 && OneIsStopped(*procs)) break;
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << *procs;
    std::this_thread::yield();
  }

  Status st = cg_->KillAll();
  ASSERT_TRUE(st.ok()) << st.message();
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  ReapAll();
  ASSERT_TRUE(cg_->Remove().ok());
  EXPECT_FALSE(PathExists(Dir()));
  cg_.reset();
}

}  // namespace
}  // namespace agentbox
