// WriteTarOfDirectory: a POSIX (pax) archive of a directory tree, written with libarchive, for
// `agentbox image import`: the Engine API builds an image from a tar body, no registry needed.
// The walk is ours (fd-relative, so nothing is followed out of the tree); the format is
// libarchive's (long names, large files, the pax headers), as every tar reader expects it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "base/status.h"

namespace agentbox::docker {

// Receives the archive in pieces, in order; an error stops the archiving with that error.
using TarSink = std::function<Status(const void* data, size_t size)>;

// Archives everything beneath `dir` (not `dir` itself) with paths relative to it, keeping
// modes, numeric owners, mtimes, symlinks and hard links, in a stable (sorted) order. Never
// follows a symlink (every open and stat is relative to its parent's fd, O_NOFOLLOW) and never
// crosses into another mount (a mount point is archived as an empty directory). Sockets,
// fifos and device nodes are skipped: an image gets its /dev from the runtime. A file that
// shrinks while being read is an error; one that grows is cut at the size it had. Memory stays
// bounded whatever the tree's size: file data goes to `sink` in 64 KiB pieces.
Status WriteTarOfDirectory(const std::string& dir, const TarSink& sink);

}  // namespace agentbox::docker
