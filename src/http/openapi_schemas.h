// The OpenAPI schemas of the workspace's routes (snapshots, restore, diff, fork), apart from
// openapi.cc's so each file stays one screenful of schemas.
#pragma once

#include <nlohmann/json.hpp>

namespace agentbox {

nlohmann::json SnapshotSchema();
nlohmann::json NameOnlySchema(const char* what);  // {"name": string}, for a description
nlohmann::json RestoredSchema();
nlohmann::json WorkspaceDiffSchema();

}  // namespace agentbox
