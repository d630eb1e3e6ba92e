#include "docker/images.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <thread>

#include "docker/container_config.h"
#include "docker/image_pull.h"
#include "docker/tar_writer.h"
#include "sys/send_all.h"
#include "sys/unique_fd.h"

namespace agentbox::docker {
namespace {

constexpr int kImportTimeoutMs = 10 * 60 * 1000;

bool ValidReference(const std::string& name) {
  if (name.empty() || name.size() > 255) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-' || c == '/' || c == ':' || (c >= 'A' && c <= 'Z');
    if (!ok) return false;
  }
  return name.front() != ':' && name.front() != '/' && name.back() != ':';
}

StatusOr<size_t> ReadSome(int fd, char* buf, size_t size) {
  for (;;) {
    ssize_t n = ::read(fd, buf, size);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno != EINTR) return ErrnoStatus("read the image source");
  }
}

// A tar of a directory, made on a thread into one end of a socket pair while the upload reads
// the other: memory stays bounded whatever the tree's size. A socket, not a pipe, so that a
// writer whose reader went away gets EPIPE from send(MSG_NOSIGNAL), never a SIGPIPE.
class TarStream {
 public:
  Status Start(const std::string& dir) {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
      return ErrnoStatus("socketpair");
    }
    read_end_.reset(fds[0]);
    writer_ = std::thread([this, dir, fd = fds[1]] {
      UniqueFd write_end(fd);
      status_ = WriteTarOfDirectory(dir, [fd](const void* data, size_t size) {
        return sys::SendAll(fd, static_cast<const char*>(data), size,
                            "send the archive to the upload");
      });
    });  // write_end closes as the thread ends: the reader sees the end of the archive
    return OkStatus();
  }

  // The next bytes of the archive; 0 at its end. The end of an archive the writer could not
  // finish is its error, so the upload is aborted rather than ended: the daemon must never
  // make an image of a truncated tar.
  StatusOr<size_t> Read(char* buf, size_t size) {
    AB_ASSIGN_OR_RETURN(size_t n, ReadSome(read_end_.get(), buf, size));
    if (n > 0) return n;
    if (writer_.joinable()) writer_.join();  // it closed its end: it is done
    if (!status_.ok()) return status_;
    return size_t{0};
  }

  // Stops reading (a writer still at it gets EPIPE) and returns the writer's status.
  Status Finish() {
    read_end_.reset();
    if (writer_.joinable()) writer_.join();
    return status_;
  }

  ~TarStream() { (void)Finish(); }

 private:
  UniqueFd read_end_;
  std::thread writer_;
  Status status_;
};

// POSTs the tar that `read` yields to /images/create as a new image `name`.
StatusOr<HttpResponse> Upload(EngineClient& client,
                              std::function<StatusOr<size_t>(char*, size_t)> read,
                              const std::string& name) {
  auto [repo, tag] = SplitReference(name);
  httpclient::HttpRequest request;
  request.method = "POST";
  request.path = "/images/create?fromSrc=-&repo=" + UrlEncode(repo) + "&tag=" + UrlEncode(tag) +
                 "&changes=" + UrlEncode(std::string("LABEL ") + kLabelManaged + "=1");
  request.headers.push_back("Content-Type: application/x-tar");
  request.body_reader = std::move(read);
  request.timeout_ms = kImportTimeoutMs;
  return client.Send(std::move(request));
}

}  // namespace

Status ImportImage(EngineClient& client, const std::string& source, const std::string& name) {
  if (!ValidReference(name)) {
    return InvalidArgument("image name \"" + name +
                           "\" is not a valid reference (want repo[:tag])");
  }
  struct stat st;
  if (::stat(source.c_str(), &st) != 0) return ErrnoStatus("image source " + source);
  StatusOr<HttpResponse> r = Internal("unreachable");
  if (S_ISDIR(st.st_mode)) {
    TarStream tar;
    AB_RETURN_IF_ERROR(tar.Start(source));
    r = Upload(
        client, [&tar](char* buf, size_t size) { return tar.Read(buf, size); }, name);
    Status archived = tar.Finish();  // after a failed upload: EPIPE, which says nothing new
    if (r.ok() && r->status == 200) AB_RETURN_IF_ERROR(archived);
  } else if (S_ISREG(st.st_mode)) {
    UniqueFd file(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
    if (!file.valid()) return ErrnoStatus("image source " + source);
    int fd = file.get();
    r = Upload(
        client, [fd](char* buf, size_t size) { return ReadSome(fd, buf, size); }, name);
  } else {
    return InvalidArgument("image source " + source + " is neither a directory nor a tar file");
  }
  if (!r.ok()) return r.status();
  if (r->status != 200) return Unavailable("docker: import " + name + ": " + ErrorMessage(*r));
  // The answer is a stream of JSON progress objects; a failure is one with "error".
  if (std::string error = FirstStreamError(r->body); !error.empty()) {
    return Unavailable("docker: import " + name + ": " + error);
  }
  return OkStatus();
}

}  // namespace agentbox::docker
