#include "registry/pull.h"

#include <fcntl.h>
#include <unistd.h>

#include "image/image_import.h"
#include "sys/file_util.h"

namespace agentbox::registry {
namespace {

Status WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoStatus("write a downloaded layer");
    data.remove_prefix(static_cast<size_t>(n));
  }
  return OkStatus();
}

}  // namespace

StatusOr<image::ImageRecord> Pull(const image::ImageStore& store, const PullRequest& req) {
  AB_ASSIGN_OR_RETURN(image::ImageRef ref, image::ParseImageRef(req.ref));
  AB_ASSIGN_OR_RETURN(RegistryClient client, RegistryClient::Connect(ref, req.registry));
  AB_ASSIGN_OR_RETURN(FetchedManifest top,
                      client.GetManifest(ref.digest.empty() ? ref.tag : ref.digest));
  AB_ASSIGN_OR_RETURN(image::DocumentKind kind, image::ClassifyDocument(top.body, top.media_type));
  FetchedManifest chosen = top;
  if (kind == image::DocumentKind::kIndex) {
    AB_ASSIGN_OR_RETURN(std::vector<image::Descriptor> index, image::ParseIndex(top.body));
    AB_ASSIGN_OR_RETURN(image::Descriptor d, image::SelectPlatform(index, req.platform));
    AB_ASSIGN_OR_RETURN(chosen, client.GetManifest(d.digest));
  }
  AB_ASSIGN_OR_RETURN(image::Manifest m, image::ParseManifest(chosen.body));
  image::ImportRequest ir;
  AB_ASSIGN_OR_RETURN(ir.config_json, client.GetSmallBlob(m.config));
  ir.config_digest = m.config.digest;
  ir.manifest_digest = chosen.digest;
  ir.layer_count = m.layers.size();
  ir.names = {ref.Canonical()};
  ir.source = "pull " + ref.Familiar();
  ir.limits = req.limits;
  AB_ASSIGN_OR_RETURN(std::string tmp, store.MakeTempDir("pull"));
  auto record = image::ImportImage(store, ir, [&](size_t i) -> StatusOr<UniqueFd> {
    std::string path = tmp + "/" + std::to_string(i);
    AB_ASSIGN_OR_RETURN(UniqueFd fd, OpenFile(path, O_RDWR | O_CREAT | O_EXCL, 0600));
    ::unlink(path.c_str());  // gone with the fd
    AB_RETURN_IF_ERROR(client.GetBlob(
        m.layers[i], [&fd](std::string_view piece) { return WriteAll(fd.get(), piece); }));
    if (::lseek(fd.get(), 0, SEEK_SET) != 0) return ErrnoStatus("rewind " + path);
    return fd;
  });
  RemoveTree(tmp);
  return record;
}

}  // namespace agentbox::registry
