// `--format` of `ls` and `inspect`: a Go-template-like text, as docker's --format, over one JSON
// object (a sandbox). Pure: no I/O.
//
//   {{.ID}}  {{.Name}}  {{.CreatedAt}}  {{.Policy.Memory}}   a field: CamelCase of the JSON key
//                                                            (created_at), dotted for nested ones
//   {{json .}}  {{json .Policy}}                             the object or a field as JSON
//   \t \n \\                                                 a tab, a newline, a backslash
//
// A string prints as it is, null as nothing, anything else as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/status.h"

namespace agentbox {

// kInvalidArgument naming the problem for an unknown field, an unclosed "{{" or an action that
// is neither a field nor `json`; the message lists the fields `object` has.
StatusOr<std::string> RenderFormat(std::string_view format, const nlohmann::json& object);

}  // namespace agentbox
