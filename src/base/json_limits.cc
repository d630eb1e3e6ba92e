#include "base/json_limits.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace agentbox {
namespace {

bool IsNumberChar(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// A number token's value must be a finite double: "1e999" would parse as infinity, and a
// conversion of that to an integer is undefined behaviour wherever a check was forgotten.
Status CheckNumber(std::string_view token, const JsonLimits& limits) {
  if (token.size() > limits.max_number_chars) {
    return InvalidArgument("a JSON number longer than " + std::to_string(limits.max_number_chars) +
                           " characters");
  }
  if (token.find_first_of("eE") == std::string_view::npos && token.size() < 300) {
    return OkStatus();  // without an exponent, 100 digits stay far below DBL_MAX
  }
  const std::string copy(token);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() && !std::isfinite(value)) {
    return InvalidArgument("a JSON number out of range: " + copy);
  }
  return OkStatus();
}

}  // namespace

Status CheckJsonLimits(std::string_view text, const JsonLimits& limits) {
  if (limits.max_bytes != 0 && text.size() > limits.max_bytes) {
    return InvalidArgument("JSON text larger than " + std::to_string(limits.max_bytes) + " bytes");
  }
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  size_t number_start = std::string_view::npos;
  for (size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ' ';
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (number_start != std::string_view::npos && !IsNumberChar(c)) {
      AB_RETURN_IF_ERROR(CheckNumber(text.substr(number_start, i - number_start), limits));
      number_start = std::string_view::npos;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limits.max_depth) {
        return InvalidArgument("JSON nested deeper than " + std::to_string(limits.max_depth) +
                               " levels");
      }
    } else if (c == ']' || c == '}') {
      --depth;  // unbalanced text is the parser's to report
    } else if (number_start == std::string_view::npos && (c == '-' || (c >= '0' && c <= '9'))) {
      number_start = i;
    }
  }
  return OkStatus();
}

StatusOr<nlohmann::json> ParseJsonWithLimits(std::string_view text, const JsonLimits& limits) {
  AB_RETURN_IF_ERROR(CheckJsonLimits(text, limits));
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return InvalidArgument("malformed JSON");
  return parsed;
}

}  // namespace agentbox
