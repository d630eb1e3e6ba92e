// The event loop of `agentbox serve`: one thread that accepts clients and reads their requests,
// and two bounded worker pools that run the handlers.
//
// An idle keep-alive client costs a socket and about a kilobyte here, not a thread: the loop
// waits on every connection at once (Asio, over epoll). It reads a request's head and body
// under absolute deadlines (slowloris: a client trickling a byte now and then is dropped when
// the deadline passes, however often it sends), checks the head before reading the body
// (dispatch.h: route, Host/Origin/Content-Type, token, size), answers /healthz itself, and
// hands each complete request to a worker. The handler writes its answer on the worker thread
// (blocking, as a command's stream is written while it runs) and gives the connection back to
// the loop for the next request.
//
// Bounds: at most max_connections clients (when full, answers close their connection, and a
// keep-alive client idle for kEvictAfterIdle or more is closed to make room; with none, new
// clients wait in the listen backlog: a busy client is never cut off), at most
// max_per_peer of one peer (a TCP address, or a unix socket client's uid: over it, 429),
// request bodies held at once within body_budget bytes (a request past it waits, unread, for
// room), and worker threads within the pools' sizes.
#pragma once

#include <asio/io_context.hpp>
#include <asio/posix/stream_descriptor.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "app/server/dispatch.h"
#include "app/server/server_context.h"
#include "app/server/worker_pool.h"
#include "http/listen_address.h"
#include "sys/unique_fd.h"

namespace agentbox {

// At the connection cap, a keep-alive client idle this long may be closed for a new one. Not
// sooner: a client that just got its answer is about to send its next request on the
// connection, and closing it then would fail that request.
inline constexpr std::chrono::seconds kEvictAfterIdle{2};

struct LoopSettings {
  int max_connections = 1024;
  int max_per_peer = 1024;
  size_t long_workers = 256;  // exec, MCP tool calls, verify
  size_t short_workers = 32;  // everything else
  std::chrono::milliseconds head_timeout{10000};
  std::chrono::milliseconds body_timeout{60000};
  std::chrono::milliseconds idle_timeout{60000};
  uint64_t body_budget = 256u << 20;
};

class ConnectionLoop;

// One client connection, on the loop thread except while a worker runs its request's handler.
class ClientConnection : public std::enable_shared_from_this<ClientConnection> {
 public:
  ClientConnection(ConnectionLoop& loop, int fd, std::string peer);
  ~ClientConnection();
  ClientConnection(const ClientConnection&) = delete;
  ClientConnection& operator=(const ClientConnection&) = delete;

  void Start();                                                    // reads the first request
  void Refuse(int status, const Status& why, HeaderList headers);  // answers, then closes
  void StartBody(uint64_t granted);  // the loop granted the body's bytes
  void CloseIfIdle();                // shutdown, or making room
  void Close();
  const std::string& peer() const { return peer_; }

  std::list<ClientConnection*>::iterator idle_pos;  // the loop's, while idle
  std::chrono::steady_clock::time_point idle_since;

 private:
  // kHandler: a worker has it; kAnswering: the loop writes an answer it made itself.
  enum class Phase { kIdle, kHead, kWaitBudget, kBody, kHandler, kAnswering, kClosing, kClosed };

  void BeginIdle();
  void WaitReadable();
  void OnReadable();
  void Process();
  void OnHead(size_t end);
  void ProcessBody();
  void Dispatch();
  void OnHandlerDone(bool keep_alive);
  void ReplyInline(int status, std::string_view content_type, std::string_view body);
  void Reject(int status, const Status& why, HeaderList headers = {});
  void LogAnswered(int status);  // the access-log line of an answer made without a handler
  void Send(std::string bytes, std::function<void()> then);
  void TrySend();
  void Linger();
  void Arm(std::chrono::milliseconds after);
  void Disarm();
  void OnDeadline();
  void ReleaseBudget();
  size_t WantBytes() const;

  ConnectionLoop& loop_;
  asio::posix::stream_descriptor socket_;
  asio::steady_timer timer_;
  const std::string peer_;
  Phase phase_ = Phase::kHead;
  unsigned timer_generation_ = 0;  // a timer's callback for an earlier deadline does nothing
  bool in_idle_list_ = false;
  bool peer_closed_ = false;  // EOF read: serve what is buffered, then close
  std::string in_;            // bytes read, not yet consumed
  HttpRequest request_;
  Admitted admitted_;
  std::optional<ChunkedDecoder> chunked_;
  uint64_t budget_ = 0;  // body bytes reserved from the loop's budget
  std::string out_;      // an answer the loop is writing
  size_t out_sent_ = 0;
  std::function<void()> after_send_;
};

class ConnectionLoop {
 public:
  ConnectionLoop(ServerContext& ctx, LoopSettings settings);
  ~ConnectionLoop();

  // Serves on `listener` until `signal_fd` turns readable (SIGTERM, SIGINT), then drains: stops
  // accepting (a unix socket is unlinked), closes idle connections, lets requests in flight
  // finish for kDrainGraceSeconds, then cancels their commands through `abort_fd`. Returns
  // when every connection is closed.
  void Run(UniqueFd listener, const ListenAddress& address, UniqueFd signal_fd, int abort_fd);

  // For ClientConnection, on the loop thread.
  ServerContext& ctx() { return ctx_; }
  const LoopSettings& settings() const { return settings_; }
  asio::io_context& io() { return io_; }
  std::vector<char>& read_buffer() { return read_buffer_; }
  bool draining() const { return draining_; }
  // At the connection cap answers close their connection, so that clients waiting in the
  // backlog get their turn.
  bool at_capacity() const {
    return connections_.size() >= static_cast<size_t>(settings_.max_connections);
  }
  void BecameIdle(ClientConnection* conn);
  void LeftIdle(ClientConnection* conn);
  // True when `bytes` were reserved; else `conn` waits and StartBody(bytes) is called once they
  // are.
  bool ReserveBody(uint64_t bytes, const std::shared_ptr<ClientConnection>& conn);
  void ReleaseBody(uint64_t bytes);
  bool Submit(bool long_pool, std::function<void()> job);
  void Closed(ClientConnection* conn);

 private:
  void WaitAcceptable();
  void PauseAccepting();
  void OnAcceptable();
  void Admit(int fd);
  bool EvictIdle();
  void BeginDrain();
  void CheckDrained();

  ServerContext& ctx_;
  const LoopSettings settings_;
  asio::io_context io_{1};
  std::optional<asio::posix::stream_descriptor> listener_;
  std::optional<asio::posix::stream_descriptor> signals_;
  asio::steady_timer pause_timer_{io_};
  asio::steady_timer evict_timer_{io_};
  asio::steady_timer grace_timer_{io_};
  ListenAddress address_;
  int abort_fd_ = -1;
  bool tcp_ = false;
  bool accept_armed_ = false;   // a wait on the listener is pending
  bool accept_paused_ = false;  // at the connection cap
  bool draining_ = false;
  std::vector<char> read_buffer_;
  std::unordered_map<ClientConnection*, std::shared_ptr<ClientConnection>> connections_;
  std::unordered_map<std::string, int> per_peer_;
  std::list<ClientConnection*> idle_;  // oldest first
  uint64_t body_reserved_ = 0;
  std::deque<std::pair<std::shared_ptr<ClientConnection>, uint64_t>> body_waiters_;
  WorkerPool long_pool_;
  WorkerPool short_pool_;
};

}  // namespace agentbox
