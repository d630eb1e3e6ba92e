#include "mcp/modern_request.h"

#include "mcp/jsonrpc.h"
#include "mcp/protocol.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

const json* Meta(const json& params) {
  auto meta = params.find("_meta");
  return meta != params.end() && meta->is_object() ? &*meta : nullptr;
}

json UnsupportedVersion(const json& id, const std::string& requested) {
  // Only the versions a modern request may name: a legacy one is reached through initialize.
  return MakeError(id, kUnsupportedProtocolVersion, "Unsupported protocol version",
                   {{"supported", json::array({kModernVersion})}, {"requested", requested}});
}

}  // namespace

bool IsModernRequest(std::string_view method, const json& params) {
  if (method == "server/discover") return true;
  const json* meta = Meta(params);
  return meta && meta->contains(kMetaProtocolVersion);
}

std::optional<ModernRequest> ReadModernRequest(const json& id, const json& params, json* error) {
  const json* meta = Meta(params);
  auto version = meta ? meta->find(kMetaProtocolVersion) : json::const_iterator();
  if (!meta || version == meta->end() || !version->is_string() ||
      !IsModernProtocolVersion(version->get<std::string>())) {
    const bool named = meta && version != meta->end() && version->is_string();
    *error = UnsupportedVersion(id, named ? version->get<std::string>() : "");
    return std::nullopt;
  }
  ModernRequest out;
  out.version = version->get<std::string>();
  auto capabilities = meta->find(kMetaClientCapabilities);
  if (capabilities == meta->end() || !capabilities->is_object()) {
    *error = MakeError(id, kInvalidParams,
                       std::string("Invalid params: _meta[\"") + kMetaClientCapabilities +
                           "\"] must be an object (an empty one declares no capability)");
    return std::nullopt;
  }
  out.capabilities = *capabilities;
  auto extensions = capabilities->find("extensions");
  out.tasks = extensions != capabilities->end() && extensions->is_object() &&
              extensions->contains(kTasksExtension);
  auto level = meta->find(kMetaLogLevel);
  if (level != meta->end()) {
    if (!level->is_string() || !LogLevelRank(level->get<std::string>())) {
      *error = MakeError(id, kInvalidParams,
                         std::string("Invalid params: _meta[\"") + kMetaLogLevel +
                             "\"] must be a log level such as \"info\"");
      return std::nullopt;
    }
    out.log_level = level->get<std::string>();
  }
  return out;
}

json MissingTasksCapability(const json& id, std::string_view method) {
  return MakeError(
      id, kMissingRequiredClientCapability,
      "Missing required client capability: " + std::string(method) + " needs the " +
          kTasksExtension + " extension in clientCapabilities",
      {{"requiredCapabilities", {{"extensions", {{kTasksExtension, json::object()}}}}}});
}

json ModernResult(json result, const std::string& server_version) {
  if (!result.contains("resultType")) result["resultType"] = "complete";
  result["_meta"][kMetaServerInfo] = {{"name", "agentbox"}, {"version", server_version}};
  return result;
}

void AddCacheHints(json* result, long ttl_ms, bool is_public) {
  (*result)["ttlMs"] = ttl_ms;
  (*result)["cacheScope"] = is_public ? "public" : "private";
}

}  // namespace agentbox::mcp
