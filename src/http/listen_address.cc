#include "http/listen_address.h"

#include <arpa/inet.h>

#include <charconv>

namespace agentbox {

StatusOr<ListenAddress> ParseListenAddress(std::string_view text) {
  ListenAddress addr;
  if (text.starts_with("unix:")) {
    addr.path = std::string(text.substr(5));
    if (addr.path.empty()) return InvalidArgument("--listen unix:PATH needs a path");
    return addr;
  }
  if (!text.starts_with("tcp:")) {
    return InvalidArgument("--listen: expected unix:PATH or tcp:HOST:PORT, got \"" +
                           std::string(text) + "\"");
  }
  std::string_view rest = text.substr(4);
  size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return InvalidArgument("--listen tcp:HOST:PORT needs a host and a port");
  }
  std::string_view host = rest.substr(0, colon);
  if (host.starts_with('[') && host.ends_with(']')) host = host.substr(1, host.size() - 2);
  std::string_view port = rest.substr(colon + 1);
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535) {
    return InvalidArgument("--listen: bad port \"" + std::string(port) + "\"");
  }
  addr.unix_socket = false;
  addr.host = std::string(host);
  addr.port = static_cast<uint16_t>(value);
  return addr;
}

bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost") return true;
  unsigned char v4[4];
  if (::inet_pton(AF_INET, host.c_str(), v4) == 1) return v4[0] == 127;
  unsigned char v6[16];
  if (::inet_pton(AF_INET6, host.c_str(), v6) != 1) return false;
  static constexpr unsigned char kLoopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  static constexpr unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::equal(v6, v6 + 16, kLoopback)) return true;
  return std::equal(v6, v6 + 12, kMapped) && v6[12] == 127;
}

}  // namespace agentbox
