#include "http/openapi_schemas.h"

namespace agentbox {

using json = nlohmann::json;

json SnapshotSchema() {
  json str = {{"type", "string"}};
  return {{"type", "object"},
          {"description", "a snapshot of a sandbox's workspace (`agentbox snapshot`)"},
          {"properties",
           {{"id", str},
            {"name", str},
            {"sandbox", str},
            {"created_at", str},
            {"workspace_digest",
             {{"type", "string"},
              {"nullable", true},
              {"description", "the session log's digest of what it holds"}}}}}};
}

json NameOnlySchema(const char* what) {
  return {{"type", "object"},
          {"additionalProperties", false},
          {"properties", {{"name", {{"type", "string"}, {"description", what}}}}}};
}

json RestoredSchema() {
  json integer = {{"type", "integer"}};
  return {{"type", "object"},
          {"properties",
           {{"restored", {{"type", "string"}, {"description", "the snapshot's id"}}},
            {"sandbox", {{"type", "string"}}},
            {"kept", integer},
            {"copied", integer},
            {"removed", integer}}}};
}

json WorkspaceDiffSchema() {
  json str = {{"type", "string"}};
  json integer = {{"type", "integer"}};
  json change = {{"type", "object"},
                 {"properties",
                  {{"path", str},
                   {"change", {{"type", "string"}, {"enum", {"created", "modified", "deleted"}}}},
                   {"type", str},
                   {"size_delta", integer}}}};
  return {{"type", "object"},
          {"properties",
           {{"changes", {{"type", "array"}, {"items", change}}},
            {"created", integer},
            {"modified", integer},
            {"deleted", integer},
            {"truncated", {{"type", "boolean"}}}}}};
}

}  // namespace agentbox
