#include "docker/runtimes.h"

namespace agentbox::docker {

bool IsGvisorRuntime(const nlohmann::json& info, const std::string& runtime) {
  if (runtime.empty()) return false;
  if (runtime == "runsc") return true;
  const nlohmann::json* runtimes =
      info.is_object() && info.contains("Runtimes") ? &info["Runtimes"] : nullptr;
  if (runtimes == nullptr || !runtimes->is_object() || !runtimes->contains(runtime)) return false;
  const nlohmann::json& entry = (*runtimes)[runtime];
  std::string path = entry.is_object() ? entry.value("path", std::string()) : std::string();
  std::string base = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  return base.rfind("runsc", 0) == 0;
}

StatusOr<bool> RuntimeIsGvisor(EngineClient& client, const std::string& runtime) {
  if (runtime.empty()) return false;
  if (runtime == "runsc") return true;
  AB_ASSIGN_OR_RETURN(HttpResponse r, client.Call("GET", "/info"));
  if (r.status != 200) return Unavailable("docker: info: " + ErrorMessage(r));
  return IsGvisorRuntime(nlohmann::json::parse(r.body, nullptr, false), runtime);
}

Status GvisorWorkspaceOwnerError(const std::string& workspace, uid_t owner_uid, gid_t owner_gid,
                                 uid_t sandbox_uid, gid_t sandbox_gid) {
  auto ids = [](uid_t u, gid_t g) { return std::to_string(u) + ":" + std::to_string(g); };
  return InvalidArgument("workspace " + workspace + " is owned by " + ids(owner_uid, owner_gid) +
                         "; under gVisor (--runtime runsc) it must be owned by " +
                         ids(sandbox_uid, sandbox_gid) +
                         ", the sandbox user (runsc cannot use the idmapped mount that maps "
                         "other owners): give a directory owned by " +
                         ids(sandbox_uid, sandbox_gid) + ", or no --workspace");
}

}  // namespace agentbox::docker
