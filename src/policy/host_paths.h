// Which host directories may become a sandbox's /workspace (docs/contract.md §1 --workspace).
//
// Pure (no OS headers): given an absolute path with symlinks already resolved, says whether a
// command may be handed it read-write. Refused, with one line each:
//  - the system's own trees and everything in them: /etc /usr /bin /sbin /lib* /boot /proc
//    /sys /dev /run, and /var but for what lies beneath /var/tmp: a command there could rewrite
//    the host's programs, its configuration or a daemon's state, or talk to daemons' sockets;
//  - directories that hold other users' or the system's files as a whole: / /home /root /tmp
//    /var/tmp /dev/shm /mnt /media /srv /opt (a directory beneath them is fine);
//  - agentbox's state directory, anything inside it (another sandbox's agent socket and record
//    live there) and anything that contains it.
#pragma once

#include <string>

#include "base/status.h"

namespace agentbox {

// resolved: absolute, no "." / ".." / symlinks. state_root: the same, "" when unknown.
Status CheckWorkspaceHostPath(const std::string& resolved, const std::string& state_root);

// kInvalidArgument (naming `flag`) when `resolved` is agentbox's state directory, inside it or
// contains it: a sandbox that sees it, even read-only (--rootfs), can connect to other
// sandboxes' agent sockets. Both paths as for CheckWorkspaceHostPath.
Status CheckStateDirApart(const std::string& flag, const std::string& resolved,
                          const std::string& state_root);

// Joins and normalises: "/a/b/../c" -> "/a/c"; collapses "//" and "/./". Lexical only.
std::string NormalizeAbsolutePath(const std::string& path);

}  // namespace agentbox
