// Base64 (RFC 4648 §4, with padding) on Nettle's coder: the WebSocket handshake's accept key,
// MCP's blob resources and its `=?base64?...?=` header values, a registry credential's `auth`
// (docker's config.json) and its Basic authorization.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace agentbox {

std::string Base64Encode(std::string_view bytes);

// The bytes `text` encodes, or nullopt when it is not canonical base64: Nettle's decoder skips
// whitespace and ignores stray trailing bits, so the text must also be exactly what encoding the
// bytes gives back.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace agentbox
