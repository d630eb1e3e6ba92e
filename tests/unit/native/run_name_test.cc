// A run's name carries its creator's pid and PID namespace, so that gc judges the pid only where
// it means something (native/run_name.h).
#include "native/run_name.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

namespace agentbox {
namespace {

TEST(RunNameTest, ANewNameIsThisProcesssInThisNamespace) {
  const std::string name = NewRunName();
  auto creator = RunCreatorOf(name);
  ASSERT_TRUE(creator.has_value()) << name;
  EXPECT_EQ(creator->pid, ::getpid());
  EXPECT_TRUE(creator->pid_is_ours) << name;
  EXPECT_NE(NewRunName(), name);
}

TEST(RunNameTest, OtherNamespacesAreNotJudgedByPidOldNamesAsBefore) {
  auto old = RunCreatorOf("run-123-deadbeef");  // before the namespace was in the name
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->pid, 123);
  EXPECT_TRUE(old->pid_is_ours);
  EXPECT_FALSE(RunCreatorOf("run-123-1-deadbeef")->pid_is_ours);
  for (const char* not_a_run : {"sb-0123456789ab", "run-", "run-x-1-2", "run-0-1-2", "run-12"}) {
    EXPECT_FALSE(RunCreatorOf(not_a_run).has_value()) << not_a_run;
  }
}

// A name made in this namespace is another's in a child PID namespace.
TEST(RunNameTest, AChildPidNamespaceSeesItAsAnothers) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root for unshare(CLONE_NEWPID)";
  const std::string name = NewRunName();
  const pid_t outer = ::fork();
  ASSERT_GE(outer, 0);
  if (outer == 0) {
    if (::unshare(CLONE_NEWPID) != 0) ::_exit(2);
    const pid_t inner = ::fork();  // the first child of the new namespace is its pid 1
    if (inner == 0) {
      // /proc/self/ns/pid follows the process's own namespace, whatever /proc is mounted.
      auto creator = RunCreatorOf(name);
      ::_exit(creator && !creator->pid_is_ours ? 0 : 1);
    }
    int status = 0;
    ::waitpid(inner, &status, 0);
    ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(outer, &status, 0), outer);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace agentbox
