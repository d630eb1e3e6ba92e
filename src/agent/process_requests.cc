#include "agent/process_requests.h"

#include <sys/socket.h>

#include "agent/control_channel.h"
#include "proto/agent_protocol.h"
#include "proto/process_wire.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

using nlohmann::json;

// A keeper that does not answer `ps` within this (a container's command can SIGSTOP it: same
// uid) is listed with what PID 1 last heard from it.
constexpr int kInfoTimeoutSeconds = 2;

void Reply(int conn_fd, const json& body) {
  (void)WriteFrame(conn_fd, FrameType::kResponse, body.dump());
}

// The keeper's own info for process `id`, asked through PID 1 on a socketpair of our own.
std::optional<json> AskKeeper(int control, const std::string& id) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return std::nullopt;
  UniqueFd ours(pair[0]), theirs(pair[1]);
  json routed = AskAgent(
      control, {{"op", "route"}, {"proc", id}, {"request", {{"op", "proc_info"}}}}, theirs.get());
  theirs.reset();
  if (!routed.value("ok", false) || routed.contains("gone")) return std::nullopt;
  struct timeval timeout = {kInfoTimeoutSeconds, 0};
  ::setsockopt(ours.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  auto frame = ReadFrame(ours.get());
  if (!frame.ok() || frame->type != FrameType::kResponse) return std::nullopt;
  json answer = json::parse(frame->payload, nullptr, /*allow_exceptions=*/false);
  if (answer.is_discarded() || !answer.contains("process")) return std::nullopt;
  return answer["process"];
}

void ListProcesses(int conn_fd, const AgentContext& context) {
  json listed = AskAgent(context.control_fd, {{"op", "list"}});
  if (!listed.value("ok", false)) return Reply(conn_fd, listed);
  json processes = json::array();
  for (const json& item : listed["processes"]) {
    std::optional<json> info;
    if (item.value("live", false)) info = AskKeeper(context.control_fd, item.value("id", ""));
    processes.push_back(info ? *info : item["info"]);
  }
  Reply(conn_fd, {{"ok", true}, {"processes", processes}});
}

// A process whose keeper is gone: what PID 1 kept of it answers for it.
void AnswerForGone(int conn_fd, const std::string& op, const json& info) {
  if (op == "proc_kill" || op == "proc_stdin") {
    return Reply(conn_fd, {{"ok", false},
                           {"code", "invalid_argument"},
                           {"error", "process " + info.value("id", "") + " has already exited"}});
  }
  json answer = {{"ok", true}, {"process", info}};
  if (op == "proc_logs") {
    answer["from"] = info.value("output_bytes", uint64_t{0});
    answer["next"] = answer["from"];
  }
  Reply(conn_fd, answer);
}

}  // namespace

bool IsProcessOp(const std::string& op) {
  return op == "ps" || op == "proc_logs" || op == "proc_wait" || op == "proc_kill" ||
         op == "proc_stdin";
}

void HandleProcessRequest(int conn_fd, const json& request, const AgentContext& context) {
  std::string op = request["op"].get<std::string>();
  if (op == "ps") return ListProcesses(conn_fd, context);
  std::string id = request.value("proc", "");
  if (Status valid = CheckProcessId(id); !valid.ok()) {
    return Reply(conn_fd,
                 {{"ok", false}, {"code", "invalid_argument"}, {"error", valid.message()}});
  }
  json routed =
      AskAgent(context.control_fd, {{"op", "route"}, {"proc", id}, {"request", request}}, conn_fd);
  if (!routed.value("ok", false)) return Reply(conn_fd, routed);
  if (routed.contains("gone")) AnswerForGone(conn_fd, op, routed["gone"]);
  // Otherwise the keeper has the connection and answers.
}

}  // namespace agentbox
