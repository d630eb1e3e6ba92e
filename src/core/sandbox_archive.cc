#include "core/sandbox_archive.h"

#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <vector>

#include "core/agent_files.h"

namespace agentbox {
namespace {

constexpr int kMaxDepth = 256;         // directories within directories, on the way out
constexpr int64_t kSandboxUid = 1000;  // who the files belong to inside (docs/contract.md §2)

struct ArchiveWriteFree {
  void operator()(struct archive* a) const { archive_write_free(a); }
};
struct ArchiveReadFree {
  void operator()(struct archive* a) const { archive_read_free(a); }
};
struct EntryFree {
  void operator()(struct archive_entry* e) const { archive_entry_free(e); }
};

std::string Join(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

std::string BaseName(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return base.empty() || base == "/" ? "workspace" : base;
}

// ---- out of the sandbox ----

struct Writer {
  struct archive* archive;
  const ArchiveLimits& limits;
  const ArchiveSink& sink;
  const AgentEndpoint& socket;
  Status sink_error;
  ArchiveCounts counts;
};

la_ssize_t WriteToSink(struct archive*, void* data, const void* buf, size_t n) {
  auto* w = static_cast<Writer*>(data);
  Status st = w->sink(std::string_view(static_cast<const char*>(buf), n));
  if (!st.ok()) {
    w->sink_error = st;
    return -1;
  }
  return static_cast<la_ssize_t>(n);
}

Status ArchiveError(Writer& w, const std::string& what) {
  if (!w.sink_error.ok()) return w.sink_error;
  const char* detail = archive_error_string(w.archive);
  return Internal(what + ": " + (detail ? detail : "libarchive failed"));
}

Status Header(Writer& w, const std::string& name, const AgentFileInfo& info, bool dir) {
  ++(dir ? w.counts.directories : w.counts.files);
  if (w.counts.files + w.counts.directories > w.limits.max_entries) {
    return ResourceExhausted("more than " + std::to_string(w.limits.max_entries) +
                             " files and directories to archive");
  }
  std::unique_ptr<struct archive_entry, EntryFree> entry(archive_entry_new());
  archive_entry_set_pathname(entry.get(), name.c_str());
  archive_entry_set_filetype(entry.get(), dir ? AE_IFDIR : AE_IFREG);
  archive_entry_set_perm(entry.get(), info.mode & 0777);
  archive_entry_set_size(entry.get(), dir ? 0 : static_cast<la_int64_t>(info.size));
  archive_entry_set_mtime(entry.get(), info.mtime, 0);
  archive_entry_set_uid(entry.get(), kSandboxUid);
  archive_entry_set_gid(entry.get(), kSandboxUid);
  if (archive_write_header(w.archive, entry.get()) != ARCHIVE_OK) {
    return ArchiveError(w, name);
  }
  return OkStatus();
}

Status AddFile(Writer& w, const std::string& path, const std::string& name,
               const AgentFileInfo& info) {
  if (info.size > w.limits.max_file_bytes) {
    return ResourceExhausted(path + " is " + std::to_string(info.size) +
                             " bytes, more than the limit of " +
                             std::to_string(w.limits.max_file_bytes));
  }
  AB_ASSIGN_OR_RETURN(std::string data, AgentReadFile(w.socket, path, w.limits.max_file_bytes));
  w.counts.bytes += data.size();
  if (w.counts.bytes > w.limits.max_total_bytes) {
    return ResourceExhausted("more than " + std::to_string(w.limits.max_total_bytes) +
                             " bytes to archive");
  }
  AgentFileInfo read = info;
  read.size = data.size();  // what was read, should the file have changed since the listing
  AB_RETURN_IF_ERROR(Header(w, name, read, false));
  if (!data.empty() && archive_write_data(w.archive, data.data(), data.size()) < 0) {
    return ArchiveError(w, name);
  }
  return OkStatus();
}

Status AddTree(Writer& w, const std::string& path, const std::string& name,
               const AgentFileInfo& info, int depth) {
  if (info.type == "file") return AddFile(w, path, name, info);
  if (info.type != "dir") {
    return InvalidArgument(path + ": only files and directories are copied (this is a " +
                           info.type + ")");
  }
  if (depth > kMaxDepth) return ResourceExhausted(path + ": directories nested too deeply");
  AB_RETURN_IF_ERROR(Header(w, name + "/", info, true));
  AB_ASSIGN_OR_RETURN(std::vector<AgentDirEntry> entries, AgentListDir(w.socket, path));
  for (const AgentDirEntry& e : entries) {
    AB_RETURN_IF_ERROR(AddTree(w, Join(path, e.name), name + "/" + e.name, e.info, depth + 1));
  }
  return OkStatus();
}

// ---- into the sandbox ----

// "./a/b/" -> "a/b"; "" for the archive's own "./". Absolute names and `..` are refused: the
// agent would refuse an escape anyway, but a name is judged before anything is written.
StatusOr<std::string> CleanEntryName(const std::string& raw) {
  if (raw.starts_with('/')) {
    return PermissionDenied("archive entry \"" + raw + "\" is an absolute path");
  }
  std::string clean;
  size_t at = 0;
  while (at <= raw.size()) {
    const size_t slash = raw.find('/', at);
    const std::string part = raw.substr(at, slash == std::string::npos ? slash : slash - at);
    at = slash == std::string::npos ? raw.size() + 1 : slash + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      return PermissionDenied("archive entry \"" + raw + "\" leads out with \"..\"");
    }
    clean += (clean.empty() ? "" : "/") + part;
  }
  return clean;
}

struct Reader {
  const ArchiveSource& source;
  std::string chunk;
  Status source_error;
};

la_ssize_t ReadFromSource(struct archive*, void* data, const void** buf) {
  auto* r = static_cast<Reader*>(data);
  r->chunk.clear();
  Status st = r->source(&r->chunk);
  if (!st.ok()) {
    r->source_error = st;
    return -1;
  }
  *buf = r->chunk.data();
  return static_cast<la_ssize_t>(r->chunk.size());
}

Status ReadError(struct archive* a, const Reader& r) {
  if (!r.source_error.ok()) return r.source_error;
  const char* detail = archive_error_string(a);
  return InvalidArgument(std::string("not an uncompressed tar stream: ") +
                         (detail ? detail : "unreadable"));
}

// The content of the entry just read, at most `max` bytes (else kResourceExhausted).
StatusOr<std::string> EntryData(struct archive* a, const Reader& r, const std::string& name,
                                uint64_t max) {
  std::string data;
  char buf[64 * 1024];
  while (true) {
    const la_ssize_t n = archive_read_data(a, buf, sizeof(buf));
    if (n < 0) return ReadError(a, r);
    if (n == 0) return data;
    if (data.size() + static_cast<size_t>(n) > max) {
      return ResourceExhausted("archive entry \"" + name + "\" is larger than the limit of " +
                               std::to_string(max) + " bytes");
    }
    data.append(buf, static_cast<size_t>(n));
  }
}

Status ExtractEntry(struct archive* a, const Reader& r, struct archive_entry* entry,
                    const AgentEndpoint& socket, const std::string& dir,
                    const ArchiveLimits& limits, ArchiveCounts& counts) {
  const char* raw = archive_entry_pathname(entry);
  AB_ASSIGN_OR_RETURN(std::string name, CleanEntryName(raw ? raw : ""));
  const mode_t type = archive_entry_filetype(entry);
  const bool hardlink = archive_entry_hardlink(entry) != nullptr;
  if (name.empty()) return OkStatus();  // "./": the directory itself
  if (counts.files + counts.directories >= limits.max_entries) {
    return ResourceExhausted("the archive has more than " + std::to_string(limits.max_entries) +
                             " files and directories");
  }
  const std::string path = Join(dir, name);
  if (type == AE_IFDIR) {
    ++counts.directories;
    return AgentMkdir(socket, path, /*parents=*/true);
  }
  if (type != AE_IFREG || hardlink) {
    return InvalidArgument("archive entry \"" + name +
                           "\": only files and directories are copied (links, devices and "
                           "FIFOs are not)");
  }
  const uint64_t left = limits.max_total_bytes - counts.bytes;
  AB_ASSIGN_OR_RETURN(std::string data,
                      EntryData(a, r, name, std::min(limits.max_file_bytes, left)));
  ++counts.files;
  counts.bytes += data.size();
  return AgentWriteFile(socket, path, data, archive_entry_perm(entry) & 0777, /*parents=*/true);
}

}  // namespace

StatusOr<ArchiveCounts> WriteSandboxArchive(const AgentEndpoint& agent, const std::string& path,
                                            const ArchiveLimits& limits, const ArchiveSink& sink) {
  AB_ASSIGN_OR_RETURN(AgentFileInfo top, AgentStat(agent, path));
  std::unique_ptr<struct archive, ArchiveWriteFree> a(archive_write_new());
  Writer w{a.get(), limits, sink, agent, OkStatus(), {}};
  if (archive_write_set_format_pax_restricted(a.get()) != ARCHIVE_OK ||
      archive_write_open(a.get(), &w, nullptr, &WriteToSink, nullptr) != ARCHIVE_OK) {
    return ArchiveError(w, "tar");
  }
  AB_RETURN_IF_ERROR(AddTree(w, path, BaseName(path), top, 0));
  if (archive_write_close(a.get()) != ARCHIVE_OK) return ArchiveError(w, "tar");
  return w.counts;
}

StatusOr<ArchiveCounts> ExtractSandboxArchive(const AgentEndpoint& agent, const std::string& dir,
                                              const ArchiveLimits& limits,
                                              const ArchiveSource& source) {
  AB_ASSIGN_OR_RETURN(AgentFileInfo info, AgentStat(agent, dir));
  if (info.type != "dir") return InvalidArgument(dir + " is not a directory");
  std::unique_ptr<struct archive, ArchiveReadFree> a(archive_read_new());
  Reader r{source, {}, OkStatus()};
  if (archive_read_support_format_tar(a.get()) != ARCHIVE_OK ||
      archive_read_open(a.get(), &r, nullptr, &ReadFromSource, nullptr) != ARCHIVE_OK) {
    return ReadError(a.get(), r);
  }
  ArchiveCounts counts;
  while (true) {
    struct archive_entry* entry = nullptr;
    const int rc = archive_read_next_header(a.get(), &entry);
    if (rc == ARCHIVE_EOF) return counts;
    if (rc < ARCHIVE_WARN) return ReadError(a.get(), r);
    AB_RETURN_IF_ERROR(ExtractEntry(a.get(), r, entry, agent, dir, limits, counts));
  }
}

}  // namespace agentbox
