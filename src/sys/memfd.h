// A memfd holding given bytes: how a command's stdin reaches the agent as an fd.
#pragma once

#include <string_view>

#include "base/status.h"
#include "sys/unique_fd.h"

namespace agentbox {

// A memfd named `name` holding `data`, its offset back at 0. Unlike a pipe it needs no writer
// thread however large the data (a pipe blocks past 64 KiB until the reader drains it).
StatusOr<UniqueFd> MemfdWithContents(const char* name, std::string_view data);

}  // namespace agentbox
