#include "image/image_import.h"

#include <sys/stat.h>
#include <unistd.h>

#include "base/json_limits.h"
#include "image/digest.h"
#include "sys/file_util.h"

namespace agentbox::image {
namespace {

uint64_t LayerBytes(const ImageStore& store, const std::string& diff_id) {
  auto text = ReadFile(store.dir() + "/layers/" + DigestHex(diff_id) + "/layer.json");
  if (!text.ok()) return 0;
  auto j = ParseJsonWithLimits(*text);
  return j.ok() && j->is_object() ? j->value("bytes", uint64_t{0}) : 0;
}

// Reads `fd` to its end, discarding: a streamed blob gets to finish, so that its digest is
// checked over every byte (a gzip stream may end before its blob does) and a corrupted download
// that the unpack refused is reported as the digest mismatch it is.
void Drain(int fd) {
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
  }
}

// Unpacks the blob into `root` and closes it. A streamed download's own failure wins: it
// explains a truncated or corrupted stream better than the unpack's complaint about it.
StatusOr<UnpackedLayer> UnpackBlob(LayerBlob blob, const std::string& root,
                                   const UnpackLimits& limits) {
  Status made = MakeDir(root, 0755);
  StatusOr<UnpackedLayer> unpacked =
      made.ok() ? UnpackLayer(blob.fd.get(), root, limits) : StatusOr<UnpackedLayer>(made);
  if (!blob.finish) return unpacked;
  if (unpacked.ok() || unpacked.status().code() == StatusCode::kInvalidArgument) {
    Drain(blob.fd.get());  // bounded by the descriptor's size and the download's stall timeout
  }
  blob.fd.reset();  // a writer still streaming (after a full disk, a ceiling) sees EPIPE
  AB_RETURN_IF_ERROR(blob.finish(unpacked.ok()));
  return unpacked;
}

Status UnpackOne(const ImageStore& store, const ImportRequest& req, const ImageConfig& config,
                 size_t i, const LayerOpener& open_layer) {
  const std::string& want = config.diff_ids[i];
  const std::string what = "layer " + std::to_string(i + 1) + " of " +
                           std::to_string(config.diff_ids.size()) + " (" + want.substr(0, 19) + ")";
  AB_ASSIGN_OR_RETURN(LayerBlob blob, open_layer(i));
  AB_ASSIGN_OR_RETURN(std::string tmp, store.MakeTempDir("layer"));
  auto unpacked = UnpackBlob(std::move(blob), tmp + "/root", req.limits);
  Status st = unpacked.ok() ? OkStatus() : unpacked.status();
  if (st.ok() && unpacked->diff_id != want) {
    st = InvalidArgument("digest mismatch: its content is " + unpacked->diff_id +
                         ", the image config says " + want);
  }
  if (st.ok()) st = store.CommitLayer(tmp, *unpacked);
  if (!st.ok()) {
    RemoveTree(tmp);
    return Status(st.code(), what + ": " + st.message());
  }
  return OkStatus();
}

}  // namespace

Platform HostPlatform() {
  Platform p;
#if defined(__x86_64__)
  p.architecture = "amd64";
#elif defined(__aarch64__)
  p.architecture = "arm64";
#else
  p.architecture = "unknown";
#endif
  return p;
}

Status VerifyBlob(int fd, const std::string& digest, uint64_t size, const std::string& what) {
  Sha256 hash;
  uint64_t total = 0;
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("read " + what);
    if (n == 0) break;
    hash.Update(buf, static_cast<size_t>(n));
    total += static_cast<uint64_t>(n);
  }
  std::string got = hash.Digest();
  if (got != digest || (size != 0 && total != size)) {
    return InvalidArgument(what + ": digest mismatch: its content is " + got + " (" +
                           std::to_string(total) + " bytes), expected " + digest);
  }
  if (::lseek(fd, 0, SEEK_SET) != 0) return ErrnoStatus("rewind " + what);
  return OkStatus();
}

StatusOr<ImageRecord> ImportImage(const ImageStore& store, const ImportRequest& req,
                                  const LayerOpener& open_layer) {
  AB_RETURN_IF_ERROR(CheckDigest(req.config_digest));
  if (Sha256Of(req.config_json) != req.config_digest) {
    return InvalidArgument("image config: digest mismatch: its content is " +
                           Sha256Of(req.config_json) + ", expected " + req.config_digest);
  }
  AB_ASSIGN_OR_RETURN(ImageConfig config, ParseImageConfig(req.config_json));
  if (config.diff_ids.size() != req.layer_count) {
    return InvalidArgument("the image config lists " + std::to_string(config.diff_ids.size()) +
                           " layers, its manifest " + std::to_string(req.layer_count));
  }
  Platform host = HostPlatform();
  if (config.platform.os != host.os || config.platform.architecture != host.architecture) {
    return InvalidArgument("the image is for " + PlatformString(config.platform) +
                           ", this host runs " + PlatformString(host));
  }
  AB_ASSIGN_OR_RETURN(StoreLock lock, store.LockShared());
  ImageRecord record;
  record.id = req.config_digest;
  record.manifest_digest = req.manifest_digest;
  record.source = req.source;
  for (size_t i = 0; i < config.diff_ids.size(); ++i) {
    if (!store.HasLayer(config.diff_ids[i])) {
      AB_RETURN_IF_ERROR(UnpackOne(store, req, config, i, open_layer));
    }
    record.size += LayerBytes(store, config.diff_ids[i]);
  }
  record.config = std::move(config);
  AB_RETURN_IF_ERROR(store.AddImage(record, req.names));
  record.names = req.names;
  return record;
}

}  // namespace agentbox::image
