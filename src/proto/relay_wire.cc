#include "proto/relay_wire.h"

#include <charconv>

namespace agentbox {
namespace {

// A decimal number filling all of `text`, at most `max`.
std::optional<uint64_t> Number(std::string_view text, uint64_t max) {
  uint64_t value = 0;
  // Canonical only: no sign, no leading zero (each value has one spelling).
  if (text.empty() || text.size() > 20 || (text[0] == '0' && text.size() > 1)) return std::nullopt;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > max) return std::nullopt;
  return value;
}

}  // namespace

std::optional<RelayRequest> ParseRelayRequest(std::string_view line) {
  if (line == "listen") return RelayRequest{RelayRequest::Kind::kListen, 0};
  constexpr std::string_view kPark = "park ";
  if (line.substr(0, kPark.size()) != kPark) return std::nullopt;
  auto id = Number(line.substr(kPark.size()), UINT64_MAX);
  if (!id) return std::nullopt;
  return RelayRequest{RelayRequest::Kind::kPark, *id};
}

std::string RelayParkLine(uint64_t id) { return "park " + std::to_string(id) + "\n"; }

std::string RelayListenAnswer(uint64_t id, uint16_t port) {
  return "ok " + std::to_string(id) + " " + std::to_string(port) + "\n";
}

std::optional<std::pair<uint64_t, uint16_t>> ParseRelayListenAnswer(std::string_view line) {
  constexpr std::string_view kOk = "ok ";
  if (line.substr(0, kOk.size()) != kOk) return std::nullopt;
  line.remove_prefix(kOk.size());
  const size_t space = line.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  auto id = Number(line.substr(0, space), UINT64_MAX);
  auto port = Number(line.substr(space + 1), 65535);
  if (!id || !port || *port == 0) return std::nullopt;
  return std::make_pair(*id, static_cast<uint16_t>(*port));
}

}  // namespace agentbox
