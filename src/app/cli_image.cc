// `agentbox image ...`: the image store of the native backend (pull, load, ls, inspect, rm,
// prune) and `image import` for the docker backend. Dispatch, pull and load here, and the
// pull of `run --pull`/`create --pull`; the store's listing and removal in cli_image_store.cc.
#include "app/cli_image.h"

#include <sys/socket.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "app/cli.h"
#include "core/state_store.h"
#include "docker/engine_client.h"
#include "docker/images.h"
#include "image/image_load.h"
#include "image/image_ref.h"
#include "registry/pull.h"
#include "spec/units.h"
#include "sys/file_util.h"
#include "sys/send_all.h"

namespace agentbox {
namespace {

// A docker daemon exporting an image sends without pause; this long without a byte is a hang.
constexpr int kDockerExportStallMs = 120 * 1000;

int ImportSubcommand(const Args& args) {
  if (args.size() != 2)
    return FailWith(InvalidArgument("usage: agentbox image import SOURCE NAME"));
  auto client = docker::EngineClient::FromEnvironment();
  if (!client.ok()) return FailWith(client.status());
  if (Status st = docker::ImportImage(*client, args[0], args[1]); !st.ok()) return FailWith(st);
  WriteStdout(args[1] + "\n");
  return 0;
}

Status ParseLimitFlag(const Args& args, size_t& i, image::UnpackLimits& limits, bool& used) {
  used = false;
  if (i + 1 >= args.size()) return OkStatus();
  if (args[i] == "--max-layer-size") {
    AB_ASSIGN_OR_RETURN(limits.max_bytes, ParseSize(args[++i]));
    used = true;
  } else if (args[i] == "--max-layer-entries") {
    AB_ASSIGN_OR_RETURN(limits.max_entries, ParseCount(args[++i]));
    used = true;
  }
  return OkStatus();
}

Status ParsePullArgs(const Args& args, registry::PullRequest& req) {
  for (size_t i = 0; i < args.size(); ++i) {
    bool used = false;
    AB_RETURN_IF_ERROR(ParseLimitFlag(args, i, req.limits, used));
    if (used) continue;
    const std::string& a = args[i];
    bool has_value = i + 1 < args.size();
    if (a == "--platform" && has_value) {
      AB_ASSIGN_OR_RETURN(req.platform, image::ParsePlatform(args[++i]));
    } else if (a == "--insecure-registry" && has_value) {
      req.registry.insecure_registries.push_back(args[++i]);
    } else if (a == "--timeout" && has_value) {
      AB_ASSIGN_OR_RETURN(double seconds, ParseDuration(args[++i]));
      req.registry.timeout_seconds = seconds < 1 ? 1 : static_cast<int>(seconds);
    } else if (!a.empty() && a[0] != '-' && req.ref.empty()) {
      req.ref = a;
    } else {
      return InvalidArgument("image pull: unexpected argument \"" + a + "\"");
    }
  }
  if (req.ref.empty())
    return InvalidArgument("usage: agentbox image pull [--platform OS/ARCH] REF");
  return OkStatus();
}

int PullSubcommand(Args args) {
  const bool json = TakeFlag(args, "--json");
  registry::PullRequest req;
  if (Status st = ParsePullArgs(args, req); !st.ok()) return FailWith(st);
  AB_ASSIGN_OR_RETURN_FAIL(image::ImageStore store, image::ImageStore::Open(StateRootPath()));
  AB_ASSIGN_OR_RETURN_FAIL(image::ImageRecord record, registry::Pull(store, req));
  WriteStdout(json ? nlohmann::json{{"id", record.id}}.dump() + "\n" : record.id + "\n");
  return 0;
}

// A docker daemon's image, exported through the Engine API (GET /images/NAME/get: a docker
// save archive) and unpacked as it arrives: the download runs on a thread writing into one end
// of a socket pair, the loader reads the other, so neither memory nor a copy on disk holds the
// whole archive. A socket, not a pipe: a writer whose reader stopped (a refused layer) gets
// EPIPE from send(MSG_NOSIGNAL), which aborts the download, never a SIGPIPE.
StatusOr<std::vector<image::ImageRecord>> LoadFromDocker(const image::ImageStore& store,
                                                         image::LoadRequest req) {
  AB_ASSIGN_OR_RETURN(image::ImageRef ref, image::ParseImageRef(req.path));
  AB_ASSIGN_OR_RETURN(docker::EngineClient client, docker::EngineClient::FromEnvironment());
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return ErrnoStatus("socketpair");
  }
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  httpclient::HttpRequest get;
  get.path = "/images/" + docker::UrlEncode(req.path) + "/get";
  get.timeout_ms = 0;  // a large image takes long; a daemon that stops sending does not
  get.stall_timeout_ms = kDockerExportStallMs;
  get.max_body = 1 << 16;  // an error answer; the archive itself goes to on_body
  get.on_body = [fd = write_end.get()](std::string_view piece) {
    return sys::SendAll(fd, piece.data(), piece.size(), "hand the export to the loader");
  };
  StatusOr<docker::HttpResponse> exported = Internal("the export did not run");
  std::thread download([&] {
    exported = client.Send(std::move(get));
    write_end.reset();  // the loader sees the archive's end
  });
  if (req.tag.empty()) req.tag = ref.Canonical();
  req.source = "load --docker " + req.path;
  auto loaded = image::LoadImageArchive(store, read_end.get(), req);
  read_end.reset();  // a download still running gets EPIPE and stops
  download.join();
  // The daemon's answer explains a failed load better than the truncated archive it left.
  if (!exported.ok()) return exported.status();
  if (exported->status == 404) return NotFound("the docker daemon has no image " + req.path);
  if (exported->status != 200) {
    return Unavailable("docker image export: " + docker::ErrorMessage(*exported));
  }
  return loaded;
}

int LoadSubcommand(const Args& args) {
  image::LoadRequest req;
  bool from_docker = false, json = false;
  for (size_t i = 0; i < args.size(); ++i) {
    bool used = false;
    if (Status st = ParseLimitFlag(args, i, req.limits, used); !st.ok()) return FailWith(st);
    if (used) continue;
    if (args[i] == "--tag" && i + 1 < args.size()) {
      AB_ASSIGN_OR_RETURN_FAIL(image::ImageRef ref, image::ParseImageRef(args[++i]));
      req.tag = ref.Canonical();
    } else if (args[i] == "--docker") {
      from_docker = true;
    } else if (args[i] == "--json") {
      json = true;
    } else if (req.path.empty() && !args[i].empty() && args[i][0] != '-') {
      req.path = args[i];
    } else {
      return FailWith(InvalidArgument("image load: unexpected argument \"" + args[i] + "\""));
    }
  }
  if (req.path.empty()) return FailWith(InvalidArgument("usage: agentbox image load FILE|DIR"));
  AB_ASSIGN_OR_RETURN_FAIL(image::ImageStore store, image::ImageStore::Open(StateRootPath()));
  auto loaded = from_docker ? LoadFromDocker(store, req) : image::LoadImages(store, req);
  if (!loaded.ok()) return FailWith(loaded.status());
  nlohmann::json out = nlohmann::json::array();
  for (const image::ImageRecord& r : *loaded) {
    std::string names;
    nlohmann::json familiar = nlohmann::json::array();
    for (const std::string& n : r.names) {
      names += " " + image::FamiliarName(n);
      familiar.push_back(image::FamiliarName(n));
    }
    out.push_back({{"id", r.id}, {"names", familiar}});
    if (!json) WriteStdout(r.id + names + "\n");
  }
  if (json) WriteStdout(out.dump() + "\n");
  return 0;
}

}  // namespace

// The options of every image command, for --help, the man page and completions (each command
// parses its own).
const CommandHelp& ImageHelp() {
  static constexpr FlagDef kFlags[] = {
      {"platform", 0, "OS/ARCH", "pull: the platform of a multi-platform image", "linux/amd64"},
      {"insecure-registry", 0, "HOST", "pull: plain http to this registry (loopback only)"},
      {"timeout", 0, "SECONDS", "pull: give up after this long"},
      {"tag", 0, "NAME", "load: the name the loaded image gets"},
      {"docker", 0, "", "load: from the local docker daemon's store (load --docker NAME)"},
      {"max-layer-size", 0, "SIZE", "pull, load: the most a layer may unpack to", "16G"},
      {"max-layer-entries", 0, "N", "pull, load: the most files a layer may hold", "1000000"},
      {"json", 0, "",
       "pull, load, ls, rm, prune: print JSON (pull: {id}; load: [{id, names}]; ls: the "
       "images; rm: [{ref, removed or untagged}]; prune: {removed, gc})"},
      {"all", 0, "", "prune: every image not in use, not only those without a name"},
      {"help", 'h', "", "show this help"},
  };
  static const CommandHelp help = {
      .name = "image",
      .summary = "images: pull, load, ls, inspect, rm, prune; import for docker",
      .usage =
          "image pull [--platform OS/ARCH] [--insecure-registry HOST] [--json] REF\n"
          "image load [--tag NAME] [--json] FILE|DIR\n"
          "image load --docker [--json] NAME\n"
          "image ls [--json]\n"
          "image inspect REF\n"
          "image rm [--json] REF...\n"
          "image prune [--all] [--json]\n"
          "image import ROOTFS_DIR|TAR NAME[:TAG]",
      .description =
          "The native backend's image store (STATE/images; --image REF uses it): pull from a "
          "registry (OCI distribution API; https, or http on loopback); load a docker save "
          "archive or an OCI image layout (directory or tar), or --docker from the local "
          "daemon's store; ls; inspect one image as JSON; rm a name (the image goes with its "
          "last name; refused while in use); prune images without a name (--all: every image "
          "not in use), then layers no image uses.\n"
          "\n"
          "The docker backend: import makes an image from a root filesystem directory or a tar "
          "file through the Docker Engine API, no registry needed.",
      .flags = kFlags,
      .operands = "word:pull|load|ls|inspect|rm|prune|import path",
  };
  return help;
}

int ImageSubcommand(const Args& args) {
  if (args.empty()) return FailWith(InvalidArgument("usage: agentbox image COMMAND (see --help)"));
  if (args[0] == "-h" || args[0] == "--help" ||
      (args.size() == 2 && (args[1] == "-h" || args[1] == "--help"))) {
    WriteStdout(FormatHelp(ImageHelp()));
    return 0;
  }
  const Args rest(args.begin() + 1, args.end());
  const std::string& cmd = args[0];
  if (cmd == "import") return ImportSubcommand(rest);
  if (cmd == "pull") return PullSubcommand(rest);
  if (cmd == "load") return LoadSubcommand(rest);
  if (cmd == "ls") return ImageLsSubcommand(rest);
  if (cmd == "inspect") return ImageInspectSubcommand(rest);
  if (cmd == "rm") return ImageRmSubcommand(rest);
  if (cmd == "prune") return ImagePruneSubcommand(rest);
  return FailWith(InvalidArgument("image: unknown command \"" + cmd +
                                  "\" (pull, load, ls, inspect, rm, prune, import)"));
}

Status PullIfMissing(const SandboxSpec& spec) {
  if (!spec.image_given || spec.backend != BackendKind::kNative) return OkStatus();
  AB_ASSIGN_OR_RETURN(image::ImageStore store, image::ImageStore::Open(StateRootPath()));
  auto found = store.Resolve(spec.image);
  if (found.ok() || found.status().code() != StatusCode::kNotFound) return found.status();
  registry::PullRequest req;
  req.ref = spec.image;
  auto pulled = registry::Pull(store, req);
  if (!pulled.ok()) {
    return Status(pulled.status().code(),
                  "--pull: could not pull " + spec.image + ": " + pulled.status().message());
  }
  // On stderr: a run's stdout is the command's.
  WriteStderr("pulled " + spec.image + " (" + pulled->id + ")\n");
  return OkStatus();
}

}  // namespace agentbox
