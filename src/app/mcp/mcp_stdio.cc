#include "app/mcp/mcp_stdio.h"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "mcp/jsonrpc.h"

namespace agentbox {
namespace {

using nlohmann::json;
namespace mcp = agentbox::mcp;

// A line longer than this is not a message we will parse (write_file content stays far below):
// it is answered with a parse error and skipped up to its newline; the session goes on.
constexpr size_t kMaxLineBytes = 64u << 20;

// stdout, one whole message per write; after a write error (the client is gone) it stays quiet.
class LineWriter {
 public:
  void Write(const json& message) {
    std::string line = mcp::Serialize(message) + "\n";
    std::lock_guard<std::mutex> lock(mutex_);
    size_t done = 0;
    while (!broken_ && done < line.size()) {
      ssize_t n = ::write(1, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        broken_ = true;
      else
        done += static_cast<size_t>(n);
    }
  }

 private:
  std::mutex mutex_;
  bool broken_ = false;
};

// The requests running on worker threads, so the end of the session can cancel and wait for
// them.
class Workers {
 public:
  void Start(McpServer& server, LineWriter& out, json message) {
    const json id = message["id"];
    {
      std::lock_guard<std::mutex> lock(mutex_);
      running_[mcp::IdKey(id)] = id;
    }
    std::thread([this, &server, &out, message = std::move(message), id] {
      auto notify = [&out](const json& n) { out.Write(n); };
      if (auto response = server.Handle(message, notify)) out.Write(*response);
      std::lock_guard<std::mutex> lock(mutex_);
      running_.erase(mcp::IdKey(id));
      done_.notify_all();
    }).detach();
  }

  // Cancels every running call as if the client had sent notifications/cancelled, then waits.
  void CancelAndWait(McpServer& server) {
    std::map<std::string, json> running;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      running = running_;
    }
    for (const auto& [key, id] : running) {
      json cancel = mcp::MakeNotification("notifications/cancelled",
                                          {{"requestId", id}, {"reason", "session ended"}});
      (void)server.Handle(cancel, nullptr);
    }
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return running_.empty(); });
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  std::map<std::string, json> running_;
};

// Requests that may wait on the sandbox (a command, the agent, a sandbox to make) run on a
// worker thread, so that the reader goes on reading: notifications/cancelled must get through.
bool RunsOnWorker(const json& message) {
  if (!message.is_object() || !message.contains("id") || !message.contains("method")) return false;
  const json& method = message["method"];
  return method == "tools/call" || method == "resources/list" || method == "resources/read" ||
         method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel";
}

void HandleLine(std::string_view line, McpServer& server, LineWriter& out, Workers& workers) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;
  bool ok = false;
  json message = mcp::ParseJsonOrError(line, &ok);
  if (!ok) return out.Write(message);
  if (RunsOnWorker(message)) return workers.Start(server, out, std::move(message));
  auto notify = [&out](const json& n) { out.Write(n); };
  if (auto response = server.Handle(message, notify)) out.Write(*response);
}

// The signals that end the session are read from a signalfd, so they end it the same orderly
// way EOF does (cancel, wait, remove the sandbox) instead of killing the process mid-way.
int BlockEndSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&set, sig);
  // Before any thread starts, so every thread inherits the mask.
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return ::signalfd(-1, &set, SFD_CLOEXEC);
}

// Splits stdin into lines of at most kMaxLineBytes. An over-long line costs no more memory than
// that: its bytes are dropped as they come, one parse error answers it, and the line after its
// newline is read as usual.
class LineSplitter {
 public:
  // Appends `data`, calling on_line for each complete line and on_too_long once per line that
  // grew past the limit.
  template <typename OnLine, typename OnTooLong>
  void Feed(std::string_view data, OnLine on_line, OnTooLong on_too_long) {
    while (!data.empty()) {
      const size_t nl = data.find('\n');
      const std::string_view part = data.substr(0, nl);
      if (!skipping_) {
        pending_.append(part.substr(0, std::min(part.size(), kMaxLineBytes + 1 - pending_.size())));
        if (pending_.size() > kMaxLineBytes) {
          skipping_ = true;
          std::string().swap(pending_);
          on_too_long();
        }
      }
      if (nl == std::string_view::npos) return;
      if (!skipping_) on_line(std::string_view(pending_));
      pending_.clear();
      skipping_ = false;
      data.remove_prefix(nl + 1);
    }
  }
  // The last line when stdin ends without a newline ("" if none, or if it was too long).
  std::string_view rest() const { return skipping_ ? std::string_view() : pending_; }

 private:
  std::string pending_;
  bool skipping_ = false;
};

// Reads stdin until EOF, an error or an end signal, handing each complete line on.
void ReadLoop(int signal_fd, McpServer& server, LineWriter& out, Workers& workers) {
  LineSplitter lines;
  auto on_line = [&](std::string_view line) { HandleLine(line, server, out, workers); };
  auto on_too_long = [&out] {
    out.Write(mcp::MakeError(nullptr, mcp::kParseError,
                             "Parse error: message longer than " +
                                 std::to_string(kMaxLineBytes >> 20) + " MiB, ignored"));
  };
  char buf[65536];
  for (;;) {
    pollfd fds[2] = {{0, POLLIN, 0}, {signal_fd, POLLIN, 0}};
    int n = ::poll(fds, signal_fd >= 0 ? 2 : 1, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || (signal_fd >= 0 && (fds[1].revents & POLLIN))) return;
    ssize_t got = ::read(0, buf, sizeof(buf));
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) break;
    lines.Feed(std::string_view(buf, static_cast<size_t>(got)), on_line, on_too_long);
  }
  // A last message without its newline still counts.
  HandleLine(lines.rest(), server, out, workers);
}

}  // namespace

int ServeMcpOverStdio(const McpOptions& options) {
  ::signal(SIGPIPE, SIG_IGN);
  int signal_fd = BlockEndSignals();
  LineWriter out;
  Workers workers;
  {
    McpServer server(options);
    ReadLoop(signal_fd, server, out, workers);
    workers.CancelAndWait(server);
  }  // the session's sandbox is removed here
  if (signal_fd >= 0) ::close(signal_fd);
  return 0;
}

}  // namespace agentbox
