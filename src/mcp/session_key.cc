#include "mcp/session_key.h"

#include "base/sha256.h"

namespace agentbox::mcp {
namespace {

constexpr size_t kKeyDigits = 48;

}  // namespace

std::string SessionKey(std::string_view session_id) {
  // Sha256Of's "sha256:" prefix is 7 characters.
  return Sha256Of(session_id).substr(7, kKeyDigits);
}

}  // namespace agentbox::mcp
