#include "native/image_root.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "policy/image_user.h"
#include "sys/syscalls.h"

namespace agentbox {
namespace {

// fsconfig(2) takes strings of at most 256 bytes.
constexpr size_t kMaxFsconfigString = 255;

// overlay's "lowerdir+" (one layer per call, Linux 6.8+): no limit on the number of layers.
bool AddLayersOneByOne(int fs, const std::string& lower, size_t layers) {
  std::string top = lower + "/s";
  if (sys::FsConfig(fs, FSCONFIG_SET_STRING, "lowerdir+", top.c_str(), 0) != 0) return false;
  for (size_t i = 0; i < layers; ++i) {
    std::string path = lower + "/" + std::to_string(i);
    if (sys::FsConfig(fs, FSCONFIG_SET_STRING, "lowerdir+", path.c_str(), 0) != 0) return false;
  }
  return true;
}

// Older kernels: one "lowerdir" string of the short names in lower/<id>/, relative to it (the
// process's cwd while the filesystem is made). 255 bytes hold about 80 layers.
Status AddLayersAsOneString(int fs, const std::string& lower, size_t layers) {
  std::string value = "s";
  for (size_t i = 0; i < layers; ++i) value += ":" + std::to_string(i);
  if (value.size() > kMaxFsconfigString) {
    return Unavailable("the image has " + std::to_string(layers) +
                       " layers: more than this kernel's overlayfs takes in one mount option "
                       "(Linux 6.8 takes any number)");
  }
  UniqueFd here(::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!here.valid() || ::chdir(lower.c_str()) != 0) return ErrnoStatus("chdir " + lower);
  int rc = sys::FsConfig(fs, FSCONFIG_SET_STRING, "lowerdir", value.c_str(), 0);
  if (rc == 0) rc = sys::FsConfig(fs, FSCONFIG_CMD_CREATE, nullptr, nullptr, 0);
  int err = errno;
  if (::fchdir(here.get()) != 0) return ErrnoStatus("return from " + lower);
  if (rc != 0) return ErrnoStatus("mount the image's layers (overlayfs)", err);
  return OkStatus();
}

StatusOr<UniqueFd> MountLayers(const std::string& lower, size_t layers) {
  UniqueFd fs(sys::FsOpen("overlay", FSOPEN_CLOEXEC));
  if (!fs.valid()) return ErrnoStatus("open an overlayfs context (is overlay in this kernel?)");
  // A kernel without "lowerdir+" refuses it at once (6.5-6.7: EINVAL from fsconfig) or, where
  // overlay still takes legacy mount options (6.1), only when the filesystem is made.
  bool made = AddLayersOneByOne(fs.get(), lower, layers) &&
              sys::FsConfig(fs.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) == 0;
  if (!made && errno != EINVAL) return ErrnoStatus("mount the image's layers (overlayfs)");
  if (!made) {
    fs.reset(sys::FsOpen("overlay", FSOPEN_CLOEXEC));
    if (!fs.valid()) return ErrnoStatus("open an overlayfs context");
    AB_RETURN_IF_ERROR(AddLayersAsOneString(fs.get(), lower, layers));
  }
  UniqueFd mnt(sys::FsMount(fs.get(), FSMOUNT_CLOEXEC,
                            MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV));
  if (!mnt.valid()) return ErrnoStatus("mount the image's layers (fsmount)");
  return mnt;
}

// The text of `path` in the image's root, "" when it has none or it is no regular file. Symlinks
// resolve inside the root (an image's /etc/passwd -> /etc/shadow-style link never reaches the
// host); a file past 4 MiB is cut there, more than any passwd an image ships.
StatusOr<std::string> ReadImageFile(int root, const char* path) {
  UniqueFd fd(sys::Openat2(root, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
                           RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV));
  struct stat st;
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::string();
  std::string text;
  char buf[16384];
  while (text.size() < (4u << 20)) {
    ssize_t n = ::read(fd.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus(std::string("read the image's /") + path);
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

}  // namespace

Status ApplyImageUser(const ImageRoot& root, SandboxSpec* spec) {
  const std::string& user = root.record.config.user;
  std::string passwd, group;
  if (ImageUserNeedsLookup(user)) {
    AB_ASSIGN_OR_RETURN(passwd, ReadImageFile(root.overlay.get(), "etc/passwd"));
    AB_ASSIGN_OR_RETURN(group, ReadImageFile(root.overlay.get(), "etc/group"));
  }
  AB_ASSIGN_OR_RETURN(spec->user, ResolveImageUser(user, passwd, group));
  return OkStatus();
}

StatusOr<ImageRoot> PrepareImageRoot(const std::string& state_root, const std::string& ref) {
  AB_ASSIGN_OR_RETURN(image::ImageStore store, image::ImageStore::Open(state_root));
  AB_ASSIGN_OR_RETURN(image::ImageRecord found, store.Resolve(ref));
  ImageRoot root;
  AB_ASSIGN_OR_RETURN(root.lock, store.LockImageShared(found.id));
  // Again under the lock: an `image rm` that won the race has removed the record by now.
  AB_ASSIGN_OR_RETURN(root.record, store.Resolve(found.id));
  for (const std::string& layer : root.record.config.diff_ids) {
    if (!store.HasLayer(layer)) {
      return Internal("image " + ref + ": its layer " + layer + " is missing from the store");
    }
  }
  AB_ASSIGN_OR_RETURN(std::string lower, store.LowerDir(root.record));
  AB_ASSIGN_OR_RETURN(root.overlay, MountLayers(lower, root.record.config.diff_ids.size()));
  return root;
}

}  // namespace agentbox
