#include "native/mount_trees.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "sys/syscalls.h"

namespace agentbox {
namespace {

StatusOr<UniqueFd> CloneTree(const std::string& source, uint64_t attrs, bool recursive) {
  unsigned flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (recursive ? AT_RECURSIVE : 0);
  UniqueFd tree(sys::OpenTree(AT_FDCWD, source.c_str(), flags));
  if (!tree.valid()) return ErrnoStatus("clone mount " + source);
  struct mount_attr attr = {};
  attr.attr_set = attrs;
  if (sys::MountSetattr(tree.get(), "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &attr) !=
      0) {
    return ErrnoStatus("set mount attributes of " + source);
  }
  return tree;
}

}  // namespace

StatusOr<MountTrees> PrepareMountTrees(const MountPlan& plan, const Workspace& workspace,
                                       int image_root) {
  MountTrees out;
  out.trees.resize(plan.ops.size());
  out.is_dir.assign(plan.ops.size(), 1);
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    const MountOp& op = plan.ops[i];
    StatusOr<UniqueFd> tree = UniqueFd();
    switch (op.kind) {
      case MountKind::kBindReadOnly:
        tree = CloneTree(op.source, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true);
        break;
      case MountKind::kDevice:  // nosuid only: the node must stay usable
        tree = CloneTree(op.source, MOUNT_ATTR_NOSUID, false);
        break;
      case MountKind::kWorkspace:
        tree = workspace.idmapped_tree.valid()
                   ? UniqueFd(::fcntl(workspace.idmapped_tree.get(), F_DUPFD_CLOEXEC, 0))
                   : CloneTree(workspace.host_path, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, false);
        break;
      case MountKind::kRootTree:
        if (image_root < 0) return Internal("an image root without its overlay");
        tree = UniqueFd(::fcntl(image_root, F_DUPFD_CLOEXEC, 0));
        break;
      default:
        continue;
    }
    if (!tree.ok()) return tree.status();
    struct stat st;
    if (::fstat(tree->get(), &st) != 0) return ErrnoStatus("stat " + op.source);
    out.is_dir[i] = S_ISDIR(st.st_mode) ? 1 : 0;
    out.trees[i] = std::move(tree).value();
  }
  return out;
}

}  // namespace agentbox
