// `agentbox serve --listen`: where the server listens, and whether that is loopback only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace agentbox {

struct ListenAddress {
  bool unix_socket = true;
  std::string path;  // unix: the socket's path
  std::string host;  // tcp: "127.0.0.1", "::1", "localhost", "0.0.0.0", ...
  uint16_t port = 0;
  // Made by someone else and handed over (systemd's socket activation): serve neither binds
  // nor, at its end, unlinks it.
  bool inherited = false;
};

// "unix:PATH" or "tcp:HOST:PORT" (an IPv6 host in brackets: "tcp:[::1]:8080").
StatusOr<ListenAddress> ParseListenAddress(std::string_view text);

// True for "localhost", 127.0.0.0/8 and ::1 (plain or IPv4-mapped): reachable from this host
// only, so serving there without tokens exposes nothing a local user could not do anyway.
bool IsLoopbackHost(const std::string& host);

}  // namespace agentbox
