// The key of an MCP session (Mcp-Session-Id) where serve's replicas share it (issue 20): what
// names the session's record in the cluster and labels its sandbox. The id is a credential (who
// holds it drives the session's sandbox), so the cluster never sees it: the key is a digest,
// from which the id cannot be had back, and which only a holder of the id can compute.
// Pure.
#pragma once

#include <string>
#include <string_view>

namespace agentbox::mcp {

// 48 lowercase hex digits: the first 192 bits of the id's SHA-256. A label value (at most 63
// characters) and, prefixed, an object name.
std::string SessionKey(std::string_view session_id);

}  // namespace agentbox::mcp
