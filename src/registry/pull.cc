#include "registry/pull.h"

#include <sys/socket.h>

#include <memory>
#include <thread>

#include "image/image_import.h"

namespace agentbox::registry {
namespace {

Status SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    // MSG_NOSIGNAL: an unpack that stopped early closed its end; that is EPIPE here, which
    // aborts the download, never a SIGPIPE.
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoStatus("hand a downloaded layer to its unpack");
    data.remove_prefix(static_cast<size_t>(n));
  }
  return OkStatus();
}

// One layer downloading on its own thread into a socket whose other end the unpack reads, so
// that download, gunzip and unpack overlap instead of following one another. The socket's
// buffer is the only copy: a slow unpack slows the download (which the registry client's stall
// timeout allows for: it counts only a peer that sends nothing).
class StreamedBlob {
 public:
  static StatusOr<image::LayerBlob> Start(RegistryClient& client, const image::Descriptor& d) {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
      return ErrnoStatus("socketpair for a layer download");
    }
    UniqueFd reader(fds[0]);
    auto blob = std::make_shared<StreamedBlob>(UniqueFd(fds[1]));
    blob->thread_ = std::thread([&client, d, b = blob.get()] {
      b->result_ = client.GetBlob(d, [b](std::string_view piece) {
        Status sent = SendAll(b->writer_.get(), piece);
        b->reader_gone_ = !sent.ok();
        return sent;
      });
      ::shutdown(b->writer_.get(), SHUT_WR);  // the unpack sees the end of the stream
    });
    return image::LayerBlob{std::move(reader),
                            [blob](bool unpacked) { return blob->Finish(unpacked); }};
  }

  explicit StreamedBlob(UniqueFd writer) : writer_(std::move(writer)) {}
  StreamedBlob(const StreamedBlob&) = delete;
  StreamedBlob& operator=(const StreamedBlob&) = delete;
  // Dropped before its end (an error before the unpack): a blocked send fails with EPIPE.
  ~StreamedBlob() {
    ::shutdown(writer_.get(), SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
  }

 private:
  Status Finish(bool unpacked) {
    if (thread_.joinable()) thread_.join();
    // An unpack that failed and stopped reading (a full disk, a ceiling): its error says why.
    // One that succeeded read every byte, so a failure here is the download's own.
    if (reader_gone_ && !unpacked) return OkStatus();
    return result_;
  }

  UniqueFd writer_;
  std::thread thread_;
  Status result_;
  bool reader_gone_ = false;  // written by the thread, read after join
};

}  // namespace

StatusOr<image::ImageRecord> Pull(const image::ImageStore& store, const PullRequest& req) {
  AB_ASSIGN_OR_RETURN(image::ImageRef ref, image::ParseImageRef(req.ref));
  AB_ASSIGN_OR_RETURN(RegistryClient client, RegistryClient::Connect(ref, req.registry));
  AB_ASSIGN_OR_RETURN(FetchedManifest top,
                      client.GetManifest(ref.digest.empty() ? ref.tag : ref.digest));
  AB_ASSIGN_OR_RETURN(image::DocumentKind kind, image::ClassifyDocument(top.body, top.media_type));
  FetchedManifest chosen = top;
  if (kind == image::DocumentKind::kIndex) {
    AB_ASSIGN_OR_RETURN(std::vector<image::Descriptor> index, image::ParseIndex(top.body));
    AB_ASSIGN_OR_RETURN(image::Descriptor d, image::SelectPlatform(index, req.platform));
    AB_ASSIGN_OR_RETURN(chosen, client.GetManifest(d.digest));
  }
  AB_ASSIGN_OR_RETURN(image::Manifest m, image::ParseManifest(chosen.body));
  image::ImportRequest ir;
  AB_ASSIGN_OR_RETURN(ir.config_json, client.GetSmallBlob(m.config));
  ir.config_digest = m.config.digest;
  ir.manifest_digest = chosen.digest;
  ir.layer_count = m.layers.size();
  ir.names = {ref.Canonical()};
  ir.source = "pull " + ref.Familiar();
  ir.limits = req.limits;
  return image::ImportImage(store, ir,
                            [&](size_t i) { return StreamedBlob::Start(client, m.layers[i]); });
}

}  // namespace agentbox::registry
