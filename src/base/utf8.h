// UTF-8 sanitizing for text that leaves agentbox as JSON.
#pragma once

#include <string>
#include <string_view>

namespace agentbox {

// Returns `bytes` with every byte that is not part of a well-formed UTF-8 sequence replaced by
// U+FFFD, one replacement per bad byte (so a truncated 3-byte sequence becomes two U+FFFD).
// Overlong forms, UTF-16 surrogates (U+D800..U+DFFF) and code points above U+10FFFF are bad.
// Valid input is returned unchanged, NUL bytes included.
std::string SanitizeUtf8(std::string_view bytes);

// True when SanitizeUtf8 would return the input unchanged.
bool IsValidUtf8(std::string_view bytes);

}  // namespace agentbox
