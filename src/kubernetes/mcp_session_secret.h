// serve's MCP session as the cluster keeps it, where serve's replicas share sessions (issue 20;
// Backend::SharesMcpSessions): one Secret "agentbox-mcp-KEY" per session, KEY the session's key
// (mcp/session_key.h: a digest of the Mcp-Session-Id, never the id, which is a credential).
// A Secret, not a ConfigMap, because serve's Role already creates, reads and deletes Secrets
// and nothing else that could hold it (deploy/10-rbac.yaml); it holds no data, only metadata:
// labels managed-by, owner, mcp-session=KEY and tenant (as a sandbox's), annotations tenant
// (exactly) and created-at. Its sandbox is found by its own mcp-session label (pod_record.h).
// Pure: JSON in, JSON out.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
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

// How long gc keeps a session's record that no live sandbox carries the key of.
inline constexpr int64_t kAbandonedMcpSessionSeconds = 3600;

// Whether `secret` is a session's record (as McpSessionSecret makes them) that gc removes: none
// of `keys_with_sandbox` (the mcp-session labels of the owner's live pods) is its key, and the
// cluster made it kAbandonedMcpSessionSeconds or more before `now` (unix seconds). Such a
// session was abandoned without a DELETE (no replica can tell it has ended), or has had no
// sandbox that long; its client, if any, gets a 404 and begins a new session, as MCP allows.
bool McpSessionAbandoned(const nlohmann::json& secret,
                         const std::set<std::string>& keys_with_sandbox, int64_t now);

}  // namespace agentbox::kubernetes
