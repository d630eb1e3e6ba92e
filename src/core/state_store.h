// StateStore: where persistent sandboxes are remembered, so they outlive the CLI.
//
//   <root>/sandboxes/<id>/sandbox.json   the SandboxRecord (written atomically)
//   <root>/sandboxes/<id>/agent.sock     the agent's socket (native)
//   <root>/sandboxes/<id>/workspace/     a private workspace, when none was given
//   <root>/names/<name> -> <id>          a symlink: names are reserved atomically
//   <root>/trash/<id>/                   a sandbox being removed (or whose removal was cut short)
//
// root: $AGENTBOX_STATE_DIR, else /var/lib/agentbox for root, else $XDG_STATE_HOME/agentbox
// (~/.local/state/agentbox). Directories are 0700: the agent's socket must stay the host's.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "core/sandbox_record.h"

namespace agentbox {

class StateStore {
 public:
  static StatusOr<StateStore> Open();
  explicit StateStore(std::string root) : root_(std::move(root)) {}

  const std::string& root() const { return root_; }
  std::string SandboxDir(const std::string& id) const { return root_ + "/sandboxes/" + id; }

  // A fresh unused id with its (empty) directory.
  StatusOr<std::string> AllocateId();
  // Reserves `name` for `id`; kAlreadyExists when taken, kInvalidArgument when malformed.
  Status ReserveName(const std::string& name, const std::string& id);
  void ReleaseName(const std::string& name, const std::string& id);

  Status Save(const SandboxRecord& record);
  // Keeps a record made elsewhere (Backend::Adoptable) under its own id: its directory, the
  // record and, when free here, its name.
  Status Adopt(const SandboxRecord& record);
  StatusOr<SandboxRecord> Load(const std::string& id) const;
  // By exact id, by name, or by a unique id prefix of at least 4 digits. kNotFound naming ref.
  StatusOr<SandboxRecord> Find(const std::string& ref) const;
  // Every record that loads; ids whose directory holds no valid record go to `broken`.
  std::vector<SandboxRecord> List(std::vector<std::string>* broken = nullptr) const;
  // Removes the sandbox's directory (its private workspace included) and its name. The
  // directory first moves to <root>/trash/ in one rename, so it is listed whole or not at all.
  Status Remove(const std::string& id, const std::string& name);
  // Deletes what removals cut short left in <root>/trash/; the paths it removed.
  std::vector<std::string> EmptyTrash();

 private:
  std::string root_;
};

// The state root as resolved from the environment (see above), whether or not it exists yet.
std::string StateRootPath();

// Names: 1-64 of [A-Za-z0-9_.-], starting with a letter or digit.
Status ValidateSandboxName(const std::string& name);

}  // namespace agentbox
