#include "image/image_load.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "base/json_limits.h"
#include "image/digest.h"
#include "image/image_import.h"
#include "image/image_ref.h"
#include "sys/file_util.h"
#include "sys/syscalls.h"

namespace agentbox::image {
namespace {

using Json = nlohmann::json;

// An archive (tar, compressed or not) of a docker save is at most this much uncompressed.
constexpr uint64_t kMaxArchiveBytes = 256ull << 30;

StatusOr<UniqueFd> OpenBeneath(int dir, const std::string& rel) {
  UniqueFd fd(sys::Openat2(dir, rel.c_str(), O_RDONLY | O_CLOEXEC,
                           RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS));
  if (!fd.valid()) {
    if (errno == EXDEV || errno == ELOOP) {
      return InvalidArgument("\"" + rel + "\" lies outside the archive");
    }
    return ErrnoStatus("open " + rel + " in the archive");
  }
  return fd;
}

StatusOr<std::string> ReadBeneath(int dir, const std::string& rel) {
  AB_ASSIGN_OR_RETURN(UniqueFd fd, OpenBeneath(dir, rel));
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof(buf));
    if (n < 0) return ErrnoStatus("read " + rel);
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > kMaxJsonBlobBytes) return InvalidArgument(rel + ": larger than 4 MiB");
  }
  return out;
}

std::string BlobPath(const std::string& digest) { return "blobs/sha256/" + DigestHex(digest); }

StatusOr<std::string> ReadVerifiedBlob(int dir, const Descriptor& d, const std::string& what) {
  AB_ASSIGN_OR_RETURN(std::string text, ReadBeneath(dir, BlobPath(d.digest)));
  if (Sha256Of(text) != d.digest) {
    return InvalidArgument(what + ": digest mismatch: its content is " + Sha256Of(text) +
                           ", expected " + d.digest);
  }
  return text;
}

std::vector<std::string> NamesFor(const std::vector<std::string>& given) {
  std::vector<std::string> out;
  for (const std::string& name : given) {
    auto ref = ParseImageRef(name);
    if (ref.ok() && !ref->tag.empty()) out.push_back(ref->Canonical());
  }
  return out;
}

StatusOr<ImageRecord> ImportOciManifest(const ImageStore& store, int dir, Descriptor manifest,
                                        std::vector<std::string> names, const LoadRequest& req) {
  AB_ASSIGN_OR_RETURN(std::string body, ReadVerifiedBlob(dir, manifest, "manifest"));
  AB_ASSIGN_OR_RETURN(DocumentKind kind, ClassifyDocument(body, manifest.media_type));
  if (kind == DocumentKind::kIndex) {
    AB_ASSIGN_OR_RETURN(std::vector<Descriptor> index, ParseIndex(body));
    AB_ASSIGN_OR_RETURN(manifest, SelectPlatform(index, HostPlatform()));
    AB_ASSIGN_OR_RETURN(body, ReadVerifiedBlob(dir, manifest, "manifest"));
  }
  AB_ASSIGN_OR_RETURN(Manifest m, ParseManifest(body));
  ImportRequest ir;
  AB_ASSIGN_OR_RETURN(ir.config_json, ReadBeneath(dir, BlobPath(m.config.digest)));
  ir.config_digest = m.config.digest;
  ir.manifest_digest = manifest.digest;
  ir.layer_count = m.layers.size();
  ir.names = std::move(names);
  ir.source = req.source;
  ir.limits = req.limits;
  return ImportImage(store, ir, [&](size_t i) -> StatusOr<LayerBlob> {
    AB_ASSIGN_OR_RETURN(UniqueFd fd, OpenBeneath(dir, BlobPath(m.layers[i].digest)));
    AB_RETURN_IF_ERROR(VerifyBlob(fd.get(), m.layers[i].digest, m.layers[i].size,
                                  "layer " + std::to_string(i + 1)));
    return LayerBlob{std::move(fd), {}};
  });
}

StatusOr<std::vector<ImageRecord>> LoadOciLayout(const ImageStore& store, int dir,
                                                 const LoadRequest& req) {
  AB_ASSIGN_OR_RETURN(std::string text, ReadBeneath(dir, "index.json"));
  AB_ASSIGN_OR_RETURN(std::vector<Descriptor> entries, ParseIndex(text));
  auto j = ParseJsonWithLimits(text);
  std::vector<ImageRecord> out;
  for (size_t i = 0; i < entries.size(); ++i) {
    // docker's and containerd's full name first; OCI's ref.name is often a bare tag
    // ("latest"), which names nothing without its repository, so only a full one is taken.
    std::vector<std::string> names;
    auto annotation = [&](const char* key) -> std::string {
      const Json& a = (*j)["manifests"][i]["annotations"];
      if (!a.is_object() || !a.contains(key) || !a[key].is_string()) return "";
      return a[key].get<std::string>();
    };
    std::string full = annotation("io.containerd.image.name");
    std::string ref_name = annotation("org.opencontainers.image.ref.name");
    if (full.empty() && ref_name.find_first_of("/:") != std::string::npos) full = ref_name;
    if (!full.empty()) names.push_back(full);
    if (!req.tag.empty()) names = {req.tag};
    AB_ASSIGN_OR_RETURN(ImageRecord r,
                        ImportOciManifest(store, dir, entries[i], NamesFor(names), req));
    out.push_back(std::move(r));
  }
  return out;
}

StatusOr<std::vector<ImageRecord>> LoadDockerSave(const ImageStore& store, int dir,
                                                  const LoadRequest& req) {
  AB_ASSIGN_OR_RETURN(std::string text, ReadBeneath(dir, "manifest.json"));
  auto j = ParseJsonWithLimits(text);
  if (!j.ok() || !j->is_array()) return InvalidArgument("manifest.json is not a JSON array");
  std::vector<ImageRecord> out;
  for (const Json& entry : *j) {
    if (!entry.is_object() || !entry.contains("Config") || !entry["Config"].is_string() ||
        !entry.contains("Layers") || !entry["Layers"].is_array()) {
      return InvalidArgument("manifest.json: an entry without Config and Layers");
    }
    const std::string config_path = entry["Config"].get<std::string>();
    std::vector<std::string> layers;
    for (const Json& l : entry["Layers"]) {
      if (!l.is_string()) return InvalidArgument("manifest.json: a layer that is not a path");
      layers.push_back(l.get<std::string>());
    }
    ImportRequest ir;
    AB_ASSIGN_OR_RETURN(ir.config_json, ReadBeneath(dir, config_path));
    // Docker names the config by its digest: "<hex>.json" or "blobs/sha256/<hex>".
    std::string base = config_path.substr(config_path.rfind('/') + 1);
    if (base.ends_with(".json")) base.resize(base.size() - 5);
    ir.config_digest = "sha256:" + base;
    ir.layer_count = layers.size();
    std::vector<std::string> tags = {req.tag};
    if (req.tag.empty()) {
      tags.clear();
      const Json& repo_tags = entry.contains("RepoTags") ? entry["RepoTags"] : Json::array();
      for (const Json& t : repo_tags.is_array() ? repo_tags : Json::array()) {
        if (t.is_string()) tags.push_back(t.get<std::string>());
      }
    }
    ir.names = NamesFor(tags);
    ir.source = req.source;
    ir.limits = req.limits;
    auto open_layer = [&](size_t i) -> StatusOr<LayerBlob> {
      AB_ASSIGN_OR_RETURN(UniqueFd fd, OpenBeneath(dir, layers[i]));
      return LayerBlob{std::move(fd), {}};
    };
    AB_ASSIGN_OR_RETURN(ImageRecord r, ImportImage(store, ir, open_layer));
    out.push_back(std::move(r));
  }
  return out;
}

StatusOr<std::vector<ImageRecord>> LoadDirectory(const ImageStore& store, const std::string& path,
                                                 const LoadRequest& req) {
  UniqueFd dir(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return ErrnoStatus("open " + path);
  struct stat st;
  bool oci = ::fstatat(dir.get(), "oci-layout", &st, 0) == 0 &&
             ::fstatat(dir.get(), "index.json", &st, 0) == 0;
  if (!oci && ::fstatat(dir.get(), "manifest.json", &st, 0) != 0) {
    return InvalidArgument(req.path +
                           ": neither an OCI image layout (oci-layout, index.json) "
                           "nor a docker save archive (manifest.json)");
  }
  auto loaded = oci ? LoadOciLayout(store, dir.get(), req) : LoadDockerSave(store, dir.get(), req);
  if (loaded.ok() && loaded->size() > 1 && !req.tag.empty()) {
    return InvalidArgument("--tag names one image; " + req.path + " holds " +
                           std::to_string(loaded->size()));
  }
  return loaded;
}

}  // namespace

StatusOr<std::vector<ImageRecord>> LoadImageArchive(const ImageStore& store, int fd,
                                                    const LoadRequest& in) {
  LoadRequest req = in;
  if (req.source.empty()) req.source = "load " + req.path;
  AB_ASSIGN_OR_RETURN(std::string tmp, store.MakeTempDir("load"));
  UnpackLimits outer;
  outer.max_bytes = kMaxArchiveBytes;
  auto unpacked = UnpackLayer(fd, tmp, outer);
  StatusOr<std::vector<ImageRecord>> loaded =
      unpacked.ok() ? LoadDirectory(store, tmp, req)
                    : StatusOr<std::vector<ImageRecord>>(Status(
                          unpacked.status().code(), req.path + ": " + unpacked.status().message()));
  RemoveTree(tmp);
  return loaded;
}

StatusOr<std::vector<ImageRecord>> LoadImages(const ImageStore& store, const LoadRequest& in) {
  LoadRequest req = in;
  if (req.source.empty()) req.source = "load " + req.path;
  struct stat st;
  if (::stat(req.path.c_str(), &st) != 0) return ErrnoStatus(req.path);
  if (S_ISDIR(st.st_mode)) return LoadDirectory(store, req.path, req);
  AB_ASSIGN_OR_RETURN(UniqueFd file, OpenFile(req.path, O_RDONLY));
  return LoadImageArchive(store, file.get(), req);
}

}  // namespace agentbox::image
