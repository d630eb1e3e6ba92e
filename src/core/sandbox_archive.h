// Tar streams in and out of a sandbox's /workspace, through its agent's file operations
// (agent_files.h), with libarchive: `agentbox cp ID:PATH -` / `cp - ID:PATH` and the API's
// GET/PUT .../archive. Every path the agent resolves strictly beneath /workspace; on top of
// that an archive's entry names are checked here (relative, no `..`), and every stream is
// bounded (ArchiveLimits), so a hostile archive can neither escape nor exhaust the host.
//
// Only regular files and directories travel, as with `cp`: a symlink, hard link, device or
// FIFO, in the sandbox or in an archive, stops the transfer with kInvalidArgument naming it.
// Files keep their rwx bits (setuid, setgid and sticky are dropped) and their mtime on the way
// out; in the sandbox they belong to the sandbox user.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "core/agent_endpoint.h"

namespace agentbox {

struct ArchiveLimits {
  uint64_t max_file_bytes = 256ull << 20;  // one file's content
  uint64_t max_total_bytes = 1ull << 30;   // all files' content together
  uint64_t max_entries = 100000;           // files and directories
};

// Takes the stream's bytes in order; an error stops the transfer and is its result.
using ArchiveSink = std::function<Status(std::string_view bytes)>;
// Gives the next bytes of the stream into *chunk; an empty chunk is its end.
using ArchiveSource = std::function<Status(std::string* chunk)>;

struct ArchiveCounts {
  uint64_t files = 0;
  uint64_t directories = 0;
  uint64_t bytes = 0;  // files' content
};

// Writes the file or directory tree at `path` as an uncompressed tar (POSIX pax) stream whose
// top entry is the path's base name ("workspace" for /workspace itself), as `docker cp ID:P -`.
// Past a limit: kResourceExhausted, the stream cut where it was.
StatusOr<ArchiveCounts> WriteSandboxArchive(const AgentEndpoint& agent, const std::string& path,
                                            const ArchiveLimits& limits, const ArchiveSink& sink);

// Extracts an uncompressed tar (ustar, pax or GNU) stream into the existing directory `dir` in
// the sandbox (kNotFound when missing, kInvalidArgument when not a directory), as `docker cp -
// ID:DIR`: existing files are replaced, missing parents made. An entry name that is absolute or
// holds `..` is kPermissionDenied; a limit passed is kResourceExhausted. Entries before the one
// that failed stay written.
StatusOr<ArchiveCounts> ExtractSandboxArchive(const AgentEndpoint& agent, const std::string& dir,
                                              const ArchiveLimits& limits,
                                              const ArchiveSource& source);

}  // namespace agentbox
