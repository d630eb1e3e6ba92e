// `agentbox image import ROOTFS_DIR|TAR NAME`: an image for the docker backend, no registry.
#include "app/cli.h"
#include "docker/engine_client.h"
#include "docker/images.h"

namespace agentbox {

int ImageSubcommand(const Args& args) {
  constexpr const char* kUsage =
      "Usage: agentbox image import ROOTFS_DIR|TAR NAME[:TAG]\n\n"
      "Makes a docker image from a root filesystem directory (archived on the fly) or a tar\n"
      "file, through the Docker Engine API (DOCKER_HOST or /var/run/docker.sock). No registry\n"
      "is needed. The image carries the label io.agentbox.managed=1.\n";
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    if (args.empty()) return FailWith(InvalidArgument("usage: agentbox image import SOURCE NAME"));
    WriteStdout(kUsage);
    return 0;
  }
  if (args[0] != "import") {
    return FailWith(InvalidArgument("image: unknown subcommand \"" + args[0] + "\" (want import)"));
  }
  if (args.size() == 2 && (args[1] == "-h" || args[1] == "--help")) {
    WriteStdout(kUsage);
    return 0;
  }
  if (args.size() != 3)
    return FailWith(InvalidArgument("usage: agentbox image import SOURCE NAME"));
  auto client = docker::EngineClient::FromEnvironment();
  if (!client.ok()) return FailWith(client.status());
  if (Status st = docker::ImportImage(*client, args[1], args[2]); !st.ok()) return FailWith(st);
  WriteStdout(args[2] + "\n");
  return 0;
}

}  // namespace agentbox
