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

// Characters (code points) of UTF-8 text: every byte but continuation bytes (10xxxxxx) starts
// one. Exact for valid UTF-8, such as SanitizeUtf8's output.
size_t Utf8Length(std::string_view text);

// The bytes of the first `chars` characters (all of text if it has fewer): a cut there never
// splits a character.
size_t Utf8PrefixBytes(std::string_view text, size_t chars);

// Where the last `chars` characters begin (0 if text has fewer).
size_t Utf8SuffixStart(std::string_view text, size_t chars);

}  // namespace agentbox
