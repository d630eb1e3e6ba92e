// Parsing of the value syntaxes shared by flags and policy files: sizes, durations, counts.
//
// Pure functions. Each returns kInvalidArgument with a message that says what was expected and
// quotes what was given; callers prefix the flag or policy key.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace agentbox {

// "4096", "512M", "2g", "1.5G", "64KiB", "1TB": bytes, or a number with a binary multiple
// K/M/G/T (1024-based), optionally followed by "B" or "iB", case-insensitive. A fraction needs a
// unit and is rounded down to whole bytes. No sign, no spaces, no exponent; overflow is an error.
StatusOr<uint64_t> ParseSize(std::string_view text);

// "60", "1.5", "250ms", "30s", "5m", "2h", "1d" -> seconds. Without a unit: seconds, like
// timeout(1). Rejects zero, negatives, NaN and infinity: a duration of none is meaningless here.
StatusOr<double> ParseDuration(std::string_view text);

// The longest timeout anything accepts (policy, flags, API, MCP): one week. Longer is no
// different from "never" for a command, and a bound keeps every conversion to milliseconds
// in range.
inline constexpr double kMaxTimeoutSeconds = 7 * 24 * 3600;

// OK for 0 < seconds <= kMaxTimeoutSeconds (NaN fails); the message is the reason only.
Status CheckTimeout(double seconds);

// ParseDuration, then CheckTimeout.
StatusOr<double> ParseTimeout(std::string_view text);

// "0.5", "2", "16": a positive finite decimal number (CPU shares).
StatusOr<double> ParsePositiveDecimal(std::string_view text);

// "256": a non-negative integer in decimal digits only.
StatusOr<uint64_t> ParseCount(std::string_view text);

// 536870912 -> "512M", 1536 -> "1536": the shortest exact form ParseSize reads back.
std::string FormatSize(uint64_t bytes);

// Formats a number of seconds without trailing zeros: 60 -> "60", 1.5 -> "1.5".
std::string FormatSeconds(double seconds);

}  // namespace agentbox
