// The fallocate watch: how a refused allocation reaches `limits_hit`.
//
// The quota refuses a write at the limit, and a write refused there leaves the workspace full,
// which the quota reading sees (AtDiskLimit). One allocation bigger than what is left is refused
// whole and leaves the workspace as it was: the kernel keeps no count of refusals, so nothing
// after the command could tell. So the command's fallocate(2) calls, and only those, are handed
// to its supervisor (a seccomp user notification): for a file of the workspace the supervisor
// makes the same call on the same open file, with no effective capabilities, and answers the
// command with its result; a refusal (EDQUOT, ENOSPC) is remembered. Anything else (another
// filesystem, a file-size limit the call would cross, a process that cannot be reached, such as
// one that made itself non-dumpable) is let through to the kernel as the command's own call.
//
// The limit never depends on this: the kernel's quota holds it either way, and the watch only
// says that it did. Where the kernel cannot give a listener (gVisor), the init goes on without.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/status.h"
#include "sys/unique_fd.h"

namespace agentbox {

// A watch's channel: `child` becomes ChildPlan::watch_channel, `supervisor` the box's watch_read;
// `workspace_dev` is the st_dev of `workspace` as the supervisor sees it.
struct WatchChannel {
  UniqueFd supervisor, child;
  dev_t workspace_dev = 0;
};
StatusOr<WatchChannel> MakeWatchChannel(const std::string& workspace);

// Child side, after no_new_privs and before the sandbox's own filter: attaches the watch filter
// and sends its listener over `channel` (a unix socket), then closes its copies. True if there
// is nothing to watch with (no listener on this kernel: the channel just closes) or the listener
// was sent; false with errno when the filter is attached but its listener could not be sent
// (its fallocate calls would then fail ENOSYS, so the caller must not exec). No allocation.
bool InstallFallocateWatch(int channel);

// Supervisor side: the receiving end of the channel, and the workspace's st_dev.
class FallocateWatch {
 public:
  FallocateWatch(UniqueFd channel, dev_t workspace_dev);

  // What to poll: the channel until the listener arrives, then the listener (-1: neither).
  int fd() const;
  // Call when fd() is readable or hung up.
  void OnReady(short revents);
  // A workspace allocation was refused for want of space.
  bool refused() const { return refused_; }

 private:
  void ReceiveListener();
  void HandleNotification();

  UniqueFd channel_;
  UniqueFd listener_;
  dev_t workspace_dev_;
  bool refused_ = false;
};

}  // namespace agentbox
