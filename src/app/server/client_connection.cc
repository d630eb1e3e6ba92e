// ClientConnection: one client's requests, read on the event loop (connection_loop.h).
#include <sys/socket.h>

#include <asio/post.hpp>
#include <cerrno>

#include "app/server/connection_loop.h"
#include "spec/units.h"

namespace agentbox {
namespace {

// How long an answer the loop writes, and the lingering read after it, may take.
constexpr std::chrono::milliseconds kCloseTimeout{5000};
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

std::string Seconds(std::chrono::milliseconds d) {
  return FormatSeconds(static_cast<double>(d.count()) / 1000);
}

}  // namespace

ClientConnection::ClientConnection(ConnectionLoop& loop, int fd, std::string peer)
    : loop_(loop), socket_(loop.io(), fd), timer_(loop.io()), peer_(std::move(peer)) {}

ClientConnection::~ClientConnection() = default;

void ClientConnection::Start() {
  // The first request's head deadline runs from the connect: a client that connects and sends
  // nothing holds its slot no longer than one that trickles.
  phase_ = Phase::kHead;
  Arm(loop_.settings().head_timeout);
  // Until its first byte it is as idle as a keep-alive client between requests: at the cap,
  // one silent that long may be closed to make room.
  loop_.BecameIdle(this);
  in_idle_list_ = true;
  WaitReadable();
}

void ClientConnection::BeginIdle() {
  phase_ = Phase::kIdle;
  if (!in_.empty()) {
    // A pipelined next request is already here.
    phase_ = Phase::kHead;
    Arm(loop_.settings().head_timeout);
    return Process();
  }
  if (peer_closed_) return Close();
  loop_.BecameIdle(this);
  in_idle_list_ = true;
  Arm(loop_.settings().idle_timeout);
  WaitReadable();
}

void ClientConnection::WaitReadable() {
  if (phase_ == Phase::kClosed) return;
  socket_.async_wait(asio::posix::descriptor_base::wait_read,
                     [self = shared_from_this()](const asio::error_code& ec) {
                       if (!ec) self->OnReadable();
                     });
}

// What one read may take: the head's limit, the rest of a Content-Length body, a chunk of a
// chunked one. Never more, so a client cannot make the loop hold more than its request.
size_t ClientConnection::WantBytes() const {
  const size_t buffer = loop_.read_buffer().size();
  if (phase_ == Phase::kBody && request_.content_length && *request_.content_length > in_.size()) {
    return std::min<uint64_t>(buffer, *request_.content_length - in_.size());
  }
  if (phase_ == Phase::kHead || phase_ == Phase::kIdle) {
    return std::min(buffer, kMaxRequestHeadBytes + 5 - std::min(in_.size(), kMaxRequestHeadBytes));
  }
  return buffer;
}

void ClientConnection::OnReadable() {
  if (phase_ == Phase::kClosed || phase_ == Phase::kHandler || phase_ == Phase::kWaitBudget ||
      phase_ == Phase::kAnswering) {
    return;
  }
  std::vector<char>& buf = loop_.read_buffer();
  ssize_t n;
  do
    n = ::recv(socket_.native_handle(), buf.data(),
               phase_ == Phase::kClosing ? buf.size() : WantBytes(), 0);
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return WaitReadable();
    return Close();
  }
  if (phase_ == Phase::kClosing) {
    // Lingering after a refusal: the unread request is drained so the answer is not reset.
    if (n == 0) return Close();
    return WaitReadable();
  }
  if (n == 0) {
    peer_closed_ = true;
  } else {
    in_.append(buf.data(), static_cast<size_t>(n));
  }
  if (in_idle_list_ && !in_.empty()) {
    loop_.LeftIdle(this);
    in_idle_list_ = false;
    if (phase_ == Phase::kIdle) {
      phase_ = Phase::kHead;
      Arm(loop_.settings().head_timeout);
    }
  }
  Process();
}

void ClientConnection::Process() {
  switch (phase_) {
    case Phase::kIdle:
      if (peer_closed_) return Close();
      return WaitReadable();
    case Phase::kHead: {
      const size_t end = FindHeadEnd(in_);
      if (end != std::string::npos && end <= kMaxRequestHeadBytes + 4) return OnHead(end);
      if (in_.size() > kMaxRequestHeadBytes) {
        return Reject(431, ResourceExhausted("request head too large"));
      }
      if (peer_closed_) return Close();  // gone mid-head: nobody to answer
      return WaitReadable();
    }
    case Phase::kBody:
      return ProcessBody();
    default:
      return;
  }
}

void ClientConnection::OnHead(size_t end) {
  auto parsed = ParseRequestHead(std::string_view(in_).substr(0, end));
  in_.erase(0, end);
  if (!parsed.ok()) {
    const bool too_big = parsed.status().code() == StatusCode::kResourceExhausted;
    return Reject(too_big ? 431 : 400, parsed.status());
  }
  request_ = std::move(*parsed);
  // While draining, every answer says "Connection: close", so clients go elsewhere; at the
  // connection cap, so that the clients waiting to connect get their turn.
  if (loop_.draining() || loop_.at_capacity()) request_.keep_alive = false;
  auto admitted = AdmitRequest(loop_.ctx(), request_);
  if (auto* refused = std::get_if<Rejection>(&admitted)) {
    return Reject(refused->status, refused->why, std::move(refused->headers));
  }
  admitted_ = std::move(std::get<Admitted>(admitted));
  if (admitted_.match.route->id == RouteId::kHealthz) {
    // Answered here, by the loop: health is the loop's, and no busy worker can delay it.
    return ReplyInline(200, "text/plain", "ok\n");
  }
  const bool has_body = request_.chunked || request_.content_length.value_or(0) > 0;
  if (!has_body) return Dispatch();
  Disarm();  // waiting for room in the body budget is the server's doing, not the client's
  const uint64_t bytes =
      request_.chunked ? MaxBodyBytes(*admitted_.match.route) : *request_.content_length;
  phase_ = Phase::kWaitBudget;
  if (loop_.ReserveBody(bytes, shared_from_this())) StartBody(bytes);
}

void ClientConnection::StartBody(uint64_t granted) {
  if (phase_ != Phase::kWaitBudget) return loop_.ReleaseBody(granted);  // closed meanwhile
  budget_ = granted;
  phase_ = Phase::kBody;
  Arm(loop_.settings().body_timeout);
  if (request_.chunked) chunked_.emplace(MaxBodyBytes(*admitted_.match.route));
  if (request_.expect_continue) {
    return Send(std::string(kContinue), [this] { Process(); });
  }
  Process();
}

void ClientConnection::ProcessBody() {
  if (chunked_) {
    auto used = chunked_->Feed(in_, &request_.body);
    if (!used.ok()) {
      const bool too_big = used.status().code() == StatusCode::kResourceExhausted;
      return Reject(too_big ? 413 : 400, used.status());
    }
    in_.erase(0, *used);
    if (chunked_->done()) return Dispatch();
  } else {
    const uint64_t want = *request_.content_length;
    if (in_.size() >= want) {
      if (in_.size() == want) {
        request_.body = std::move(in_);
        in_.clear();
      } else {
        request_.body.assign(in_, 0, want);
        in_.erase(0, want);
      }
      return Dispatch();
    }
  }
  if (peer_closed_) return Close();  // gone mid-body
  WaitReadable();
}

void ClientConnection::Dispatch() {
  phase_ = Phase::kHandler;
  Disarm();
  chunked_.reset();
  // A WebSocket's frames may follow its head at once: they are its handler's to read.
  if (admitted_.match.route->id == RouteId::kExecTty) request_.body = std::exchange(in_, {});
  const bool long_pool = RunsLong(request_, *admitted_.match.route);
  auto self = shared_from_this();
  const bool queued = loop_.Submit(long_pool, [self] {
    // On a worker: the loop does not touch this connection until OnHandlerDone.
    const bool keep_alive = RunHandler(self->loop_.ctx(), self->socket_.native_handle(),
                                       self->request_, self->admitted_);
    asio::post(self->loop_.io(), [self, keep_alive] { self->OnHandlerDone(keep_alive); });
  });
  if (!queued) {
    phase_ = Phase::kAnswering;
    Reject(503, Unavailable("the server is out of threads; retry later"));
  }
}

void ClientConnection::OnHandlerDone(bool keep_alive) {
  ReleaseBudget();
  request_ = HttpRequest();
  admitted_ = Admitted();
  if (!keep_alive || loop_.draining()) return Close();
  BeginIdle();
}

void ClientConnection::ReplyInline(int status, std::string_view content_type,
                                   std::string_view body) {
  loop_.ctx().metrics.Whole().RecordRequest(status);
  LogAnswered(status);
  const bool keep_alive = request_.keep_alive && !loop_.draining();
  std::string out =
      ResponseHead(status, {{"Content-Type", std::string(content_type)}}, body.size(), keep_alive);
  out.append(body);
  phase_ = Phase::kAnswering;  // nothing is read while the answer goes out
  Disarm();
  Arm(kCloseTimeout);
  Send(std::move(out), [this, keep_alive] {
    request_ = HttpRequest();
    admitted_ = Admitted();
    if (keep_alive) return BeginIdle();
    Close();
  });
}

// An answer made here, without a handler (healthz, a refusal at the door): its access-log line
// says as much of the request as was read. A caller not yet authenticated is null.
void ClientConnection::LogAnswered(int status) {
  AccessLog* log = loop_.ctx().access_log.get();
  if (!log) return;
  log->Write(AccessRecord{admitted_.caller.tenant, request_.method, request_.path, "", status, 0,
                          nlohmann::json::object()});
}

void ClientConnection::Refuse(int status, const Status& why, HeaderList headers) {
  Reject(status, why, std::move(headers));
}

void ClientConnection::Reject(int status, const Status& why, HeaderList headers) {
  if (phase_ == Phase::kClosed || phase_ == Phase::kClosing) return;
  if (in_idle_list_) {
    loop_.LeftIdle(this);
    in_idle_list_ = false;
  }
  loop_.ctx().metrics.Whole().RecordRequest(status);
  LogAnswered(status);
  if (status == 429) headers.emplace_back("Retry-After", "1");
  phase_ = Phase::kClosing;
  ReleaseBudget();
  Arm(kCloseTimeout);
  Send(ErrorResponse(status, why, std::move(headers), /*keep_alive=*/false), [this] { Linger(); });
}

// After a refusal the client may still be sending its request: closing now would make the
// kernel answer its bytes with a reset, which can destroy our answer before the client reads
// it. So: no more writes, read and drop until its EOF (or kCloseTimeout), then close.
void ClientConnection::Linger() {
  ::shutdown(socket_.native_handle(), SHUT_WR);
  WaitReadable();
}

void ClientConnection::Send(std::string bytes, std::function<void()> then) {
  out_ = std::move(bytes);
  out_sent_ = 0;
  after_send_ = std::move(then);
  TrySend();
}

void ClientConnection::TrySend() {
  if (phase_ == Phase::kClosed) return;
  while (out_sent_ < out_.size()) {
    ssize_t n = ::send(socket_.native_handle(), out_.data() + out_sent_, out_.size() - out_sent_,
                       MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      out_sent_ += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      socket_.async_wait(asio::posix::descriptor_base::wait_write,
                         [self = shared_from_this()](const asio::error_code& ec) {
                           if (!ec) self->TrySend();
                         });
      return;
    }
    return Close();  // the client is gone
  }
  std::string().swap(out_);
  auto then = std::move(after_send_);
  after_send_ = nullptr;
  if (then) then();
}

void ClientConnection::Arm(std::chrono::milliseconds after) {
  const unsigned generation = ++timer_generation_;
  timer_.expires_after(after);
  timer_.async_wait([self = shared_from_this(), generation](const asio::error_code& ec) {
    if (!ec && generation == self->timer_generation_) self->OnDeadline();
  });
}

void ClientConnection::Disarm() {
  ++timer_generation_;
  timer_.cancel();
}

void ClientConnection::OnDeadline() {
  const LoopSettings& s = loop_.settings();
  switch (phase_) {
    case Phase::kHead:
      if (in_.empty() && !peer_closed_) return Close();  // never said anything: just go
      return Reject(408, InvalidArgument("the request head did not arrive within " +
                                         Seconds(s.head_timeout) + " s"));
    case Phase::kBody:
      return Reject(408, InvalidArgument("the request body did not arrive within " +
                                         Seconds(s.body_timeout) + " s"));
    case Phase::kIdle:
    case Phase::kClosing:
    case Phase::kAnswering:  // an answer the client does not read
      return Close();
    default:
      return;
  }
}

void ClientConnection::ReleaseBudget() {
  if (budget_ == 0) return;
  loop_.ReleaseBody(budget_);
  budget_ = 0;
}

void ClientConnection::CloseIfIdle() {
  if (phase_ == Phase::kIdle || (phase_ == Phase::kHead && in_.empty())) Close();
}

void ClientConnection::Close() {
  if (phase_ == Phase::kClosed) return;
  auto keep = shared_from_this();  // the loop's reference goes below; the object must outlive us
  phase_ = Phase::kClosed;
  Disarm();
  if (in_idle_list_) {
    loop_.LeftIdle(this);
    in_idle_list_ = false;
  }
  ReleaseBudget();
  asio::error_code ignored;
  socket_.close(ignored);
  loop_.Closed(this);
}

}  // namespace agentbox
