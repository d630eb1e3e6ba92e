// systemd's socket activation (sd_listen_fds(3), without libsystemd): the listening socket a
// .socket unit (or systemd-socket-activate) made and handed to this process as fd 3, announced
// by LISTEN_PID (this process) and LISTEN_FDS (how many).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"
#include "sys/unique_fd.h"

namespace agentbox {

struct ActivatedSocket {
  UniqueFd fd;  // listening, SOCK_STREAM, close-on-exec from now on
  bool unix_socket = true;
  std::string path;  // unix: its path ("" for an abstract or unnamed one)
  std::string host;  // tcp: the numeric address it is bound to ("::1", "127.0.0.1")
  uint16_t port = 0;
};

// nullopt when nothing was handed over (no LISTEN_PID, or another process's). Takes the
// socket: LISTEN_PID, LISTEN_FDS and LISTEN_FDNAMES are removed from the environment, so no
// process started from here believes them meant for it. kInvalidArgument for more than one
// socket, or one that is not a listening stream socket of AF_UNIX, AF_INET or AF_INET6.
StatusOr<std::optional<ActivatedSocket>> TakeActivatedSocket();

}  // namespace agentbox
