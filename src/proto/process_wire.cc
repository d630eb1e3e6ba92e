#include "proto/process_wire.h"

#include <signal.h>
#include <string.h>

#include <cctype>
#include <charconv>

#include "base/utf8.h"
#include "proto/exec_wire.h"

namespace agentbox {
namespace {

using nlohmann::json;

json ArgvJson(const std::vector<std::string>& argv) {
  json out = json::array();
  for (const std::string& a : argv) out.push_back(SanitizeUtf8(a));
  return out;
}

std::string Upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const char* ProcessStateName(ProcessState state) {
  return state == ProcessState::kRunning ? "running" : "exited";
}

json ProcessInfoToWire(const ProcessInfo& info) {
  json j = {{"id", info.id},
            {"argv", ArgvJson(info.argv)},
            {"state", ProcessStateName(info.state)},
            {"started_at", info.started_at},
            {"stdin_open", info.stdin_open},
            {"output_bytes", info.output_bytes},
            {"dropped_bytes", info.dropped_bytes}};
  if (info.result) j["result"] = json::parse(ExecResultToWire(*info.result))["result"];
  return j;
}

StatusOr<ProcessInfo> ProcessInfoFromWire(const json& j) {
  ProcessInfo info;
  try {
    info.id = j.at("id").get<std::string>();
    AB_RETURN_IF_ERROR(CheckProcessId(info.id));
    info.argv = j.at("argv").get<std::vector<std::string>>();
    std::string state = j.at("state").get<std::string>();
    if (state != "running" && state != "exited") return Internal("bad process state " + state);
    info.state = state == "running" ? ProcessState::kRunning : ProcessState::kExited;
    info.started_at = j.at("started_at").get<double>();
    info.stdin_open = j.at("stdin_open").get<bool>();
    info.output_bytes = j.at("output_bytes").get<uint64_t>();
    info.dropped_bytes = j.at("dropped_bytes").get<uint64_t>();
    if (j.contains("result")) {
      AB_ASSIGN_OR_RETURN(info.result, ExecResultFromWire(json{{"result", j["result"]}}.dump()));
    }
  } catch (const json::exception& e) {
    return Internal(std::string("malformed process info from the agent: ") + e.what());
  }
  return info;
}

std::string ProcessInfoToJson(const ProcessInfo& info) {
  nlohmann::ordered_json j;
  j["id"] = info.id;
  j["argv"] = ArgvJson(info.argv);
  j["state"] = ProcessStateName(info.state);
  j["started_at"] = info.started_at;
  j["stdin_open"] = info.stdin_open;
  j["output_bytes"] = info.output_bytes;
  j["dropped_bytes"] = info.dropped_bytes;
  if (info.result) {
    auto result = nlohmann::ordered_json::parse(ExecResultToJson(*info.result));
    result.erase("stdout");
    result.erase("stderr");
    j["result"] = std::move(result);
  } else {
    j["result"] = nullptr;
  }
  return j.dump();
}

Status CheckProcessId(std::string_view id) {
  bool ok = id.size() >= 2 && id.size() <= 12 && id[0] == 'p' && id[1] != '0';
  for (size_t i = 1; ok && i < id.size(); ++i) ok = id[i] >= '0' && id[i] <= '9';
  if (!ok) {
    return InvalidArgument("bad process id \"" + SanitizeUtf8(std::string(id)) +
                           "\" (ids are p1, p2, ...: see `agentbox ps`)");
  }
  return OkStatus();
}

StatusOr<int> ParseSignal(std::string_view text) {
  int number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    std::string name = Upper(text);
    if (name.rfind("SIG", 0) == 0) name = name.substr(3);
    number = 0;
    for (int sig = 1; sig < NSIG && number == 0; ++sig) {
      const char* abbrev = ::sigabbrev_np(sig);
      if (abbrev != nullptr && name == abbrev) number = sig;
    }
    if (number == 0) {
      return InvalidArgument("unknown signal \"" + SanitizeUtf8(std::string(text)) +
                             "\" (a number, or a name such as TERM, INT, KILL, HUP)");
    }
  }
  if (number < 1 || number >= NSIG) {
    return InvalidArgument("signal " + std::to_string(number) + " is out of range (1-" +
                           std::to_string(NSIG - 1) + ")");
  }
  if (number == SIGSTOP) {
    return InvalidArgument("SIGSTOP cannot be sent to a background process (use TSTP to stop it)");
  }
  return number;
}

std::string SignalName(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  return abbrev ? abbrev : std::to_string(signal);
}

}  // namespace agentbox
