#include "proc/dns_catcher.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "proto/dns_message.h"

namespace agentbox {
namespace {

constexpr uint16_t kDnsPort = 53;
constexpr size_t kMaxTcpQuery = 4096;  // a question is at most ~270 bytes; EDNS adds little
constexpr int kPerCall = 16;

StatusOr<UniqueFd> Bound(int type) {
  UniqueFd fd(::socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  struct sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(kDnsPort);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd.get(), reinterpret_cast<struct sockaddr*>(&addr), sizeof(addr)) != 0) {
    return ErrnoStatus(std::string("bind 127.0.0.1:53/") + (type == SOCK_DGRAM ? "udp" : "tcp"));
  }
  if (type == SOCK_STREAM && ::listen(fd.get(), 16) != 0) return ErrnoStatus("listen on :53");
  return fd;
}

}  // namespace

StatusOr<std::unique_ptr<DnsCatcher>> DnsCatcher::Open() {
  auto catcher = std::unique_ptr<DnsCatcher>(new DnsCatcher());
  AB_ASSIGN_OR_RETURN(catcher->udp_, Bound(SOCK_DGRAM));
  AB_ASSIGN_OR_RETURN(catcher->tcp_, Bound(SOCK_STREAM));
  return catcher;
}

std::vector<int> DnsCatcher::fds() const {
  std::vector<int> out = {udp_.get(), tcp_.get()};
  for (const TcpClient& c : clients_) out.push_back(c.fd.get());
  return out;
}

void DnsCatcher::OnReadable(int fd) {
  if (fd == udp_.get()) return ServeUdp();
  if (fd == tcp_.get()) return AcceptTcp();
  for (size_t i = 0; i < clients_.size(); ++i) {
    if (clients_[i].fd.get() == fd) return ReadTcp(i);
  }
}

std::string DnsCatcher::Answer(std::string_view message) {
  auto query = ParseDnsQuery(message);
  if (!query) return "";
  ++caught_;
  names_.push_back(std::move(query->name));
  if (names_.size() > kKeptNames) names_.pop_front();
  return DnsRefusedAnswer(message, *query);
}

void DnsCatcher::ServeUdp() {
  char buf[1500];
  for (int i = 0; i < kPerCall; ++i) {
    struct sockaddr_storage from = {};
    socklen_t len = sizeof(from);
    const ssize_t n = ::recvfrom(udp_.get(), buf, sizeof(buf), MSG_DONTWAIT,
                                 reinterpret_cast<struct sockaddr*>(&from), &len);
    if (n < 0) return;
    const std::string answer = Answer(std::string_view(buf, static_cast<size_t>(n)));
    if (answer.empty()) continue;
    (void)::sendto(udp_.get(), answer.data(), answer.size(), MSG_DONTWAIT | MSG_NOSIGNAL,
                   reinterpret_cast<struct sockaddr*>(&from), len);
  }
}

void DnsCatcher::AcceptTcp() {
  for (int i = 0; i < kPerCall; ++i) {
    UniqueFd fd(::accept4(tcp_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd.valid()) return;
    if (clients_.size() >= kMaxTcpClients) clients_.erase(clients_.begin());  // the oldest goes
    clients_.push_back({std::move(fd), {}});
  }
}

void DnsCatcher::ReadTcp(size_t index) {
  TcpClient& c = clients_[index];
  char buf[1024];
  const ssize_t n = ::recv(c.fd.get(), buf, sizeof(buf), MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  bool done = n <= 0;
  if (n > 0) c.data.append(buf, static_cast<size_t>(n));
  if (!done && c.data.size() >= 2) {
    const size_t want = (static_cast<uint8_t>(c.data[0]) << 8 | static_cast<uint8_t>(c.data[1]));
    if (want + 2 > kMaxTcpQuery) {
      done = true;
    } else if (c.data.size() >= want + 2) {
      const std::string answer = Answer(std::string_view(c.data).substr(2, want));
      if (!answer.empty()) {
        const std::string framed =
            std::string{static_cast<char>(answer.size() >> 8), static_cast<char>(answer.size())} +
            answer;
        (void)::send(c.fd.get(), framed.data(), framed.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      }
      done = true;  // one query per connection: what resolvers send
    }
  }
  if (done) clients_.erase(clients_.begin() + static_cast<std::ptrdiff_t>(index));
}

std::vector<std::string> DnsCatcher::NamesSince(uint64_t mark, uint64_t* lost) const {
  const uint64_t first_kept = caught_ - names_.size();
  *lost = mark < first_kept ? first_kept - mark : 0;
  std::vector<std::string> out;
  for (uint64_t i = std::max(mark, first_kept); i < caught_; ++i) {
    const std::string& name = names_[static_cast<size_t>(i - first_kept)];
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

}  // namespace agentbox
