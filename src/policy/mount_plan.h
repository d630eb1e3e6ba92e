// MountPlan: the sandbox's filesystem as a list of plain steps, computed before clone.
//
// Pure (no OS headers): the parent lists the host directories it needs (RootEntry) and
// BuildMountPlan turns them, with the spec, into MountOps. The child executes the ops in order
// (proc/mount_ops.cc) with no decisions of its own. Targets are paths inside the new root.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spec/sandbox_spec.h"

namespace agentbox {

enum class MountKind {
  kBindReadOnly,  // recursive bind of a host path, read-only, nosuid, nodev
  kWorkspace,  // /workspace: the host workspace (or its idmapped clone), read-write, nosuid, nodev
  kTmpfs,      // a fresh size-capped tmpfs (size, mode), nosuid, nodev
  kProc,       // procfs of the sandbox's own PID namespace
  kDevpts,     // a private devpts instance
  kDevice,     // bind of one host device node onto an empty file
  kSymlink,    // target -> source (source is the link text)
  kFile,       // a file holding `data`, mode 0444
  kDir,        // an empty directory (a mount point)
  kReadOnly,   // make the mount at target read-only (that mount only, not its children)
  kBindSelfReadOnly,  // bind target onto itself, read-only, recursive (target need not be a mount)
  kMaskFile,          // hide a file by binding the sandbox's /dev/null over it
  kMaskDir,           // hide a directory under an empty read-only tmpfs
  kRootTree,  // "/": an image's root, a read-only overlay the parent mounted, over the new root
};

struct MountOp {
  MountKind kind;
  std::string source;  // host path (binds, devices), link text (symlinks)
  std::string target;  // path inside the new root, always absolute ("/usr")
  std::string data;    // kFile contents
  uint64_t size = 0;   // kTmpfs size cap in bytes
  uint32_t mode = 0;   // kTmpfs / kDir mode
};

// One top-level entry of the directory that supplies the sandbox's root.
struct RootEntry {
  enum class Type { kDirectory, kSymlink, kFile };
  std::string name;  // "usr", "bin", ...
  Type type;
  std::string link_text;  // for kSymlink
};

struct MountPlanInput {
  // Host dir whose entries make up the root: "/" with the system allowlist, or --rootfs.
  std::string root_source;
  bool custom_rootfs = false;
  // The root is an image's (native/image_root.h): one kRootTree op, no root entries, no /etc.
  bool image_root = false;
  std::vector<RootEntry> root_entries;  // entries of root_source (already listed by the caller)
  std::vector<std::string> host_etc_entries;  // names present in the host's /etc (default root)
  uint64_t tmp_bytes = 0;
  uint64_t shm_bytes = 0;
};

// The host system directories the default root is made of (docs/contract.md §1 --rootfs default).
// Never "/", /home, /root, /run, /var, /tmp.
const std::vector<std::string>& DefaultRootAllowlist();
// The host /etc entries bound read-only into the minimal /etc (libraries, certificates, tools'
// alternatives); passwd, group, hosts, hostname, resolv.conf are generated instead.
const std::vector<std::string>& DefaultEtcAllowlist();

struct MountPlan {
  std::vector<MountOp> ops;
};

MountPlan BuildMountPlan(const MountPlanInput& input);

// The sandbox's /proc: a fresh proc, /proc/sys read-only, the files that must not be reached
// masked. The one list for both the box (BuildMountPlan) and each native exec's own /proc (the
// agent's exec_in_namespaces.cc), so a mask added here covers both.
std::vector<MountOp> ProcMounts();

// Generated /etc files of the default root.
std::string GeneratedPasswd();
std::string GeneratedGroup();
std::string GeneratedHosts();

}  // namespace agentbox
