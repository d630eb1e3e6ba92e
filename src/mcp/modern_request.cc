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

std::optional<json> ModernEnvelopeError(const json& id, const json& params) {
  auto invalid = [&id](const std::string& what) -> std::optional<json> {
    return MakeError(id, kInvalidParams, "Invalid params: " + what);
  };
  const json* meta = Meta(params);
  if (!meta) {
    return invalid(std::string("a request carries _meta with ") + kMetaProtocolVersion + " and " +
                   kMetaClientCapabilities + " (protocol revision 2026-07-28)");
  }
  auto version = meta->find(kMetaProtocolVersion);
  if (version == meta->end() || !version->is_string()) {
    return invalid(std::string("_meta[\"") + kMetaProtocolVersion + "\"] must be a string");
  }
  auto capabilities = meta->find(kMetaClientCapabilities);
  if (capabilities == meta->end() || !capabilities->is_object()) {
    return invalid(std::string("_meta[\"") + kMetaClientCapabilities +
                   "\"] must be an object (an empty one declares no capability)");
  }
  auto level = meta->find(kMetaLogLevel);
  if (level != meta->end() && (!level->is_string() || !LogLevelRank(level->get<std::string>()))) {
    return invalid(std::string("_meta[\"") + kMetaLogLevel +
                   "\"] must be a log level such as \"info\"");
  }
  return std::nullopt;
}

std::optional<ModernRequest> ReadModernRequest(const json& id, const json& params, json* error) {
  if (auto invalid = ModernEnvelopeError(id, params)) {
    *error = std::move(*invalid);
    return std::nullopt;
  }
  const json& meta = *Meta(params);
  ModernRequest out;
  out.version = meta[kMetaProtocolVersion].get<std::string>();
  if (!IsModernProtocolVersion(out.version)) {
    *error = UnsupportedVersion(id, out.version);
    return std::nullopt;
  }
  out.capabilities = meta[kMetaClientCapabilities];
  auto extensions = out.capabilities.find("extensions");
  out.tasks = extensions != out.capabilities.end() && extensions->is_object() &&
              extensions->contains(kTasksExtension);
  if (meta.contains(kMetaLogLevel)) out.log_level = meta[kMetaLogLevel].get<std::string>();
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
