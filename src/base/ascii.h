// Small ASCII text helpers shared by the HTTP code on both sides (server and Docker client).
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace agentbox {

// Lower-cases ASCII letters (HTTP header names and tokens are case-insensitive).
inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Strips spaces and tabs (HTTP's optional whitespace) from both ends.
inline std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace agentbox
