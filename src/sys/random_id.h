// RandomHexId: 128 random bits from getrandom(2) as 32 lowercase hex digits, for ids that are
// the only thing naming what they name (an MCP session, an MCP task): unguessable, so knowing
// one is the right to use it within its tenant.
#pragma once

#include <string>

namespace agentbox {

// Aborts if getrandom fails, which it does not once the kernel's pool is initialized (long
// before any server runs).
std::string RandomHexId();

}  // namespace agentbox
