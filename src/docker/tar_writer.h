// TarFromDirectory: a POSIX (ustar + pax) archive of a directory tree, for `agentbox image
// import`: the Engine API builds an image from a tar body, and no registry is needed.
#pragma once

#include <string>

#include "base/status.h"

namespace agentbox::docker {

// Archives everything beneath `dir` (not `dir` itself) with paths relative to it, keeping modes,
// owners, symlinks and hard links; never follows a symlink or crosses into another mount.
// Sockets, fifos and device nodes are skipped: an image gets its /dev from the runtime.
StatusOr<std::string> TarFromDirectory(const std::string& dir);

}  // namespace agentbox::docker
