#include "spec/policy_file.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "base/json_limits.h"

namespace agentbox {
namespace {

using Json = nlohmann::ordered_json;

constexpr size_t kMaxPolicyBytes = 1024 * 1024;

// A rendering of the offending value for messages, cut short so one line stays one line.
std::string Shown(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

Status TypeError(std::string_view expected, const Json& value) {
  return InvalidArgument("expected " + std::string(expected) + ", got " + Shown(value));
}

// A JSON number that is a whole, non-negative value fitting in 64 bits (1e9 counts, 1.5 not).
bool AsUint(const Json& value, uint64_t* out) {
  if (value.is_number_unsigned()) {
    *out = value.get<uint64_t>();
    return true;
  }
  if (!value.is_number_float()) return false;
  const double d = value.get<double>();
  if (!(d >= 0) || d >= 18446744073709551616.0 || std::floor(d) != d) return false;
  *out = static_cast<uint64_t>(d);
  return true;
}

Status SetEnvFromJson(const Json& value, SpecOverlay* overlay) {
  if (!value.is_object()) return TypeError("an object of strings like {\"CI\": \"1\"}", value);
  for (const auto& [name, var] : value.items()) {
    if (!var.is_string()) {
      return TypeError("a string for variable \"" + name + "\"", var);
    }
    AB_RETURN_IF_ERROR(AddEnvVar(name, var.get<std::string>(), overlay));
  }
  return OkStatus();
}

Status SetHostsFromJson(const Json& value, SpecOverlay* overlay) {
  if (!value.is_array()) return TypeError("a list of host patterns like [\"pypi.org\"]", value);
  for (const Json& entry : value) {
    if (!entry.is_string()) return TypeError("a host pattern string", entry);
    AB_RETURN_IF_ERROR(AddAllowHost(entry.get<std::string>(), overlay));
  }
  return OkStatus();
}

Status SetNumberFromJson(const SpecField& field, const Json& value, SpecOverlay* overlay) {
  uint64_t whole = 0;
  switch (field.kind) {
    case FieldKind::kSize:
      if (AsUint(value, &whole)) return SetSizeField(field.key, whole, overlay);
      return TypeError("a size like \"512M\" or a number of bytes", value);
    case FieldKind::kCount:
      if (AsUint(value, &whole)) return SetCountField(field.key, whole, overlay);
      return TypeError("a whole number like 256", value);
    case FieldKind::kDuration:
      return SetDurationField(field.key, value.get<double>(), overlay);
    case FieldKind::kDecimal:
      return SetDecimalField(field.key, value.get<double>(), overlay);
    default:
      return Internal("not a numeric kind");
  }
}

Status SetFromJson(const SpecField& field, const Json& value, SpecOverlay* overlay) {
  switch (field.kind) {
    case FieldKind::kString:
      if (!value.is_string()) return TypeError("a string", value);
      return SetStringField(field.key, value.get<std::string>(), overlay);
    case FieldKind::kBool:
      if (!value.is_boolean()) return TypeError("true or false", value);
      return SetBoolField(field.key, value.get<bool>(), overlay);
    case FieldKind::kEnv:
      return SetEnvFromJson(value, overlay);
    case FieldKind::kHostList:
      return SetHostsFromJson(value, overlay);
    default:
      break;
  }
  if (value.is_number()) return SetNumberFromJson(field, value, overlay);
  if (value.is_string()) return SetFieldFromText(field.key, value.get<std::string>(), overlay);
  switch (field.kind) {
    case FieldKind::kSize:
      return TypeError("a size like \"512M\" or a number of bytes", value);
    case FieldKind::kCount:
      return TypeError("a whole number like 256", value);
    case FieldKind::kDuration:
      return TypeError("seconds like 30 or \"1.5\"", value);
    default:
      return TypeError("a number like 1 or 0.5", value);
  }
}

// nlohmann keeps the last of two equal keys silently; a policy that says "memory" twice is
// ambiguous, so the parse callback records the first repeated key of any object.
StatusOr<Json> ParseStrict(std::string_view text) {
  std::vector<std::set<std::string>> seen;
  std::string duplicate;
  auto callback = [&](int /*depth*/, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) seen.emplace_back();
    if (event == Json::parse_event_t::object_end && !seen.empty()) seen.pop_back();
    if (event == Json::parse_event_t::key && !seen.empty() && duplicate.empty()) {
      const std::string key = parsed.get<std::string>();
      if (!seen.back().insert(key).second) duplicate = key;
    }
    return true;
  };
  // Depth first: the tree of a deeply nested text would crash whoever dumps or frees it.
  AB_RETURN_IF_ERROR(CheckJsonLimits(text));
  try {
    Json json = Json::parse(text.begin(), text.end(), callback);
    if (!duplicate.empty()) return InvalidArgument("key \"" + duplicate + "\" appears twice");
    return json;
  } catch (const Json::parse_error& e) {
    // what() is "[json.exception.parse_error.101] parse error at line 1, column 2: ...".
    std::string what = e.what();
    const size_t at = what.find(" at line ");
    return InvalidArgument("invalid JSON" +
                           (at == std::string::npos ? ": " + what : what.substr(at)));
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("invalid JSON: ") + e.what());
  }
}

Status ParseInto(std::string_view text, SpecOverlay* overlay) {
  AB_ASSIGN_OR_RETURN(Json json, ParseStrict(text));
  if (!json.is_object()) return TypeError("a JSON object at the top level", json);
  for (const auto& [key, value] : json.items()) {
    const SpecField* field = FindSpecField(key);
    if (field == nullptr) {
      return InvalidArgument("unknown key \"" + key + "\" (known keys: " + SpecFieldList() + ")");
    }
    AB_RETURN_IF_ERROR(SetFromJson(*field, value, overlay).WithContext("key \"" + key + "\""));
  }
  return OkStatus();
}

}  // namespace

StatusOr<SpecOverlay> ParsePolicyJson(std::string_view text, std::string_view source_name) {
  SpecOverlay overlay;
  Status status;
  // nlohmann reports through exceptions; none may leave this module.
  try {
    status = ParseInto(text, &overlay);
  } catch (const std::exception& e) {
    status = InvalidArgument(e.what());
  }
  if (!status.ok()) return status.WithContext(std::string(source_name));
  return overlay;
}

StatusOr<SpecOverlay> LoadPolicyFile(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rbe"), &std::fclose);
  if (!file) return ErrnoStatus("cannot open policy file " + path);
  std::string text;
  char buf[8192];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), file.get())) > 0) {
    text.append(buf, n);
    if (text.size() > kMaxPolicyBytes) {
      return InvalidArgument(path + ": policy file is larger than 1M");
    }
  }
  if (std::ferror(file.get())) return ErrnoStatus("cannot read policy file " + path);
  return ParsePolicyJson(text, path);
}

}  // namespace agentbox
