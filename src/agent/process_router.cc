#include "agent/process_router.h"

#include "agent/control_channel.h"
#include "proto/exec_wire.h"
#include "proto/process_wire.h"

namespace agentbox {
namespace {

using nlohmann::json;

json Error(const char* code, const std::string& message) {
  return {{"ok", false}, {"code", code}, {"error", message}};
}

}  // namespace

std::optional<json> ProcessRouter::OnMessage(pid_t from, int control, const json& message,
                                             UniqueFd fd, pid_t* release) {
  std::string op = message.value("op", "");
  if (op == "register" && message.contains("info"))
    return Register(from, control, message["info"], release);
  if (op == "route") return Route(message, std::move(fd));
  if (op == "list") return List();
  if (op == "exited" && message.contains("info")) {
    for (Entry& e : entries_) {
      if (e.keeper == from) {
        e.info = message["info"];
        e.exited = true;
      }
    }
    return std::nullopt;
  }
  return Error("invalid_argument", "unknown control message");
}

json ProcessRouter::Register(pid_t from, int control, const json& info, pid_t* release) {
  if (entries_.size() >= kMaxBackgroundProcesses) {
    auto oldest = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->exited || it->keeper < 0) {
        oldest = it;
        break;
      }
    }
    if (oldest == entries_.end()) {
      return Error("resource_exhausted",
                   std::to_string(kMaxBackgroundProcesses) +
                       " background processes already run in this sandbox (`agentbox kill` one)");
    }
    if (oldest->keeper > 0) *release = oldest->keeper;
    entries_.erase(oldest);
  }
  Entry entry;
  entry.id = "p" + std::to_string(next_id_++);
  entry.keeper = from;
  entry.control = control;
  entry.info = info;
  entry.info["id"] = entry.id;
  entries_.push_back(entry);
  return {{"ok", true}, {"id", entry.id}};
}

json ProcessRouter::Route(const json& message, UniqueFd conn) {
  std::string id = message.value("proc", "");
  Entry* entry = Find(id);
  if (entry == nullptr) {
    return Error("not_found",
                 "no background process " + id + " in this sandbox (see `agentbox ps`)");
  }
  if (entry->keeper < 0) return {{"ok", true}, {"gone", entry->info}};
  if (!conn.valid() || !message.contains("request")) {
    return Error("invalid_argument", "route: no connection or request");
  }
  if (!SendControl(entry->control, {{"request", message["request"]}}, conn.get())) {
    return Error("unavailable", "the keeper of process " + id + " does not answer");
  }
  return {{"ok", true}};
}

json ProcessRouter::List() const {
  json processes = json::array();
  for (const Entry& e : entries_) {
    json item = {{"id", e.id}, {"info", e.info}, {"live", e.keeper > 0}};
    processes.push_back(item);
  }
  return {{"ok", true}, {"processes", processes}};
}

void ProcessRouter::OnHandlerGone(pid_t pid) {
  for (Entry& e : entries_) {
    if (e.keeper != pid) continue;
    e.keeper = -1;
    e.control = -1;
    if (e.exited) continue;
    // Killed before its command ended: the command's tree went with it (its init's parent-death
    // signal), and so did its output.
    ExecResult lost = ErrorResult(Unavailable(
        "the keeper of this background process was killed (a command of the sandbox signalled "
        "it); the process was killed with it and its output is lost"));
    e.info["state"] = "exited";
    e.info["stdin_open"] = false;
    e.info["result"] = json::parse(ExecResultToWire(lost))["result"];
    e.exited = true;
  }
}

bool ProcessRouter::IsKeeper(pid_t pid) const {
  for (const Entry& e : entries_) {
    if (e.keeper == pid) return true;
  }
  return false;
}

ProcessRouter::Entry* ProcessRouter::Find(const std::string& id) {
  for (Entry& e : entries_) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

}  // namespace agentbox
