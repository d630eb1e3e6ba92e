#include "spec/text_wrap.h"

namespace agentbox {

std::vector<std::string> WrapWords(std::string_view text, size_t width) {
  std::vector<std::string> lines(1);
  while (!text.empty()) {
    const size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    text.remove_prefix(space == std::string_view::npos ? text.size() : space + 1);
    if (word.empty()) continue;
    std::string& line = lines.back();
    if (line.empty()) {
      line = word;
    } else if (line.size() + 1 + word.size() <= width) {
      line += " " + std::string(word);
    } else {
      lines.emplace_back(word);
    }
  }
  return lines;
}

}  // namespace agentbox
