// serve's MCP session as the cluster keeps it, where serve's replicas share sessions (issue 20;
// Backend::SharesMcpSessions): one Secret "agentbox-mcp-KEY" per session, KEY the session's key
// (mcp/session_key.h: a digest of the Mcp-Session-Id, never the id, which is a credential).
// A Secret, not a ConfigMap, because serve's Role already creates, reads and deletes Secrets
// and nothing else that could hold it (deploy/10-rbac.yaml); it holds no data, only metadata:
// labels managed-by, owner, mcp-session=KEY and tenant (as a sandbox's), annotations tenant
// (exactly) and created-at. Its sandbox is found by its own mcp-session label (pod_record.h).
// Pure: JSON in, JSON out.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/status.h"
#include "core/backend.h"

namespace agentbox::kubernetes {

// "agentbox-mcp-KEY".
std::string McpSessionSecretName(std::string_view key);

// The Secret of `session`, labelled with `owner` (the agentbox.dev/owner label's value),
// made at `created_at` (RFC 3339). kInvalidArgument when the key is no label value.
StatusOr<nlohmann::json> McpSessionSecret(const SharedMcpSession& session, const std::string& owner,
                                          const std::string& created_at);

// The session a Secret read back from the cluster holds. kNotFound when it is not `owner`'s
// (another agentbox's sessions are never ours to continue); kInvalidArgument naming the Secret
// when its labels and annotations disagree (changed by hand).
StatusOr<SharedMcpSession> McpSessionFromSecret(const nlohmann::json& secret,
                                                const std::string& owner);

}  // namespace agentbox::kubernetes
