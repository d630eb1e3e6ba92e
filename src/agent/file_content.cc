// read_file, write_file and str_replace: the operations on a file's bytes.
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <vector>

#include "agent/file_atomic.h"
#include "agent/file_ops.h"
#include "agent/file_request.h"
#include "proto/agent_protocol.h"

namespace agentbox {
namespace {

std::string ToOctal(uint64_t value) {
  std::string out;
  do {
    out.insert(out.begin(), static_cast<char>('0' + (value & 7)));
    value >>= 3;
  } while (value != 0);
  return out;
}

Status RequireRegular(const WorkspacePath& path, const struct stat& st) {
  if (S_ISREG(st.st_mode)) return OkStatus();
  return InvalidArgument("path \"" + path.given + "\" is not a regular file (it is a " +
                         FileTypeName(st.st_mode) + ")");
}

Status RequireFileName(const WorkspacePath& path) {
  if (path.given.back() != '/') return OkStatus();
  return InvalidArgument("path \"" + path.given + "\" ends in '/': a file name is needed");
}

Status TooLarge(const WorkspacePath& path, uint64_t size, const char* limit_name, uint64_t limit) {
  return ResourceExhausted("file \"" + path.given + "\" is " + std::to_string(size) +
                           " bytes, more than " + limit_name + " " + std::to_string(limit));
}

// Opens a regular file for reading. O_NONBLOCK: opening a FIFO the sandbox planted must not
// hang the handler; it is refused by the type check right after.
StatusOr<UniqueFd> OpenRegular(int dirfd, const WorkspacePath& path, uint64_t extra_resolve,
                               struct stat* st) {
  AB_ASSIGN_OR_RETURN(UniqueFd fd,
                      OpenBeneath(dirfd, path, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0, extra_resolve));
  if (::fstat(fd.get(), st) != 0) return PathError(path, "stat", errno);
  AB_RETURN_IF_ERROR(RequireRegular(path, *st));
  return fd;
}

// Reads up to buffer->size() bytes; fewer only at end of file.
StatusOr<size_t> ReadChunk(int fd, std::string* buffer, const WorkspacePath& path) {
  size_t got = 0;
  while (got < buffer->size()) {
    ssize_t n = ::read(fd, buffer->data() + got, buffer->size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return PathError(path, "read", errno);
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  return got;
}

// Sends the file as kData frames; the file may grow while we read, so the cap is re-checked.
StatusOr<uint64_t> StreamFile(int fd, int conn_fd, uint64_t max_bytes, const WorkspacePath& path) {
  std::string buffer(kMaxFramePayload, '\0');
  uint64_t total = 0;
  for (;;) {
    AB_ASSIGN_OR_RETURN(size_t n, ReadChunk(fd, &buffer, path));
    if (n == 0) return total;
    total += n;
    if (total > max_bytes) return TooLarge(path, total, "max_bytes", max_bytes);
    AB_RETURN_IF_ERROR(WriteFrame(conn_fd, FrameType::kData, std::string_view(buffer.data(), n)));
    if (n < buffer.size()) return total;
  }
}

// The whole file, re-checking the limit since the file may grow while we read.
StatusOr<std::string> ReadWhole(int fd, uint64_t size_hint, const WorkspacePath& path) {
  std::string content;
  std::string chunk(std::min(size_hint, kMaxEditBytes) + 1, '\0');
  for (;;) {
    AB_ASSIGN_OR_RETURN(size_t n, ReadChunk(fd, &chunk, path));
    content.append(chunk, 0, n);
    if (content.size() > kMaxEditBytes) {
      return TooLarge(path, content.size(), "the edit limit", kMaxEditBytes);
    }
    if (n < chunk.size()) return content;
  }
}

// write_file's mode: the requested one, else the existing file's (overwriting a script keeps
// it executable), else 0644. Setuid/setgid are refused: the sandbox never creates such files.
StatusOr<std::optional<mode_t>> RequestedMode(const nlohmann::json& request) {
  if (!request.contains("mode") || request["mode"].is_null()) return std::optional<mode_t>();
  AB_ASSIGN_OR_RETURN(uint64_t mode, UintField(request, "mode", 0644));
  if (mode & (S_ISUID | S_ISGID)) {
    return PermissionDenied("mode 0" + ToOctal(mode) + " sets setuid/setgid bits; refused");
  }
  if (mode & ~uint64_t{0777})
    return InvalidArgument("mode 0" + ToOctal(mode) + " is not within 0777");
  return std::optional<mode_t>(static_cast<mode_t>(mode));
}

mode_t ModeForTarget(const ParentDir& parent, std::optional<mode_t> requested) {
  if (requested) return *requested;
  struct stat st;
  if (::fstatat(parent.fd.get(), parent.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISREG(st.st_mode)) {
    return st.st_mode & 0777;
  }
  return 0644;
}

// Everything write_file does before the data arrives: checks, parents, the temp file.
StatusOr<AtomicFile> PrepareWrite(const FileRequest& r) {
  AB_ASSIGN_OR_RETURN(WorkspacePath path, PathField(r.request));
  AB_RETURN_IF_ERROR(RequireFileName(path));
  AB_ASSIGN_OR_RETURN(std::optional<mode_t> mode, RequestedMode(r.request));
  AB_ASSIGN_OR_RETURN(bool parents, BoolField(r.request, "parents", false));
  AB_ASSIGN_OR_RETURN(ParentDir parent, parents ? MakeParentsBeneath(r.workspace_fd, path)
                                                : OpenParentBeneath(r.workspace_fd, path));
  mode_t final_mode = ModeForTarget(parent, mode);
  return AtomicFile::Create(parent.fd.get(), parent.name, final_mode, path);
}

// Reads exactly `size` bytes of kData frames into file, or drains them when file is null (so
// the client, still sending, gets our error instead of a broken pipe). A write error is kept
// and returned after the drain.
Status ReceiveData(int conn_fd, uint64_t size, AtomicFile* file) {
  Status write_status = OkStatus();
  for (uint64_t got = 0; got < size;) {
    AB_ASSIGN_OR_RETURN(Frame frame, ReadFrame(conn_fd));
    if (frame.type != FrameType::kData) return InvalidArgument("write_file expects data frames");
    if (frame.payload.size() > size - got) return InvalidArgument("more data than \"size\"");
    got += frame.payload.size();
    if (file && write_status.ok()) write_status = file->Write(frame.payload);
  }
  return write_status;
}

// Start offsets of the non-overlapping occurrences of old in content (as Python's str.count).
std::vector<size_t> FindOccurrences(const std::string& content, const std::string& old) {
  std::vector<size_t> found;
  for (size_t pos = content.find(old); pos != std::string::npos;
       pos = content.find(old, pos + old.size())) {
    found.push_back(pos);
  }
  return found;
}

// "[3, 7]": the distinct 1-based lines where the occurrences start.
std::string OccurrenceLines(const std::string& content, const std::vector<size_t>& found) {
  std::string out = "[";
  size_t line = 1, scanned = 0, last_line = 0;
  for (size_t pos : found) {
    for (; scanned < pos; ++scanned) line += content[scanned] == '\n';
    if (line == last_line) continue;
    if (last_line != 0) out += ", ";
    out += std::to_string(line);
    last_line = line;
  }
  return out + "]";
}

// The messages of Anthropic's text editor tool, which agents are trained to react to.
Status CheckUnique(const std::string& content, const std::string& old, const WorkspacePath& path,
                   const std::vector<size_t>& found) {
  if (found.empty()) {
    return InvalidArgument("No replacement was performed, old_str \"" + old +
                           "\" did not appear verbatim in " + path.Absolute() + ".");
  }
  if (found.size() > 1) {
    return InvalidArgument("No replacement was performed. Multiple occurrences of old_str \"" +
                           old + "\" in lines " + OccurrenceLines(content, found) +
                           ". Please ensure it is unique");
  }
  return OkStatus();
}

}  // namespace

StatusOr<nlohmann::json> ReadFileOp(const FileRequest& r) {
  AB_ASSIGN_OR_RETURN(WorkspacePath path, PathField(r.request));
  AB_ASSIGN_OR_RETURN(uint64_t max_bytes, UintField(r.request, "max_bytes", kDefaultReadMaxBytes));
  struct stat st;
  AB_ASSIGN_OR_RETURN(UniqueFd fd, OpenRegular(r.workspace_fd, path, 0, &st));
  auto size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes) return TooLarge(path, size, "max_bytes", max_bytes);
  AB_ASSIGN_OR_RETURN(uint64_t sent, StreamFile(fd.get(), r.conn_fd, max_bytes, path));
  return nlohmann::json{{"size", sent}, {"mode", static_cast<uint32_t>(st.st_mode & 07777)}};
}

StatusOr<nlohmann::json> WriteFileOp(const FileRequest& r) {
  if (!r.request.contains("size")) return InvalidArgument("write_file needs \"size\"");
  AB_ASSIGN_OR_RETURN(uint64_t size, UintField(r.request, "size", 0));
  StatusOr<AtomicFile> file = PrepareWrite(r);
  Status received = ReceiveData(r.conn_fd, size, file.ok() ? &file.value() : nullptr);
  AB_RETURN_IF_ERROR(file.status());
  AB_RETURN_IF_ERROR(received);  // the temp file goes with `file`
  AB_RETURN_IF_ERROR(file->Commit());
  return nlohmann::json::object();
}

StatusOr<nlohmann::json> StrReplaceOp(const FileRequest& r) {
  AB_ASSIGN_OR_RETURN(WorkspacePath path, PathField(r.request));
  AB_RETURN_IF_ERROR(RequireFileName(path));
  AB_ASSIGN_OR_RETURN(std::string old_str, StringField(r.request, "old"));
  AB_ASSIGN_OR_RETURN(std::string new_str, StringField(r.request, "new"));
  if (old_str.empty()) return InvalidArgument("old_str must not be empty");
  AB_ASSIGN_OR_RETURN(ParentDir parent, OpenParentBeneath(r.workspace_fd, path));
  // The edit replaces the entry in parent (renameat), so the entry itself must be the regular
  // file we read: a symlink there is refused (ELOOP), not followed.
  WorkspacePath entry{path.given, parent.name};
  struct stat st;
  AB_ASSIGN_OR_RETURN(UniqueFd fd, OpenRegular(parent.fd.get(), entry, RESOLVE_NO_SYMLINKS, &st));
  auto size = static_cast<uint64_t>(st.st_size);
  if (size > kMaxEditBytes) return TooLarge(path, size, "the edit limit", kMaxEditBytes);
  AB_ASSIGN_OR_RETURN(std::string content, ReadWhole(fd.get(), size, path));
  std::vector<size_t> found = FindOccurrences(content, old_str);
  AB_RETURN_IF_ERROR(CheckUnique(content, old_str, path, found));
  content.replace(found.front(), old_str.size(), new_str);
  // Setuid/setgid are dropped: the sandbox never creates such a file, not even by rewriting.
  AB_ASSIGN_OR_RETURN(AtomicFile out,
                      AtomicFile::Create(parent.fd.get(), parent.name, st.st_mode & 0777, path));
  AB_RETURN_IF_ERROR(out.Write(content));
  AB_RETURN_IF_ERROR(out.Commit());
  return nlohmann::json::object();
}

}  // namespace agentbox
