#include "image/tar_stream.h"

namespace agentbox::image {
namespace {

constexpr size_t kBlockBytes = 64 * 1024;

// libarchive's message, which it leaves null for some failures (an empty input).
std::string ArchiveError(struct archive* a, const char* otherwise) {
  const char* msg = archive_error_string(a);
  return msg != nullptr ? msg : otherwise;
}

}  // namespace

StatusOr<std::unique_ptr<TarStream>> TarStream::Open(int fd, uint64_t max_bytes) {
  std::unique_ptr<TarStream> s(new TarStream());
  s->max_bytes_ = max_bytes;
  s->outer_ = archive_read_new();
  s->inner_ = archive_read_new();
  if (s->outer_ == nullptr || s->inner_ == nullptr) return Internal("libarchive: out of memory");
  // Library-backed decompressors only (filter_all would also run lzop, lrzip, grzip programs).
  archive_read_support_filter_gzip(s->outer_);
  archive_read_support_filter_zstd(s->outer_);
  archive_read_support_filter_xz(s->outer_);
  archive_read_support_filter_bzip2(s->outer_);
  archive_read_support_format_raw(s->outer_);
  archive_read_support_format_empty(s->outer_);
  if (archive_read_open_fd(s->outer_, fd, kBlockBytes) != ARCHIVE_OK) {
    return InvalidArgument("not a readable archive: " + ArchiveError(s->outer_, "unreadable"));
  }
  struct archive_entry* raw = nullptr;
  if (archive_read_next_header(s->outer_, &raw) != ARCHIVE_OK) {
    return InvalidArgument("not a readable archive: " + ArchiveError(s->outer_, "it is empty"));
  }
  archive_read_support_format_tar(s->inner_);
  archive_read_support_format_empty(s->inner_);
  if (archive_read_open(s->inner_, s.get(), nullptr, &TarStream::ReadInner, nullptr) !=
      ARCHIVE_OK) {
    return s->Error("not a tar archive");
  }
  return s;
}

TarStream::~TarStream() {
  if (inner_ != nullptr) archive_read_free(inner_);
  if (outer_ != nullptr) archive_read_free(outer_);
}

la_ssize_t TarStream::ReadInner(struct archive*, void* self, const void** buffer) {
  auto* s = static_cast<TarStream*>(self);
  static thread_local char block[kBlockBytes];
  la_ssize_t n = archive_read_data(s->outer_, block, sizeof(block));
  if (n < 0) {
    s->outer_error_ = true;
    s->outer_message_ = ArchiveError(s->outer_, "decompression failed");
    return -1;
  }
  s->bytes_ += static_cast<uint64_t>(n);
  if (s->bytes_ > s->max_bytes_) {
    s->over_limit_ = true;
    return -1;
  }
  s->hash_.Update(block, static_cast<size_t>(n));
  *buffer = block;
  return n;
}

Status TarStream::Error(const std::string& what) {
  if (over_limit_) {
    return ResourceExhausted("more than " + std::to_string(max_bytes_) +
                             " bytes uncompressed (the layer size ceiling, --max-layer-size)");
  }
  if (outer_error_) return InvalidArgument(what + ": " + outer_message_);
  return InvalidArgument(what + ": " + ArchiveError(inner_, "corrupt tar"));
}

StatusOr<struct archive_entry*> TarStream::Next() {
  struct archive_entry* entry = nullptr;
  int r = archive_read_next_header(inner_, &entry);
  if (r == ARCHIVE_EOF) return static_cast<struct archive_entry*>(nullptr);
  if (r != ARCHIVE_OK && r != ARCHIVE_WARN) return Error("corrupt tar");
  return entry;
}

StatusOr<std::string> TarStream::Finish() {
  const void* buffer = nullptr;
  for (;;) {
    la_ssize_t n = ReadInner(inner_, this, &buffer);
    if (n == 0) break;
    if (n < 0) return Error("corrupt stream after the tar's end");
  }
  return hash_.Digest();
}

}  // namespace agentbox::image
