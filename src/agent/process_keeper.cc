#include "agent/process_keeper.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <list>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "agent/control_channel.h"
#include "agent/output_ring.h"
#include "proc/outcome.h"
#include "proto/agent_protocol.h"
#include "sys/syscalls.h"

namespace agentbox {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

// What `ps` shows for a keeper (ping counts "agentbox-exec" handlers as busy; a background
// process keeps no sandbox busy).
constexpr const char* kKeeperName = "agentbox-bg";
// How long the detached exec's answer waits for the command to be executed: a command that
// cannot be (not found, a bad cwd) is answered with its result, as a plain exec would be.
constexpr int kExecutedWaitMs = 10000;
// Per client: output framed but not yet taken by its socket. A follower that does not read
// holds this much, never more: it misses what the ring drops meanwhile.
constexpr size_t kClientBacklog = 64 * 1024;
constexpr uint64_t kPiece = 64 * 1024;
// A proc_stdin's data arrives right after its request (the host sends it whole); a peer that
// stalls mid-way is given up on after this.
constexpr int kStdinReadTimeoutSeconds = 10;

// What the command's thread and the clients' thread share.
struct Shared {
  explicit Shared(uint64_t capacity, ProcessInfo process)
      : ring(capacity), info(std::move(process)) {}
  std::mutex mutex;
  OutputRing ring;
  ProcessInfo info;  // output_bytes/dropped_bytes follow the ring
  bool finished = false;
  UniqueFd wake{::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)};

  void Wake() {
    uint64_t one = 1;
    ssize_t ignored = ::write(wake.get(), &one, sizeof(one));
    (void)ignored;
  }
};

json Answer(const ProcessInfo& info) {
  return {{"ok", true}, {"process", ProcessInfoToWire(info)}};
}

json ErrorAnswer(const Status& status) {
  return {{"ok", false}, {"code", StatusCodeName(status.code())}, {"error", status.message()}};
}

void SendAnswer(int fd, const json& answer) {
  (void)WriteFrame(fd, FrameType::kResponse, answer.dump());
}

// The command was executed (its error pipe's EOF), or could not be (a ChildError record).
std::optional<ChildError> AwaitExecuted(const SupervisedSandbox& box) {
  struct pollfd pfd = {box.error_read.get(), POLLIN, 0};
  int n;
  do n = ::poll(&pfd, 1, kExecutedWaitMs);
  while (n < 0 && errno == EINTR);
  if (n <= 0) return std::nullopt;  // still starting: answered as running
  ChildError record;
  if (::read(box.error_read.get(), &record, sizeof(record)) != sizeof(record)) return std::nullopt;
  record.detail[sizeof(record.detail) - 1] = '\0';
  return record;
}

struct Client {
  enum class Kind { kLogs, kWait };
  UniqueFd fd;
  Kind kind = Kind::kLogs;
  bool follow = false;
  uint64_t from = 0;
  uint64_t cursor = 0;
  std::optional<Clock::time_point> deadline;  // kWait: answered then, even if still running
  std::string backlog;
  bool answered = false;  // the response is in the backlog: close once it has gone
};

class Server {
 public:
  Server(Shared& shared, int control, SupervisedSandbox& box, UniqueFd stdin_write)
      : shared_(shared), control_(control), box_(box), stdin_(std::move(stdin_write)) {
    if (stdin_.valid()) ::fcntl(stdin_.get(), F_SETFL, O_NONBLOCK);
  }

  [[noreturn]] void Run() {
    for (;;) {
      std::vector<struct pollfd> pfds = {{control_, POLLIN, 0}, {shared_.wake.get(), POLLIN, 0}};
      bool feed_stdin = stdin_.valid() && !pending_stdin_.empty();
      pfds.push_back({feed_stdin ? stdin_.get() : -1, POLLOUT, 0});
      for (const Client& c : clients_) {
        pfds.push_back(
            {c.fd.get(), static_cast<short>(POLLIN | (c.backlog.empty() ? 0 : POLLOUT)), 0});
      }
      int n = ::poll(pfds.data(), pfds.size(), NextDeadlineMs());
      if (n < 0 && errno != EINTR) ::_exit(1);
      if (n > 0 && pfds[0].revents) OnControl();
      if (n > 0 && pfds[1].revents) {
        uint64_t count;
        ssize_t ignored = ::read(shared_.wake.get(), &count, sizeof(count));
        (void)ignored;
      }
      if (n > 0 && pfds[2].revents) FeedStdin();
      size_t i = 3;
      for (Client& c : clients_) {
        if (i < pfds.size() && (pfds[i].revents & (POLLIN | POLLHUP | POLLERR))) CheckHangUp(c);
        ++i;
      }
      Progress();
    }
  }

 private:
  void OnControl() {
    json message;
    UniqueFd conn;
    // PID 1 let us go (the oldest exited process, making room), or is gone: the sandbox ends.
    if (!ReceiveControl(control_, &message, &conn)) ::_exit(0);
    if (!conn.valid() || !message.contains("request") || !message["request"].is_object()) return;
    OnRequest(message["request"], std::move(conn));
  }

  void OnRequest(const json& request, UniqueFd conn) {
    std::string op = request.value("op", "");
    if (op == "proc_logs") {
      Client c;
      c.kind = Client::Kind::kLogs;
      c.follow = request.value("follow", false);
      c.from = c.cursor = request.value("since", uint64_t{0});
      c.fd = std::move(conn);
      return AddClient(std::move(c));
    }
    if (op == "proc_wait") {
      Client c;
      c.kind = Client::Kind::kWait;
      uint64_t timeout_ms = request.value("timeout_ms", uint64_t{0});
      if (timeout_ms > 0) c.deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
      c.fd = std::move(conn);
      return AddClient(std::move(c));
    }
    if (op == "proc_kill") return SendAnswer(conn.get(), Kill(request.value("signal", SIGTERM)));
    if (op == "proc_stdin") return SendAnswer(conn.get(), WriteStdin(request, conn.get()));
    std::lock_guard<std::mutex> lock(shared_.mutex);
    SendAnswer(conn.get(), op == "proc_info" ? Answer(shared_.info)
                                             : ErrorAnswer(InvalidArgument("unknown op " + op)));
  }

  void AddClient(Client c) {
    ::fcntl(c.fd.get(), F_SETFL, O_NONBLOCK);
    clients_.push_back(std::move(c));
  }

  // SIGKILL ends the whole tree (the init's death takes it along); any other signal goes to the
  // command's process group, forwarded by its init (proc/command_steps.cc), as a terminal's
  // Ctrl-C reaches a foreground job.
  json Kill(int signal) {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    if (shared_.finished) {
      return ErrorAnswer(InvalidArgument("process " + shared_.info.id + " has already exited"));
    }
    int rc = box_.pidfd.valid() ? sys::PidfdSendSignal(box_.pidfd.get(), signal)
                                : ::kill(box_.pid, signal);
    if (rc != 0 && errno != ESRCH) return ErrorAnswer(ErrnoStatus("signal the process"));
    return Answer(shared_.info);
  }

  json WriteStdin(const json& request, int conn) {
    uint64_t size = request.value("size", uint64_t{0});
    bool close = request.value("close", false);
    struct timeval timeout = {kStdinReadTimeoutSeconds, 0};
    ::setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    std::string data;
    while (data.size() < size && data.size() <= kMaxPendingStdinBytes) {
      auto frame = ReadFrame(conn);
      if (!frame.ok() || frame->type != FrameType::kData) {
        return ErrorAnswer(InvalidArgument("proc_stdin: the data did not arrive"));
      }
      data += frame->payload;
    }
    std::lock_guard<std::mutex> lock(shared_.mutex);
    if (!shared_.info.stdin_open) {
      return ErrorAnswer(InvalidArgument(
          shared_.finished
              ? "process " + shared_.info.id + " has exited"
              : "the stdin of process " + shared_.info.id +
                    (closed_ ? " is closed" : " is not open (start it with --interactive)")));
    }
    if (pending_stdin_.size() + data.size() > kMaxPendingStdinBytes) {
      return ErrorAnswer(ResourceExhausted(
          "process " + shared_.info.id + " is not reading its stdin: " +
          std::to_string(pending_stdin_.size()) + " bytes wait already (the most is 1 MiB)"));
    }
    pending_stdin_ += data;
    if (close) {
      close_stdin_ = true;
      shared_.info.stdin_open = false;
    }
    FeedStdinLocked();
    return Answer(shared_.info);
  }

  void FeedStdin() {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    FeedStdinLocked();
  }

  void FeedStdinLocked() {
    while (stdin_.valid() && !pending_stdin_.empty()) {
      ssize_t n = ::write(stdin_.get(), pending_stdin_.data(), pending_stdin_.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return;
      if (n < 0) {  // EPIPE: it closed its stdin; what waits is dropped
        pending_stdin_.clear();
        CloseStdin();
        return;
      }
      pending_stdin_.erase(0, static_cast<size_t>(n));
    }
    if (close_stdin_ && pending_stdin_.empty()) CloseStdin();
  }

  void CloseStdin() {
    stdin_.reset();
    closed_ = true;
    shared_.info.stdin_open = false;
  }

  // A client that hung up is dropped; anything it sent (it should send nothing) is discarded.
  void CheckHangUp(Client& c) {
    char buf[256];
    ssize_t n = ::recv(c.fd.get(), buf, sizeof(buf), MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) c.fd.reset();
  }

  // Every client as far as it can go now: output framed up to its backlog, answers due, sockets
  // written without blocking; the gone and the done dropped.
  void Progress() {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    if (shared_.finished) {
      if (stdin_.valid()) CloseStdin();
      pending_stdin_.clear();
      if (!told_exited_) {
        told_exited_ = true;
        (void)SendControl(control_, {{"op", "exited"}, {"info", ProcessInfoToWire(shared_.info)}});
      }
    }
    auto now = Clock::now();
    for (auto it = clients_.begin(); it != clients_.end();) {
      Client& c = *it;
      // Fed and flushed until its socket is full (what is left then waits for POLLOUT) or it
      // has all there is: a backlog sent whole must not leave the rest of the ring unsent until
      // new output wakes us (an exited process has none).
      while (c.fd.valid()) {
        if (!c.answered) Feed(c, now);
        if (c.backlog.empty()) break;
        Flush(c);
        if (!c.backlog.empty() || c.answered) break;
      }
      bool done = c.answered && c.backlog.empty();
      if (!c.fd.valid() || done) {
        it = clients_.erase(it);
      } else {
        ++it;
      }
    }
  }

  void Feed(Client& c, Clock::time_point now) {
    const OutputRing& ring = shared_.ring;
    if (c.kind == Client::Kind::kLogs) {
      if (c.cursor < ring.start()) c.from = std::max(c.from, ring.start());
      while (c.backlog.size() < kClientBacklog && c.cursor < ring.end()) {
        uint64_t next = ring.Read(c.cursor, kPiece, [&c](OutputStream s, std::string_view data) {
          AppendFrame(s == OutputStream::kStdout ? FrameType::kStdout : FrameType::kStderr, data,
                      &c.backlog);
        });
        if (next == c.cursor) break;
        c.cursor = next;
      }
      if (c.cursor >= ring.end() && (!c.follow || shared_.finished)) {
        json answer = Answer(shared_.info);
        answer["from"] = c.from;
        answer["next"] = c.cursor;
        AppendFrame(FrameType::kResponse, answer.dump(), &c.backlog);
        c.answered = true;
      }
      return;
    }
    if (shared_.finished || (c.deadline && now >= *c.deadline)) {
      AppendFrame(FrameType::kResponse, Answer(shared_.info).dump(), &c.backlog);
      c.answered = true;
    }
  }

  void Flush(Client& c) {
    ssize_t n = ::send(c.fd.get(), c.backlog.data(), c.backlog.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      c.backlog.erase(0, static_cast<size_t>(n));
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
      c.fd.reset();  // gone
    }
  }

  int NextDeadlineMs() const {
    std::optional<Clock::time_point> next;
    for (const Client& c : clients_) {
      if (c.deadline && !c.answered && (!next || *c.deadline < *next)) next = c.deadline;
    }
    if (!next) return -1;
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(*next - Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(ms + 1, 0, 60000));
  }

  Shared& shared_;
  int control_;
  SupervisedSandbox& box_;
  UniqueFd stdin_;
  std::string pending_stdin_;
  bool close_stdin_ = false;
  bool closed_ = false;
  bool told_exited_ = false;
  std::list<Client> clients_;
};

}  // namespace

void RunKeeper(KeeperStart start, StartedExec exec) {
  ::prctl(PR_SET_NAME, kKeeperName, 0, 0, 0);
  const auto started = Clock::now();
  std::optional<ChildError> failed = AwaitExecuted(exec.box);
  Shared shared(start.request.output_limit, start.info);
  UniqueFd conn(start.conn_fd);
  if (!failed) {
    SendAnswer(conn.get(), Answer(shared.info));
    conn.reset();
  }
  std::thread server([&shared, &start, &exec] {
    Server(shared, start.control_fd, exec.box, std::move(start.stdin_write)).Run();
  });
  // The ring keeps what a plain exec would have capped: OutputCapture passes everything on.
  OutputCapture output(UINT64_MAX, [&shared](OutputStream s, std::string_view data) {
    {
      std::lock_guard<std::mutex> lock(shared.mutex);
      shared.ring.Append(s, data);
      shared.info.output_bytes = shared.ring.end();
      shared.info.dropped_bytes = shared.ring.start();
    }
    shared.Wake();
  });
  SupervisionLimits limits;
  limits.deadline =
      start.request.timeout_seconds > 0
          ? started + std::chrono::duration_cast<Clock::duration>(
                          std::chrono::duration<double>(start.request.timeout_seconds))
          : Clock::time_point::max();
  limits.kill_all = [&exec] { exec.launcher->KillAll(exec.box); };
  limits.finish_on_report = true;
  SupervisionOutcome outcome = Supervise(exec.box, output, limits);
  if (failed) outcome.setup_error = *failed;
  exec.launcher->Finish(outcome);
  ExecResult result = ResultOfSupervision(outcome, nullptr, output);
  result.effects.workspace.reason =
      "a background process: what it changed in /workspace is not told apart from what other "
      "commands changed meanwhile";
  result.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  {
    std::lock_guard<std::mutex> lock(shared.mutex);
    shared.info.state = ProcessState::kExited;
    shared.info.result = result;
    shared.finished = true;
  }
  shared.Wake();
  exec.launcher->Reap(exec.box);
  if (conn.valid()) {
    std::lock_guard<std::mutex> lock(shared.mutex);
    SendAnswer(conn.get(), Answer(shared.info));
    conn.reset();
  }
  server.join();  // never returns: the server ends the process when PID 1 lets it go
  ::_exit(0);
}

}  // namespace agentbox
