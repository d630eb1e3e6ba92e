// SendAll: every byte of a buffer on a socket, for the writers that must not stop half-way (a
// protocol frame, an archive streamed to an upload).
#pragma once

#include <cstddef>
#include <string>

#include "base/status.h"

namespace agentbox::sys {

// send(2) of [data, data + size) until all of it is sent, EINTR retried, MSG_NOSIGNAL (a peer
// that went away is EPIPE, never a SIGPIPE). Fails with "what: strerror".
Status SendAll(int sock, const char* data, size_t size, const std::string& what);

}  // namespace agentbox::sys
