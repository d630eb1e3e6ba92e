// TarStream: a tar archive read from an fd with libarchive — plain, gzip, zstd, xz or bzip2 —
// while the uncompressed bytes are hashed and counted.
//
// Two libarchive readers in a row: the outer one only decompresses (format "raw"), the inner one
// reads tar from what the outer one yields. So the digest is that of the uncompressed stream (an
// OCI layer's diff_id) with no temporary copy, and a decompression bomb stops at `max_bytes`
// however small the compressed input. Only filters backed by a library are enabled: none that
// runs an external program on untrusted input.
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "image/digest.h"

namespace agentbox::image {

class TarStream {
 public:
  // Reads from `fd` (not owned), refusing more than `max_bytes` of uncompressed data.
  static StatusOr<std::unique_ptr<TarStream>> Open(int fd, uint64_t max_bytes);
  ~TarStream();
  TarStream(const TarStream&) = delete;
  TarStream& operator=(const TarStream&) = delete;

  // The next entry, or nullptr after the last. The entry stays valid until the next call.
  StatusOr<struct archive_entry*> Next();
  // The reader of the current entry's data (archive_read_data_block).
  struct archive* tar() {
    return inner_;
  }
  // Turns an error of the inner reader into a Status (the byte ceiling, a corrupt stream).
  Status Error(const std::string& what);
  // After the last entry: reads what follows the tar's end marker too, and returns the digest
  // of the whole uncompressed stream.
  StatusOr<std::string> Finish();
  uint64_t bytes() const { return bytes_; }

 private:
  TarStream() = default;
  static la_ssize_t ReadInner(struct archive*, void* self, const void** buffer);

  struct archive* outer_ = nullptr;
  struct archive* inner_ = nullptr;
  Sha256 hash_;
  uint64_t bytes_ = 0;
  uint64_t max_bytes_ = 0;
  bool over_limit_ = false;
  bool outer_error_ = false;
  std::string outer_message_;
};

}  // namespace agentbox::image
