// The seccomp listener: how the walls' refusals reach the effect report, and the fallocate
// watch its supervisor.
//
// The command's filter is NotifyingSeccompProgram() (policy/seccomp_program.h), attached by its
// init with SECCOMP_FILTER_FLAG_NEW_LISTENER; the init sends the listener over a socket to the
// command's supervisor (agentbox for `run`, the agent's handler for an exec) and closes its own
// copy. Each call a rule denies then waits for the supervisor, which answers with that rule's
// errno (the same the kernel would have given) and counts it, with the program that made it.
// Nothing else is slowed: calls no rule denies never leave the kernel. When the disk limit is
// held, fallocate comes the same way (proc/fallocate_watch.h); with policy key random_seed,
// getrandom (proc/getrandom_watch.h) and open/openat, for /dev/urandom (proc/urandom_watch.h).
//
// Where the kernel gives no listener (gVisor; kernels before 5.0) the init attaches the plain
// filter instead (the kernel answers the denials itself) and the channel just closes: the report
// then says denied calls are not itemized. A seccomp filter may have only one listener in a
// process's chain, so the command cannot attach one of its own (EBUSY).
#pragma once

#include <linux/seccomp.h>
#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "policy/seccomp_rules.h"
#include "proc/child_plan.h"
#include "proc/seeded_random.h"
#include "proc/urandom_feeder.h"
#include "sys/unique_fd.h"

namespace agentbox {

// The channel the init sends the listener on: `child` becomes CommandLaunch::listener_channel,
// `supervisor` the SupervisedSandbox's listener_read. With watch_fallocate, fallocate comes too,
// for the workspace of st_dev `workspace_dev` as the supervisor sees it; with random_seed,
// getrandom, answered from that seed's stream.
struct ListenerChannel {
  UniqueFd supervisor, child;
  bool watch_fallocate = false;
  dev_t workspace_dev = 0;
  std::optional<uint64_t> random_seed;
};
StatusOr<ListenerChannel> MakeListenerChannel(const std::string& workspace, bool watch_fallocate,
                                              std::optional<uint64_t> random_seed);

// Parent side: the command's filters for a launch with a listener (command.listener_channel):
// NotifyingSeccompProgram(), behind the fallocate watch's instructions when `watch_fallocate`
// and the getrandom and /dev/urandom watches' when `watch_getrandom` (random_seed);
// DefaultSeccompProgram() where the kernel gives no listener (a seeded sandbox is refused there
// before it starts). Static programs, made once.
void UseListenedFilter(CommandLaunch& command, bool watch_fallocate, bool watch_getrandom);

// Child side, after no_new_privs: attaches `with_listener` with a listener and sends the
// listener on `channel`; where the kernel gives none, attaches `without` (no listener) instead,
// or, when `without` is empty (a seeded getrandom needs the listener), fails with its errno.
// Closes `channel` either way. False with errno when no filter could be attached, or when the
// listener could not be sent (its calls would then fail ENOSYS, so the caller must not exec).
// No allocation.
bool AttachFilterAndSendListener(const std::vector<BpfInstruction>& with_listener,
                                 const std::vector<BpfInstruction>& without, int channel);

// One rule's denials, as the listener counted them.
struct DeniedSyscall {
  const SeccompRule* rule = nullptr;  // into SeccompRules(); nullptr: no rule matched (answered
                                      // EPERM, which never happens while the table and the
                                      // filter agree)
  uint64_t count = 0;
  std::string process;  // the program that made the first one (its comm), "" if unknown
};

// Supervisor side.
class SeccompListener {
 public:
  // watch_fallocate: answer fallocate as proc/fallocate_watch.h says; random_seed: getrandom
  // as proc/getrandom_watch.h says, from a stream of that seed starting here, and opens of
  // /dev/urandom and /dev/random as proc/urandom_watch.h says (their first stream starts here).
  SeccompListener(UniqueFd channel, bool watch_fallocate, dev_t workspace_dev,
                  std::optional<uint64_t> random_seed = std::nullopt);
  ~SeccompListener();  // ends the streams' feeding: their readers see EOF

  // What to poll: the channel until the listener arrives, then the listener (-1: neither).
  int fd() const;
  // Call when fd() is readable or hung up.
  void OnReady(short revents);

  // A listener arrived: the denials below are every denial of the command's tree.
  bool observed() const { return observed_; }
  const std::vector<DeniedSyscall>& denied() const { return denied_; }
  // A workspace allocation was refused for want of space (the fallocate watch).
  bool disk_refused() const { return disk_refused_; }

 private:
  void ReceiveListener();
  void HandleNotification();
  void CountDenial(const SeccompRule* rule, pid_t pid);

  UniqueFd channel_;
  UniqueFd listener_;
  bool watch_fallocate_;
  dev_t workspace_dev_;
  bool observed_ = false;
  bool disk_refused_ = false;
  std::optional<SeededRandom> random_;
  std::unique_ptr<UrandomFeeder> urandom_;  // with random_seed: the opens' streams
  std::vector<DeniedSyscall> denied_;
};

}  // namespace agentbox
