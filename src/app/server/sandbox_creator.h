// Creating a sandbox from a multithreaded server without cloning it.
//
// The native backend clones; clone in a process with other threads inherits locks those threads
// hold (malloc's, stdio's) and can deadlock the child. So the server runs its own binary as a
// single-threaded helper, `agentbox create --policy FILE [--name NAME]`, and reads the new id.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "core/sandbox_record.h"

namespace agentbox {

// The id of the new sandbox; on failure the helper's one-line reason (kAlreadyExists when the
// name was taken meanwhile, else kUnavailable). `tenant` (a tenant's create) goes to the helper
// as --tenant and --tenant-name (and an MCP session's key as --mcp-session): the record keeps
// them, and a kubernetes sandbox's objects carry them.
StatusOr<std::string> CreateSandboxInHelper(const std::string& self_exe,
                                            const std::string& state_root,
                                            const nlohmann::json& policy, const std::string& name,
                                            const SandboxTenant& tenant = {});

// Removes the policy files a server killed mid-create left in `state_root` (they hold a
// tenant's policy, env values included): those whose server (named in the file) is gone.
void RemoveStalePolicyFiles(const std::string& state_root);

}  // namespace agentbox
