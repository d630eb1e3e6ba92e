// The listening side of `agentbox serve`: a unix or TCP socket served by the event loop of
// connection_loop.h, and a graceful stop on SIGTERM / SIGINT.
#pragma once

#include "app/server/server_context.h"
#include "base/status.h"
#include "http/listen_address.h"
#include "sys/unique_fd.h"

namespace agentbox {

// Seconds in-flight requests get to finish after SIGTERM before their commands are cancelled.
inline constexpr int kDrainGraceSeconds = 10;

// Blocks SIGTERM and SIGINT in the calling thread (and so in every thread it starts later),
// to be read from a signalfd by RunServer. Call before any thread exists.
Status BlockStopSignals();

// Listens on `address` (a unix socket is made 0600, replacing a stale one), then serves until
// SIGTERM or SIGINT: stops accepting, lets requests in flight finish for kDrainGraceSeconds,
// cancels the commands still running, and returns. Errors only before serving starts.
// Raises the soft fd limit to the hard one; the connection cap is ctx.config's max_connections,
// at most what the fds allow (see ConnectionLoop for what happens at the caps).
// `inherited`: a listening socket made by systemd (socket_activation.h) for `address`, used
// instead of binding one.
Status RunServer(ServerContext& ctx, const ListenAddress& address, UniqueFd inherited = {});

}  // namespace agentbox
