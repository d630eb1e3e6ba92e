// Word wrapping for help texts: pure, no I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace agentbox {

// `text` cut into lines of at most `width` characters at spaces (a word longer than `width` gets
// a line of its own). An empty text is one empty line.
std::vector<std::string> WrapWords(std::string_view text, size_t width);

}  // namespace agentbox
