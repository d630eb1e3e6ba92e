// The request loop of one client connection (dispatch.cc); http_server.cc runs one per thread.
#pragma once

#include <atomic>

#include "app/server/server_context.h"
#include "sys/unique_fd.h"

namespace agentbox {

// Serves requests on `fd` until the client closes, an error ends the connection, or the server
// drains (`draining`; wake_fd turns readable then so an idle connection stops waiting).
void ServeConnection(ServerContext& ctx, UniqueFd fd, int wake_fd,
                     const std::atomic<bool>& draining);

}  // namespace agentbox
