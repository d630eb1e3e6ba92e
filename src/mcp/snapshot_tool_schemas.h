// The definitions of the snapshot tools and session_log, as JSON text tool_schemas.cc adds to
// the others: an array of tools in which SNAPSHOT stands for the snapshot object's schema.
#pragma once

namespace agentbox::mcp {

const char* SnapshotToolsJson();
const char* SnapshotSchemaJson();

}  // namespace agentbox::mcp
