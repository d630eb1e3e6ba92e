#include "docker/daemon_image_user.h"

#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "policy/image_user.h"

namespace agentbox::docker {
namespace {

// More than any passwd or group file an image ships; the rest is not read.
constexpr size_t kMaxFileBytes = 4u << 20;

struct ArchiveReadFree {
  void operator()(struct archive* a) const { archive_read_free(a); }
};

// The content of the first regular file in the tar `tar` (what GET .../archive of one file
// returns); "" when there is none (a symlink: the user lookup then fails with its clear error).
std::string FirstFileOf(const std::string& tar) {
  std::unique_ptr<struct archive, ArchiveReadFree> a(archive_read_new());
  if (archive_read_support_format_tar(a.get()) != ARCHIVE_OK ||
      archive_read_open_memory(a.get(), tar.data(), tar.size()) != ARCHIVE_OK) {
    return "";
  }
  struct archive_entry* entry = nullptr;
  if (archive_read_next_header(a.get(), &entry) != ARCHIVE_OK ||
      archive_entry_filetype(entry) != AE_IFREG) {
    return "";
  }
  std::string data;
  char buf[16384];
  la_ssize_t n;
  while (data.size() < kMaxFileBytes && (n = archive_read_data(a.get(), buf, sizeof(buf))) > 0) {
    data.append(buf, static_cast<size_t>(n));
  }
  return data;
}

// The image's `path` through the stopped container `name`; "" when the image has none.
StatusOr<std::string> ReadImageFile(EngineClient& client, const std::string& name,
                                    const std::string& path) {
  AB_ASSIGN_OR_RETURN(HttpResponse r, client.Call("GET", "/containers/" + name +
                                                             "/archive?path=" + UrlEncode(path)));
  if (r.status == 404) return std::string();
  if (r.status != 200) return Unavailable("docker: read " + path + ": " + ErrorMessage(r));
  return FirstFileOf(r.body);
}

struct ImageFiles {
  std::string passwd, group;
};

StatusOr<ImageFiles> ReadUserFiles(EngineClient& client, const std::string& image,
                                   const std::string& name) {
  nlohmann::json body = {{"Image", image},
                         {"Entrypoint", {"/nonexistent"}},
                         {"NetworkDisabled", true},
                         {"HostConfig", {{"NetworkMode", "none"}, {"CapDrop", {"ALL"}}}}};
  AB_ASSIGN_OR_RETURN(HttpResponse created,
                      client.Call("POST", "/containers/create?name=" + name, body.dump()));
  if (created.status != 201) {
    return Unavailable("docker: read the image's users: " + ErrorMessage(created));
  }
  ImageFiles files;
  StatusOr<std::string> passwd = ReadImageFile(client, name, "/etc/passwd");
  StatusOr<std::string> group =
      passwd.ok() ? ReadImageFile(client, name, "/etc/group") : passwd.status();
  (void)client.Call("DELETE", "/containers/" + name + "?force=1&v=1");
  if (!group.ok()) return group.status();
  files.passwd = std::move(*passwd);
  files.group = std::move(*group);
  return files;
}

}  // namespace

StatusOr<SandboxUser> ResolveDaemonImageUser(EngineClient& client, const std::string& image,
                                             const std::string& scratch_name) {
  AB_ASSIGN_OR_RETURN(HttpResponse r, client.Call("GET", "/images/" + UrlEncode(image) + "/json"));
  if (r.status != 200) return Unavailable("docker: image " + image + ": " + ErrorMessage(r));
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  std::string user;
  if (j.is_object() && j.contains("Config") && j["Config"].is_object() &&
      j["Config"].contains("User") && j["Config"]["User"].is_string()) {
    user = j["Config"]["User"].get<std::string>();
  }
  if (!ImageUserNeedsLookup(user)) return ResolveImageUser(user, "", "");
  AB_ASSIGN_OR_RETURN(ImageFiles files, ReadUserFiles(client, image, scratch_name));
  return ResolveImageUser(user, files.passwd, files.group);
}

}  // namespace agentbox::docker
