// Policy files: a JSON object whose keys are the options of `agentbox run` (see SpecFields()).
//
//   {"timeout": 30, "memory": "1G", "pids": 64, "env": {"CI": "1"}, "stdin": false}
//
// Validation is strict: an unknown key, a repeated key, a value of the wrong type or out of range
// is an error naming the file, the key and the reason, e.g.
//   policy.json: key "memory": expected a size like "512M" or a number of bytes, got true
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "spec/spec_overlay.h"

namespace agentbox {

// Parses policy JSON. `source_name` (usually the file's path) starts every error message.
// Errors are kInvalidArgument; malformed JSON reports the line and column.
StatusOr<SpecOverlay> ParsePolicyJson(std::string_view text, std::string_view source_name);

// Reads the file at `path` (at most 1 MiB) and parses it with ParsePolicyJson. An unreadable file
// is an errno error naming the path (kNotFound, kPermissionDenied, ...).
StatusOr<SpecOverlay> LoadPolicyFile(const std::string& path);

}  // namespace agentbox
