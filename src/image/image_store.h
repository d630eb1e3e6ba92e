// ImageStore: the OCI images the native backend can use, under <state>/images/.
//
// Layout (every directory 0700, root's):
//   layers/<hex>/root/     one layer, unpacked once (image/layer_unpack.h), keyed by its diff_id;
//                          read-only by convention: only gc removes it, nothing writes it again
//   layers/<hex>/layer.json  its size and entry count
//   images/<hex>.json      one image, keyed by its config digest (the image id): its layers,
//                          Env, WorkingDir, User, where it came from
//   images/<hex>.lock      flock'd shared by every `run` using the image, for its whole run
//   names.json             canonical name ("docker.io/library/busybox:latest") -> image id
//   lower/<hex>/0, 1, ...  short symlinks to an image's layers, for overlay's lowerdir option
//   tmp/                   layers and blobs being written; renamed into place when complete
//   store.lock             shared by pulls and loads while they add, exclusive for rm and gc
// A layer appears under layers/ by one rename of a complete, synced directory, so a full disk
// or a crash mid-unpack never leaves a layer that looks usable; gc removes tmp/ leftovers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "image/layer_unpack.h"
#include "image/oci_json.h"
#include "sys/unique_fd.h"

namespace agentbox::image {

struct ImageRecord {
  std::string id;                  // the config's digest
  std::string manifest_digest;     // "" when loaded from a docker save archive (it has none)
  ImageConfig config;              // config.diff_ids are the layers, bottom first
  std::vector<std::string> names;  // canonical names pointing at it (from names.json)
  uint64_t size = 0;               // uncompressed bytes of its layers
  std::string source;              // "pull localhost:5000/x:1", "load /tmp/x.tar", ...
  std::string added_at;            // RFC 3339
};

// An flock held for as long as the object lives.
class StoreLock {
 public:
  StoreLock() = default;
  explicit StoreLock(UniqueFd fd) : fd_(std::move(fd)) {}
  bool held() const { return fd_.valid(); }

 private:
  UniqueFd fd_;
};

class ImageStore {
 public:
  // Opens (creating) <state_root>/images. kUnavailable when not root: whiteouts and layer
  // ownership need the host's root.
  static StatusOr<ImageStore> Open(const std::string& state_root);

  const std::string& dir() const { return dir_; }

  // A name (normalised as image/image_ref.h), an id ("sha256:<hex>") or a unique prefix of at
  // least 4 hex digits of one. kNotFound with what to do.
  StatusOr<ImageRecord> Resolve(std::string_view ref) const;
  StatusOr<std::vector<ImageRecord>> List() const;

  bool HasLayer(std::string_view diff_id) const;
  std::string LayerRoot(std::string_view diff_id) const;
  // A fresh directory under tmp/ (removed by gc when left behind).
  StatusOr<std::string> MakeTempDir(std::string_view kind) const;
  // Renames a completely unpacked, synced layer into layers/ (a layer someone else committed
  // meanwhile wins; `tmp_dir` is then removed).
  Status CommitLayer(const std::string& tmp_dir, const UnpackedLayer& layer) const;

  // Writes the image's record and points `names` at it (each moved off any image it named).
  Status AddImage(const ImageRecord& record, const std::vector<std::string>& names) const;
  // Removes `name` (canonical) from names.json; with `remove_record` also the image's record
  // once no name is left. kUnavailable when a run holds it (its lock).
  Status Untag(const ImageRecord& record, const std::string& name) const;
  Status RemoveImage(const ImageRecord& record) const;

  // Removes layers no image names, tmp/ leftovers and stale lower/ dirs; one line each.
  StatusOr<std::vector<std::string>> CollectGarbage() const;

  // Locks. Shared while adding (pull, load), exclusive (non-blocking) for rm and gc.
  StatusOr<StoreLock> LockShared() const;
  StatusOr<StoreLock> TryLockExclusive() const;
  // Held shared by a sandbox using the image; rm tries it exclusively.
  StatusOr<StoreLock> LockImageShared(std::string_view id) const;
  StatusOr<StoreLock> TryLockImageExclusive(std::string_view id) const;

  // lower/<hex>: symlinks "0" (the top layer) .. "N-1" (the bottom one) and "s" (agentbox's
  // scaffold: empty /proc, /dev, /tmp, /workspace mount points and the sandbox's
  // /etc/resolv.conf over the image's), made once per image.
  StatusOr<std::string> LowerDir(const ImageRecord& record) const;

 private:
  explicit ImageStore(std::string dir) : dir_(std::move(dir)) {}
  StatusOr<std::vector<std::pair<std::string, std::string>>> ReadNames() const;
  Status WriteNames(const std::vector<std::pair<std::string, std::string>>& names) const;
  StatusOr<ImageRecord> ReadRecord(const std::string& hex) const;
  StatusOr<StoreLock> Lock(const std::string& path, int how) const;
  // Held (exclusive, blocking) around every read-modify-write of names.json.
  StatusOr<StoreLock> LockNames() const { return Lock(dir_ + "/names.lock", 2 /* LOCK_EX */); }

  std::string dir_;
};

std::string ImageRecordToJson(const ImageRecord& record);
StatusOr<ImageRecord> ImageRecordFromJson(std::string_view text);

}  // namespace agentbox::image
