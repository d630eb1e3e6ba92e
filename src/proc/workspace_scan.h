// One walk over a workspace the user gave, before a sandbox gets it: what in it could reach the
// host (a unix socket or a FIFO some host process may be at the other end of), and, where the
// disk limit is a project quota, the project label put on every file and directory, so that the
// kernel counts what each one holds or gains.
//
// Host side. Does not follow symlinks or cross mounts; a tree that changes during the walk is
// walked as it is met (what the host adds afterwards is documented in docs/security.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"

namespace agentbox {

struct ScanResult {
  std::string host_endpoint;  // the first socket or FIFO found (a path), "" when none
  uint64_t entries = 0;       // files, directories and links walked
};

// label_project: the project id to give every regular file and directory (nullopt: none).
StatusOr<ScanResult> ScanWorkspace(const std::string& dir, std::optional<uint32_t> label_project);

}  // namespace agentbox
