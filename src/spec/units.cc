#include "spec/units.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

namespace agentbox {
namespace {

constexpr std::string_view kSizeHint = "expected a size like \"512M\" or a number of bytes";
constexpr std::string_view kDurationHint = "expected seconds like \"30\", \"1.5\" or \"5m\"";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string Quote(std::string_view text) { return "\"" + std::string(text) + "\""; }

Status Expected(std::string_view hint, std::string_view text) {
  return InvalidArgument(std::string(hint) + ", got " + Quote(text));
}

// Splits "12.5mb" into "12.5" and "mb" (lower-cased). The number part is digits with at most one
// '.', at least one digit, no sign: this is what keeps "-1", "inf", "nan" and "1e9" out, which
// std::from_chars would otherwise accept.
bool SplitNumber(std::string_view text, std::string_view* number, std::string* unit) {
  size_t i = 0;
  int digits = 0;
  bool dot = false;
  for (; i < text.size(); ++i) {
    if (IsDigit(text[i])) {
      ++digits;
    } else if (text[i] == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (digits == 0) return false;
  *number = text.substr(0, i);
  unit->clear();
  for (char c : text.substr(i)) unit->push_back(Lower(c));
  return true;
}

std::optional<double> ToDouble(std::string_view number) {
  double value = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<uint64_t> SizeMultiplier(const std::string& unit) {
  if (unit.empty() || unit == "b") return 1;
  static constexpr std::string_view kPrefixes = "kmgt";
  const size_t power = kPrefixes.find(unit[0]);
  if (power == std::string_view::npos) return std::nullopt;
  const std::string rest = unit.substr(1);
  if (!rest.empty() && rest != "b" && rest != "ib") return std::nullopt;
  return uint64_t{1} << (10 * (power + 1));
}

}  // namespace

StatusOr<uint64_t> ParseSize(std::string_view text) {
  std::string_view number;
  std::string unit;
  if (!SplitNumber(text, &number, &unit)) return Expected(kSizeHint, text);
  const std::optional<uint64_t> mult = SizeMultiplier(unit);
  if (!mult) return Expected(kSizeHint, text);
  const size_t dot = number.find('.');
  const std::string_view whole = number.substr(0, dot);
  uint64_t value = 0;
  if (!whole.empty()) {
    auto [end, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), value);
    if (ec != std::errc() || end != whole.data() + whole.size()) return Expected(kSizeHint, text);
  }
  if (value > std::numeric_limits<uint64_t>::max() / *mult) {
    return InvalidArgument("size " + Quote(text) + " is too large");
  }
  value *= *mult;
  if (dot != std::string_view::npos && dot + 1 < number.size()) {
    if (*mult == 1) return InvalidArgument("a number of bytes must be whole, got " + Quote(text));
    const std::optional<double> frac = ToDouble("0" + std::string(number.substr(dot)));
    if (!frac) return Expected(kSizeHint, text);
    const auto extra = static_cast<uint64_t>(std::floor(*frac * static_cast<double>(*mult)));
    if (value > std::numeric_limits<uint64_t>::max() - extra) {
      return InvalidArgument("size " + Quote(text) + " is too large");
    }
    value += extra;
  }
  return value;
}

StatusOr<double> ParseDuration(std::string_view text) {
  std::string_view number;
  std::string unit;
  if (!SplitNumber(text, &number, &unit)) return Expected(kDurationHint, text);
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  if (unit == "ms") scale = 0.001;
  if (unit == "m") scale = 60;
  if (unit == "h") scale = 3600;
  if (unit == "d") scale = 86400;
  const std::optional<double> value = ToDouble(number);
  if (scale == 0 || !value) return Expected(kDurationHint, text);
  const double seconds = *value * scale;
  if (!(seconds > 0) || !std::isfinite(seconds)) {
    return InvalidArgument("must be more than 0 seconds, got " + Quote(text));
  }
  return seconds;
}

Status CheckTimeout(double seconds) {
  // Written as !(x > 0) so that NaN fails too.
  if (!(seconds > 0)) return InvalidArgument("must be more than 0 seconds");
  if (!(seconds <= kMaxTimeoutSeconds)) {
    return InvalidArgument("must be at most 604800 seconds (one week), got " +
                           FormatSeconds(seconds));
  }
  return OkStatus();
}

StatusOr<double> ParseTimeout(std::string_view text) {
  AB_ASSIGN_OR_RETURN(double seconds, ParseDuration(text));
  AB_RETURN_IF_ERROR(CheckTimeout(seconds));
  return seconds;
}

StatusOr<double> ParsePositiveDecimal(std::string_view text) {
  std::string_view number;
  std::string unit;
  std::optional<double> value;
  if (SplitNumber(text, &number, &unit) && unit.empty()) value = ToDouble(number);
  if (!value) return Expected("expected a number like \"1\" or \"0.5\"", text);
  if (!(*value > 0)) return InvalidArgument("must be more than 0, got " + Quote(text));
  return *value;
}

StatusOr<uint64_t> ParseCount(std::string_view text) {
  uint64_t value = 0;
  const bool all_digits =
      !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
  if (!all_digits) return Expected("expected a whole number like \"256\"", text);
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return InvalidArgument("number " + Quote(text) + " is too large");
  }
  return value;
}

std::string FormatSize(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"T", "G", "M", "K"};
  for (int i = 0; i < 4; ++i) {
    const uint64_t mult = uint64_t{1} << (10 * (4 - i));
    if (bytes != 0 && bytes % mult == 0) return std::to_string(bytes / mult) + kUnits[i];
  }
  return std::to_string(bytes);
}

std::string FormatSeconds(double seconds) {
  // std::to_chars gives the shortest text that reads back to the same double, locale-free.
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), seconds);
  if (ec != std::errc()) return "?";
  return std::string(buf, end);
}

}  // namespace agentbox
