#include "image/oci_json.h"

#include "base/json_limits.h"
#include "image/digest.h"

namespace agentbox::image {
namespace {

using Json = nlohmann::json;

StatusOr<Json> ParseDocument(std::string_view body, const char* what) {
  if (body.size() > kMaxJsonBlobBytes) {
    return InvalidArgument(std::string(what) + " larger than 4 MiB");
  }
  auto j = ParseJsonWithLimits(body);
  if (!j.ok() || !j->is_object()) {
    return InvalidArgument(std::string(what) + " is not a JSON object");
  }
  return j;
}

std::string StringField(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::vector<std::string> StringList(const Json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const Json& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

StatusOr<Descriptor> ParseDescriptor(const Json& j, const std::string& where) {
  if (!j.is_object()) return InvalidArgument(where + " is not an object");
  Descriptor d;
  d.media_type = StringField(j, "mediaType");
  d.digest = StringField(j, "digest");
  if (Status st = CheckDigest(d.digest); !st.ok())
    return InvalidArgument(where + ": " + st.message());
  auto size = j.find("size");
  if (size == j.end() || !size->is_number_unsigned()) {
    return InvalidArgument(where + ": no size");
  }
  d.size = size->get<uint64_t>();
  auto platform = j.find("platform");
  if (platform != j.end() && platform->is_object()) {
    d.has_platform = true;
    d.platform.os = StringField(*platform, "os");
    d.platform.architecture = StringField(*platform, "architecture");
    d.platform.variant = StringField(*platform, "variant");
  }
  return d;
}

bool SamePlatform(const Platform& have, const Platform& want) {
  if (have.os != want.os || have.architecture != want.architecture) return false;
  return want.variant.empty() || have.variant == want.variant;
}

}  // namespace

StatusOr<Platform> ParsePlatform(std::string_view text) {
  Platform p;
  size_t a = text.find('/');
  if (a == std::string_view::npos || a == 0) {
    return InvalidArgument("--platform: expected OS/ARCH[/VARIANT] such as linux/amd64");
  }
  p.os = std::string(text.substr(0, a));
  std::string_view rest = text.substr(a + 1);
  size_t b = rest.find('/');
  p.architecture = std::string(rest.substr(0, b));
  if (b != std::string_view::npos) p.variant = std::string(rest.substr(b + 1));
  if (p.architecture.empty() || (b != std::string_view::npos && p.variant.empty())) {
    return InvalidArgument("--platform: expected OS/ARCH[/VARIANT] such as linux/amd64");
  }
  return p;
}

std::string PlatformString(const Platform& p) {
  return p.os + "/" + p.architecture + (p.variant.empty() ? "" : "/" + p.variant);
}

StatusOr<DocumentKind> ClassifyDocument(std::string_view body, std::string_view content_type) {
  AB_ASSIGN_OR_RETURN(Json j, ParseDocument(body, "manifest"));
  std::string type = StringField(j, "mediaType");
  if (type.empty()) type = std::string(content_type.substr(0, content_type.find(';')));
  if (type.empty() && j.contains("manifests")) type = std::string(kOciIndex);
  if (type.empty() && j.contains("layers")) type = std::string(kOciManifest);
  if (type == kOciIndex || type == kDockerList) return DocumentKind::kIndex;
  if (type == kOciManifest || type == kDockerManifest) return DocumentKind::kManifest;
  if (j.contains("schemaVersion") && j["schemaVersion"] == 1) {
    return InvalidArgument("docker schema 1 manifests are not supported (re-push the image)");
  }
  return InvalidArgument("unknown manifest media type \"" + type.substr(0, 100) + "\"");
}

StatusOr<std::vector<Descriptor>> ParseIndex(std::string_view body) {
  AB_ASSIGN_OR_RETURN(Json j, ParseDocument(body, "image index"));
  auto list = j.find("manifests");
  if (list == j.end() || !list->is_array()) return InvalidArgument("image index: no manifests");
  std::vector<Descriptor> out;
  for (size_t i = 0; i < list->size(); ++i) {
    AB_ASSIGN_OR_RETURN(Descriptor d, ParseDescriptor((*list)[i], "image index: manifests[" +
                                                                      std::to_string(i) + "]"));
    out.push_back(std::move(d));
  }
  return out;
}

StatusOr<Manifest> ParseManifest(std::string_view body) {
  AB_ASSIGN_OR_RETURN(Json j, ParseDocument(body, "image manifest"));
  Manifest m;
  auto config = j.find("config");
  if (config == j.end()) return InvalidArgument("image manifest: no config");
  AB_ASSIGN_OR_RETURN(m.config, ParseDescriptor(*config, "image manifest: config"));
  auto layers = j.find("layers");
  if (layers == j.end() || !layers->is_array()) return InvalidArgument("image manifest: no layers");
  for (size_t i = 0; i < layers->size(); ++i) {
    std::string where = "image manifest: layers[" + std::to_string(i) + "]";
    AB_ASSIGN_OR_RETURN(Descriptor d, ParseDescriptor((*layers)[i], where));
    if (!IsLayerMediaType(d.media_type)) {
      return InvalidArgument(where + ": unsupported layer type \"" + d.media_type.substr(0, 100) +
                             "\"");
    }
    m.layers.push_back(std::move(d));
  }
  return m;
}

StatusOr<ImageConfig> ParseImageConfig(std::string_view body) {
  AB_ASSIGN_OR_RETURN(Json j, ParseDocument(body, "image config"));
  ImageConfig c;
  c.platform.os = StringField(j, "os");
  c.platform.architecture = StringField(j, "architecture");
  c.platform.variant = StringField(j, "variant");
  c.created = StringField(j, "created");
  auto cfg = j.find("config");
  if (cfg != j.end() && cfg->is_object()) {
    c.env = StringList(*cfg, "Env");
    c.working_dir = StringField(*cfg, "WorkingDir");
    c.user = StringField(*cfg, "User");
    c.entrypoint = StringList(*cfg, "Entrypoint");
    c.cmd = StringList(*cfg, "Cmd");
  }
  auto rootfs = j.find("rootfs");
  if (rootfs == j.end() || !rootfs->is_object()) return InvalidArgument("image config: no rootfs");
  c.diff_ids = StringList(*rootfs, "diff_ids");
  for (const std::string& id : c.diff_ids) {
    if (Status st = CheckDigest(id); !st.ok()) {
      return InvalidArgument("image config: rootfs.diff_ids: " + st.message());
    }
  }
  return c;
}

StatusOr<Descriptor> SelectPlatform(const std::vector<Descriptor>& index, const Platform& want) {
  std::string have;
  for (const Descriptor& d : index) {
    if (d.has_platform && SamePlatform(d.platform, want)) return d;
    if (d.has_platform && d.platform.os != "unknown") {
      have += (have.empty() ? "" : ", ") + PlatformString(d.platform);
    }
  }
  return NotFound("no " + PlatformString(want) +
                  " image in the index (it has: " + (have.empty() ? "nothing" : have) + ")");
}

bool IsLayerMediaType(std::string_view t) {
  return t == "application/vnd.oci.image.layer.v1.tar" ||
         t == "application/vnd.oci.image.layer.v1.tar+gzip" ||
         t == "application/vnd.oci.image.layer.v1.tar+zstd" ||
         t == "application/vnd.docker.image.rootfs.diff.tar.gzip" ||
         t == "application/vnd.docker.image.rootfs.diff.tar";
}

}  // namespace agentbox::image
