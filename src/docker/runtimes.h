// The OCI runtime a sandbox's container runs under (`--runtime`), as dockerd has it registered.
//
// gVisor (runsc) answers the sandbox's syscalls itself and has limits runc does not: Debian 12's
// runsc of 2022 cannot use an idmapped bind mount (every access fails with EOVERFLOW), so the
// docker backend refuses, at create, a workspace that would need one, instead of starting a
// sandbox that cannot write its /workspace.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "docker/engine_client.h"

namespace agentbox::docker {

// True when `runtime` names gVisor in dockerd's /info answer: registered under the name "runsc"
// or with a runsc binary as its path (a runtime registered as e.g. "gvisor").
bool IsGvisorRuntime(const nlohmann::json& info, const std::string& runtime);

// The same, asking the daemon; false for the default runtime (an empty name).
StatusOr<bool> RuntimeIsGvisor(EngineClient& client, const std::string& runtime);

// kInvalidArgument, one line saying what to do, for a workspace owned by other ids than the
// sandbox user's (which the idmapped mount would map) under gVisor.
Status GvisorWorkspaceOwnerError(const std::string& workspace, uid_t owner_uid, gid_t owner_gid,
                                 uid_t sandbox_uid, gid_t sandbox_gid);

}  // namespace agentbox::docker
