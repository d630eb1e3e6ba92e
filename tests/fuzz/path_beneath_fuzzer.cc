// File-API path resolution (src/agent/path_beneath.*): a client's path, resolved by the agent
// beneath /workspace. Here the workspace is a temp dir holding the links an attacker would plant
// (.. chains, absolute links, a self loop, links into the parent dir), and the property is the
// one the file API promises: every fd handed out names the workspace or something beneath it,
// never the secret file beside it. Lookups also run through the user-space walk that stands in
// for openat2 where the kernel lacks it (gVisor), which must answer exactly as openat2 does (same
// errno, or an fd naming the same file); the other operations take turns with each resolver.
// The first byte picks the operation (and the resolver); the rest is the path.
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "agent/beneath_walk.h"
#include "agent/path_beneath.h"
#include "fuzz_util.h"

using namespace agentbox;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  std::string root;     // temp dir: holds "secret" and the two workspaces
  std::string ws;       // read-only use: opens and parent lookups
  std::string scratch;  // mkdir use: recreated now and then
  UniqueFd ws_fd, scratch_fd;
  int scratch_uses = 0;

  static void PlantLinks(const std::string& dir) {
    fs::create_directories(dir + "/d/e");
    FILE* f = std::fopen((dir + "/d/f").c_str(), "w");
    if (f) std::fclose(f);
    for (auto [name, target] : {std::pair{"up", ".."},
                                {"root", "/"},
                                {"etc", "/etc"},
                                {"loop", "loop"},
                                {"d/back", "../.."},
                                {"secret", "../secret"},
                                {"d/e/deep", "../../../secret"},
                                {"self", "/proc/self/cwd"}}) {
      (void)::symlink(target, (dir + "/" + name).c_str());
    }
  }

  void ResetScratch() {
    scratch_fd.reset();
    fs::remove_all(scratch);  // removes links, never follows them
    PlantLinks(scratch);
    scratch_fd = UniqueFd(::open(scratch.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    scratch_uses = 0;
  }

  Fixture() {
    char tmpl[] = "/tmp/agentbox-path-fuzz-XXXXXX";
    root = ::mkdtemp(tmpl);
    FILE* f = std::fopen((root + "/secret").c_str(), "w");
    if (f) std::fclose(f);
    ws = root + "/ws";
    scratch = root + "/scratch";
    PlantLinks(ws);
    ws_fd = UniqueFd(::open(ws.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    ResetScratch();
  }
};

Fixture& Get() {
  static Fixture* fixture = new Fixture();  // lives for the process; removed at exit below
  static bool registered = [] { return std::atexit([] { fs::remove_all(Get().root); }) == 0; }();
  (void)registered;
  return *fixture;
}

// The fd names `dir` or something beneath it.
void CheckBeneath(int fd, const std::string& dir, const std::string& given) {
  char buf[4096];
  ssize_t n = ::readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), buf, sizeof(buf) - 1);
  FUZZ_CHECK(n > 0, "readlink of a returned fd failed");
  std::string where(buf, static_cast<size_t>(n));
  FUZZ_CHECK(where == dir || where.rfind(dir + "/", 0) == 0,
             "path \"" + given + "\" resolved to " + where + ", outside " + dir);
}

// Where fd points (or the errno), for comparing the two resolvers; closes fd.
std::string Outcome(int fd, int err) {
  if (fd < 0) return std::string("errno ") + std::to_string(err);
  char buf[4096];
  ssize_t n = ::readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), buf, sizeof(buf) - 1);
  ::close(fd);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "?";
}

// The same lookup by the kernel's openat2 and by the walk: the same answer, always beneath.
void CompareResolvers(Fixture& fx, const WorkspacePath& path, uint64_t flags) {
  constexpr uint64_t kResolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  struct open_how how = {};
  how.flags = flags | O_CLOEXEC;
  how.resolve = kResolve;
  errno = 0;
  int kernel_fd =
      static_cast<int>(::syscall(SYS_openat2, fx.ws_fd.get(), path.rel.c_str(), &how, sizeof(how)));
  int kernel_err = errno;
  if (kernel_fd < 0 && kernel_err == ENOSYS) return;  // nothing to compare with here
  errno = 0;
  int walk_fd = WalkBeneath(fx.ws_fd.get(), path.rel, flags, 0, kResolve);
  int walk_err = errno;
  if (walk_fd >= 0) CheckBeneath(walk_fd, fx.ws, path.given);
  std::string kernel = Outcome(kernel_fd, kernel_err), walk = Outcome(walk_fd, walk_err);
  FUZZ_CHECK(kernel == walk,
             "path \"" + path.given + "\": openat2 gave " + kernel + ", the walk gave " + walk);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  Fixture& fx = Get();
  const uint8_t op = data[0];
  auto parsed = ParseWorkspacePath(fuzz::AsText(data + 1, size - 1));
  if (!parsed.ok()) return 0;
  const WorkspacePath& path = *parsed;
  FUZZ_CHECK(!path.rel.empty() && path.rel[0] != '/', "rel is empty or absolute: " + path.rel);
  FUZZ_CHECK(path.rel.find('\0') == std::string::npos, "NUL in rel");
  FUZZ_CHECK(path.Absolute().rfind("/workspace", 0) == 0, path.Absolute());
  (void)HasEntryName(path);
  (void)PathError(path, "open", EXDEV);
  SetBeneathResolverForTesting((op / 5) % 2 == 0 ? BeneathResolver::kOpenat2
                                                 : BeneathResolver::kWalk);
  switch (op % 5) {
    case 0:
    case 1: {
      uint64_t flags = op % 5 == 0 ? O_PATH : O_RDONLY | O_NONBLOCK | O_NOFOLLOW;
      if (auto fd = OpenBeneath(fx.ws_fd.get(), path, flags); fd.ok()) {
        CheckBeneath(fd->get(), fx.ws, path.given);
      }
      CompareResolvers(fx, path, flags);
      CompareResolvers(fx, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      break;
    }
    case 2:
      if (auto parent = OpenParentBeneath(fx.ws_fd.get(), path); parent.ok()) {
        CheckBeneath(parent->fd.get(), fx.ws, path.given);
        FUZZ_CHECK(parent->name.find('/') == std::string::npos, "a slash in the entry name");
        FUZZ_CHECK(parent->name != "." && parent->name != "..", "entry name . or ..");
      }
      break;
    case 3:
    case 4: {
      if (++fx.scratch_uses > 200) fx.ResetScratch();
      if (op % 5 == 3) {
        if (auto parent = MakeParentsBeneath(fx.scratch_fd.get(), path); parent.ok()) {
          CheckBeneath(parent->fd.get(), fx.scratch, path.given);
        }
      } else if (auto dir = MakeDirsBeneath(fx.scratch_fd.get(), path.rel, path); dir.ok()) {
        CheckBeneath(dir->get(), fx.scratch, path.given);
      }
      break;
    }
  }
  return 0;
}
