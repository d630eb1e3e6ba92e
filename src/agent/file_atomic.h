// AtomicFile: a file written beside its target and renamed over it (runs in the agent).
//
// Readers see the old content or the new one, never a half-written file, and a failed or
// interrupted write leaves the target untouched and no temp file behind. renameat() replaces
// the directory entry itself, so a symlink at the target is replaced, never written through.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "agent/path_beneath.h"
#include "base/status.h"
#include "sys/unique_fd.h"

namespace agentbox {

class AtomicFile {
 public:
  // Creates a fresh temp file in the directory parent_fd (O_EXCL, no symlink followed); the
  // final `mode` is applied by Commit(). for_errors names the target in error messages.
  static StatusOr<AtomicFile> Create(int parent_fd, std::string name, mode_t mode,
                                     WorkspacePath for_errors);

  AtomicFile(AtomicFile&& other) noexcept = default;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();  // removes the temp file unless committed

  // Appends data; ENOSPC/EDQUOT/EFBIG become kResourceExhausted.
  Status Write(std::string_view data);
  // Sets the mode and renames the temp file over the target.
  Status Commit();

 private:
  AtomicFile(UniqueFd parent, UniqueFd file, std::string name, std::string temp_name, mode_t mode,
             WorkspacePath for_errors);

  UniqueFd parent_;
  UniqueFd file_;
  std::string name_;
  std::string temp_name_;  // empty once committed or moved from
  mode_t mode_;
  WorkspacePath for_errors_;
};

}  // namespace agentbox
