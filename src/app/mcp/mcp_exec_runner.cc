// Runs a command for a tool call, sending progress while it runs.
//
// The transport's notify callback may only be used on the thread that called Handle, and that
// thread would be blocked inside the agent exchange; so with a progressToken the exchange runs
// on a helper thread while the calling thread wakes once a second to report.
#include <chrono>
#include <condition_variable>
#include <thread>

#include "app/mcp/mcp_tools.h"
#include "base/utf8.h"
#include "sys/memfd.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

using Clock = std::chrono::steady_clock;

// Output as it arrives, shared between the exchange (writer) and the reporter (reader).
struct LiveOutput {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  std::string streams[2];

  void Append(OutputStream s, std::string_view data) {
    std::lock_guard<std::mutex> lock(mutex);
    streams[static_cast<int>(s)].append(data);
  }
};

// The last non-empty line printed so far, short enough for a progress message.
std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  size_t start = text.find_last_of('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  std::string line = text.substr(start, std::min<size_t>(end + 1 - start, 200));
  return SanitizeUtf8(line);
}

std::string ProgressMessage(double seconds, LiveOutput& live) {
  std::string last;
  {
    std::lock_guard<std::mutex> lock(live.mutex);
    last = LastLine(live.streams[0]);
    if (last.empty()) last = LastLine(live.streams[1]);
  }
  std::string text = "running for " + std::to_string(static_cast<int>(seconds)) + "s";
  return last.empty() ? text : text + ": " + last;
}

// Blocks until the exchange is done, reporting progress every second meanwhile.
void ReportUntilDone(LiveOutput& live, ToolCallContext& context) {
  const auto start = Clock::now();
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(live.mutex);
      if (live.done_cv.wait_for(lock, std::chrono::seconds(1), [&] { return live.done; })) return;
    }
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (context.progress) context.progress(seconds, ProgressMessage(seconds, live));
  }
}

// Holds a slot of the session's quota for one command, released however the call ends.
class ExecSlot {
 public:
  explicit ExecSlot(McpQuota* quota) : quota_(quota) {}
  Status Take() {
    if (!quota_) return OkStatus();
    Status taken = quota_->StartExec();
    if (!taken.ok()) quota_ = nullptr;
    return taken;
  }
  ~ExecSlot() {
    if (quota_) quota_->EndExec();
  }
  ExecSlot(const ExecSlot&) = delete;
  ExecSlot& operator=(const ExecSlot&) = delete;

 private:
  McpQuota* quota_;
};

}  // namespace

StatusOr<ExecResult> RunCommand(McpSession& session, const SandboxRecord& record,
                                const ExecRequest& given, ToolCallContext& context,
                                const std::optional<std::string>& stdin_data, bool rollback) {
  ExecRequest request = given;
  UniqueFd stdin_fd;
  if (stdin_data) {
    AB_ASSIGN_OR_RETURN(stdin_fd, MemfdWithContents("mcp-stdin", *stdin_data));
    request.pass_stdin = true;
  }
  ExecSlot slot(session.quota());
  AB_RETURN_IF_ERROR(slot.Take());
  LiveOutput live;
  OutputCapture capture(request.output_limit,
                        [&live](OutputStream s, std::string_view data) { live.Append(s, data); });
  StatusOr<ExecResult> result = Internal("the command did not run");
  auto exchange = [&] {
    const int fd = stdin_fd.valid() ? stdin_fd.get() : -1;
    result = rollback ? session.manager().ExecWithRollback(record, request, capture, fd,
                                                           context.cancellation)
                      : session.manager().Exec(record, request, capture, fd, context.cancellation);
    std::lock_guard<std::mutex> lock(live.mutex);
    live.done = true;
    live.done_cv.notify_all();
  };
  if (context.progress) {
    std::thread worker(exchange);
    ReportUntilDone(live, context);
    worker.join();
  } else {
    exchange();
  }
  if (!result.ok()) {
    if (session.options().on_command) {
      session.options().on_command(record.id, ErrorResult(result.status()));
    }
    return result;
  }
  result->stdout_data = std::move(live.streams[0]);
  result->stderr_data = std::move(live.streams[1]);
  for (OutputStream s : {OutputStream::kStdout, OutputStream::kStderr}) {
    if (!capture.truncated(s)) continue;
    (s == OutputStream::kStdout ? result->stdout_truncated : result->stderr_truncated) = true;
    result->AddLimitHit(kLimitOutput);
  }
  if (session.options().on_command) session.options().on_command(record.id, *result);
  return result;
}

}  // namespace agentbox
