// Limits on JSON text from outside agentbox: checked before any parser builds a tree from it.
//
// nlohmann::json parses deep nesting without complaint, but its serializer and destructor recurse
// once per level: 100-200 KB of "[" crashed `agentbox serve`, `agentbox mcp` and `run --policy`
// with SIGSEGV (a stack overflow). Every parser of outside input (policy files, HTTP bodies, MCP
// messages, the agent protocol, the tokens file) calls ParseJsonWithLimits, or CheckJsonLimits
// before its own parse, so such text is refused as kInvalidArgument before a tree exists.
//
// Pure: a single pass over the bytes, no allocation, no OS headers; spec/ and the agent use it.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

#include "base/status.h"

namespace agentbox {

struct JsonLimits {
  // Arrays and objects open at once. Every message agentbox reads is a few levels deep (an MCP
  // request's arguments are at depth 4); 64 leaves room for any honest client.
  int max_depth = 64;
  // Characters of one number token: more cannot be a number any field of ours reads.
  size_t max_number_chars = 100;
  // Bytes of the whole text; 0: the caller bounded the size already.
  size_t max_bytes = 0;
};

// OK when `text` stays within `limits`; kInvalidArgument naming the limit otherwise (for
// example "JSON nested deeper than 64 levels"). Checks only the limits: malformed JSON that
// stays within them passes, for the parser to report. A number whose value overflows a double
// ("1e999") is refused here too: parsers would turn it into infinity.
Status CheckJsonLimits(std::string_view text, const JsonLimits& limits = {});

// CheckJsonLimits, then nlohmann's parse without exceptions: a tree, or kInvalidArgument
// "malformed JSON" / the limit's message.
StatusOr<nlohmann::json> ParseJsonWithLimits(std::string_view text, const JsonLimits& limits = {});

}  // namespace agentbox
