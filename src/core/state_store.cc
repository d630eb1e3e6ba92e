#include "core/state_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <random>

#include "sys/file_util.h"

namespace agentbox {
namespace {

std::string DefaultRoot() {
  if (const char* dir = std::getenv("AGENTBOX_STATE_DIR"); dir && *dir) return dir;
  if (::geteuid() == 0) return "/var/lib/agentbox";
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg && *xdg) {
    return std::string(xdg) + "/agentbox";
  }
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "/tmp") + "/.local/state/agentbox";
}

bool IsHexId(const std::string& s) {
  return s.size() == 12 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

std::string StateRootPath() { return DefaultRoot(); }

Status ValidateSandboxName(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64 && std::isalnum(static_cast<unsigned char>(name[0]));
  for (char c : name) {
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-');
  }
  if (!ok) {
    return InvalidArgument("invalid sandbox name \"" + name +
                           "\": use 1-64 of A-Z a-z 0-9 _ . -, starting with a letter or digit");
  }
  return OkStatus();
}

StatusOr<StateStore> StateStore::Open() {
  StateStore store(DefaultRoot());
  for (const char* sub : {"", "/sandboxes", "/names"}) {
    AB_RETURN_IF_ERROR(MakeDirs(store.root_ + sub, 0700).WithContext("state directory"));
  }
  return store;
}

StatusOr<std::string> StateStore::AllocateId() {
  std::random_device rd;
  for (int attempt = 0; attempt < 16; ++attempt) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "%04x%08x", rd() & 0xffff, rd());
    std::string dir = SandboxDir(buf);
    if (::mkdir(dir.c_str(), 0700) == 0) return std::string(buf);
    if (errno != EEXIST) return ErrnoStatus("create " + dir);
  }
  return Internal("could not allocate a sandbox id");
}

Status StateStore::ReserveName(const std::string& name, const std::string& id) {
  AB_RETURN_IF_ERROR(ValidateSandboxName(name));
  std::string link = root_ + "/names/" + name;
  if (::symlink(id.c_str(), link.c_str()) == 0) return OkStatus();
  if (errno != EEXIST) return ErrnoStatus("reserve name " + name);
  // A name left behind by a sandbox that no longer exists is free again.
  char target[64] = {};
  ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
  if (n > 0 && !PathExists(SandboxDir(std::string(target, n)) + "/sandbox.json") &&
      !PathExists(SandboxDir(std::string(target, n)))) {
    ::unlink(link.c_str());
    if (::symlink(id.c_str(), link.c_str()) == 0) return OkStatus();
  }
  return AlreadyExists("a sandbox named \"" + name + "\" already exists");
}

void StateStore::ReleaseName(const std::string& name, const std::string& id) {
  if (name.empty()) return;
  std::string link = root_ + "/names/" + name;
  char target[64] = {};
  ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
  if (n > 0 && std::string(target, n) == id) ::unlink(link.c_str());
}

Status StateStore::Save(const SandboxRecord& record) {
  std::string path = SandboxDir(record.id) + "/sandbox.json";
  AB_RETURN_IF_ERROR(WriteFile(path + ".tmp", SandboxRecordToJson(record), 0600));
  if (::rename((path + ".tmp").c_str(), path.c_str()) != 0) return ErrnoStatus("save " + path);
  return OkStatus();
}

Status StateStore::Adopt(const SandboxRecord& record) {
  if (!IsHexId(record.id)) return InvalidArgument("bad sandbox id " + record.id);
  const std::string dir = SandboxDir(record.id);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return ErrnoStatus("create " + dir);
  AB_RETURN_IF_ERROR(Save(record));
  if (!record.name.empty()) (void)ReserveName(record.name, record.id);  // taken here: by id only
  return OkStatus();
}

StatusOr<SandboxRecord> StateStore::Load(const std::string& id) const {
  auto text = ReadFile(SandboxDir(id) + "/sandbox.json");
  if (!text.ok() && text.status().code() == StatusCode::kNotFound) {
    return NotFound("no such sandbox: " + id);
  }
  // Out of fds (or memory) is not "no such sandbox": a client would give up on a live one.
  if (!text.ok()) return text.status();
  return SandboxRecordFromJson(*text);
}

StatusOr<SandboxRecord> StateStore::Find(const std::string& ref) const {
  if (IsHexId(ref) && PathExists(SandboxDir(ref) + "/sandbox.json")) return Load(ref);
  char target[64] = {};
  ssize_t n = ::readlink((root_ + "/names/" + ref).c_str(), target, sizeof(target) - 1);
  if (n > 0 && ValidateSandboxName(ref).ok()) {
    auto record = Load(std::string(target, n));
    if (record.ok()) return record;
  }
  if (ref.size() >= 4 && ref.find_first_not_of("0123456789abcdef") == std::string::npos) {
    std::vector<std::string> matches;
    auto ids = ListDir(root_ + "/sandboxes");
    for (const auto& id : ids.ok() ? *ids : std::vector<std::string>{}) {
      if (id.rfind(ref, 0) == 0) matches.push_back(id);
    }
    if (matches.size() == 1) return Load(matches[0]);
    if (matches.size() > 1)
      return InvalidArgument("sandbox id prefix \"" + ref + "\" is ambiguous");
  }
  return NotFound("no such sandbox: " + ref);
}

std::vector<SandboxRecord> StateStore::List(std::vector<std::string>* broken) const {
  std::vector<SandboxRecord> records;
  auto ids = ListDir(root_ + "/sandboxes");
  if (!ids.ok()) return records;
  for (const auto& id : *ids) {
    auto record = Load(id);
    if (record.ok()) {
      records.push_back(std::move(record).value());
    } else if (broken) {
      broken->push_back(id);
    }
  }
  return records;
}

Status StateStore::Remove(const std::string& id, const std::string& name) {
  if (!IsHexId(id)) return InvalidArgument("bad sandbox id " + id);
  ReleaseName(name, id);
  // One rename takes the sandbox out of sandboxes/ whole: a removal cut short (kill -9 of the
  // server mid-DELETE) leaves a dir in trash/ for EmptyTrash, never a sandbox dir without its
  // record that no listing shows and nothing cleans.
  std::string doomed = root_ + "/trash/" + id;
  if (!MakeDir(root_ + "/trash", 0700).ok() ||
      ::rename(SandboxDir(id).c_str(), doomed.c_str()) != 0) {
    doomed = SandboxDir(id);  // (an earlier, cut-short removal of the same id): in place
  }
  if (!RemoveTree(doomed)) return Internal("could not remove " + doomed);
  return OkStatus();
}

std::vector<std::string> StateStore::EmptyTrash() {
  std::vector<std::string> removed;
  auto names = ListDir(root_ + "/trash");
  for (const std::string& name : names.ok() ? *names : std::vector<std::string>{}) {
    if (RemoveTree(root_ + "/trash/" + name)) removed.push_back(root_ + "/trash/" + name);
  }
  return removed;
}

}  // namespace agentbox
