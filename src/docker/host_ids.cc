#include "docker/host_ids.h"

#include <charconv>
#include <string_view>

#include "policy/image_user.h"
#include "spec/sandbox_spec.h"
#include "sys/file_util.h"

namespace agentbox::docker {
namespace {

constexpr std::string_view kRemapUser = "dockremap";

bool UsesUsernsRemap(const nlohmann::json& info) {
  const nlohmann::json* options =
      info.is_object() && info.contains("SecurityOptions") ? &info["SecurityOptions"] : nullptr;
  if (options == nullptr || !options->is_array()) return false;
  for (const auto& o : *options) {
    if (o.is_string() && o.get<std::string>().find("name=userns") != std::string::npos) {
      return true;
    }
  }
  return false;
}

// The first range of `user` in /etc/subuid text ("dockremap:165536:65536"): its start.
StatusOr<uint64_t> RangeStart(const std::string& text, const char* file) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view line(text.data() + pos, (end == std::string::npos ? text.size() : end) - pos);
    pos = end == std::string::npos ? text.size() : end + 1;
    if (line.substr(0, kRemapUser.size() + 1) != std::string(kRemapUser) + ":") continue;
    line.remove_prefix(kRemapUser.size() + 1);
    uint64_t start = 0;
    auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), start);
    if (ec == std::errc() && p != line.data()) return start;
  }
  return Unavailable(std::string("docker runs with userns-remap, but ") + file +
                     " has no range for " + std::string(kRemapUser) +
                     " (agentbox knows the ids of \"userns-remap\": \"default\" only)");
}

}  // namespace

StatusOr<ContainerIds> ContainerIdsFor(const nlohmann::json& info, const std::string& subuid,
                                       const std::string& subgid) {
  ContainerIds ids;
  if (!UsesUsernsRemap(info)) {
    ids.user = std::to_string(kDockerHostUserId) + ":" + std::to_string(kDockerHostUserId);
    ids.host_uid = kDockerHostUserId;
    ids.host_gid = kDockerHostUserId;
    return ids;
  }
  AB_ASSIGN_OR_RETURN(uint64_t uid_base, RangeStart(subuid, "/etc/subuid"));
  AB_ASSIGN_OR_RETURN(uint64_t gid_base, RangeStart(subgid, "/etc/subgid"));
  ids.user = std::to_string(kSandboxUid) + ":" + std::to_string(kSandboxGid);
  ids.host_uid = static_cast<uid_t>(uid_base + kSandboxUid);
  ids.host_gid = static_cast<gid_t>(gid_base + kSandboxGid);
  ids.userns_remap = true;
  return ids;
}

ContainerIds WithSandboxUser(const ContainerIds& ids, const SandboxUser& user) {
  if (!ids.userns_remap) return ids;
  ContainerIds out = ids;
  out.user = SandboxUserText(user);
  out.host_uid = ids.host_uid - kSandboxUid + user.uid;
  out.host_gid = ids.host_gid - kSandboxGid + user.gid;
  return out;
}

StatusOr<ContainerIds> AskContainerIds(EngineClient& client) {
  AB_ASSIGN_OR_RETURN(HttpResponse r, client.Call("GET", "/info"));
  if (r.status != 200) return Unavailable("docker: info: " + ErrorMessage(r));
  auto subuid = ReadFile("/etc/subuid");
  auto subgid = ReadFile("/etc/subgid");
  return ContainerIdsFor(nlohmann::json::parse(r.body, nullptr, false), subuid.ok() ? *subuid : "",
                         subgid.ok() ? *subgid : "");
}

}  // namespace agentbox::docker
