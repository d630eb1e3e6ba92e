#include "agent/exec_lookups.h"

#include "agent/control_channel.h"

namespace agentbox {

std::optional<uint64_t> LookupsMark(int control_fd) {
  if (control_fd < 0) return std::nullopt;
  nlohmann::json answer = AskAgent(control_fd, {{"op", "lookups"}});
  if (!answer.value("ok", false) || !answer.contains("mark") ||
      !answer["mark"].is_number_unsigned()) {
    return std::nullopt;
  }
  return answer["mark"].get<uint64_t>();
}

void AddLookupsSince(int control_fd, std::optional<uint64_t> mark, ExecResult& result) {
  if (!mark) return;
  nlohmann::json answer = AskAgent(control_fd, {{"op", "lookups"}, {"since", *mark}});
  if (!answer.value("ok", false) || !answer.contains("names") || !answer["names"].is_array()) {
    return;
  }
  std::vector<std::string> names;
  for (const auto& n : answer["names"]) {
    if (n.is_string()) names.push_back(n.get<std::string>());
  }
  AddLookups(result.network, names, answer.value("lost", uint64_t{0}));
}

nlohmann::json AnswerLookups(const DnsCatcher* catcher, const nlohmann::json& message) {
  if (catcher == nullptr) {
    return {{"ok", false}, {"code", "unavailable"}, {"error", "no DNS catcher in this sandbox"}};
  }
  nlohmann::json answer = {{"ok", true}, {"mark", catcher->caught()}};
  if (message.contains("since") && message["since"].is_number_unsigned()) {
    uint64_t lost = 0;
    answer["names"] = catcher->NamesSince(message["since"].get<uint64_t>(), &lost);
    answer["lost"] = lost;
  }
  return answer;
}

}  // namespace agentbox
