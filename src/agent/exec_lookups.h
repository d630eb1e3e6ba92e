// The names an exec looked up: PID 1 holds the sandbox's DNS catcher (proc/dns_catcher.h), a
// handler asks it over its control channel (agent/control_channel.h) when its exec starts and
// again when it ends, and the names caught in between go into the exec's result.
//
// What is caught while two execs run at once is in both results: a lookup carries no sign of
// which process made it (UDP has no peer credentials).
//   {"op":"lookups"}                -> {"ok":true,"mark":N}
//   {"op":"lookups","since":N}      -> {"ok":true,"mark":M,"names":[...],"lost":K}
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "proc/dns_catcher.h"
#include "proto/exec_result.h"

namespace agentbox {

// A handler's side. nullopt when PID 1 has no catcher (or did not answer).
std::optional<uint64_t> LookupsMark(int control_fd);
// Adds the names caught since `mark` to result.network (nothing for a nullopt mark).
void AddLookupsSince(int control_fd, std::optional<uint64_t> mark, ExecResult& result);

// PID 1's side: the answer to a "lookups" message.
nlohmann::json AnswerLookups(const DnsCatcher* catcher, const nlohmann::json& message);

}  // namespace agentbox
