#include "registry/registry_auth.h"

#include <cctype>
#include <cstdlib>

#include "base/base64.h"
#include "base/json_limits.h"
#include "sys/file_util.h"

namespace agentbox::registry {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "https://host/v1/" -> "host"
std::string HostKey(std::string key) {
  for (const char* p : {"https://", "http://"}) {
    if (key.rfind(p, 0) == 0) key = key.substr(std::string_view(p).size());
  }
  return key.substr(0, key.find('/'));
}

}  // namespace

StatusOr<Challenge> ParseChallenge(std::string_view header) {
  Challenge c;
  size_t sp = header.find(' ');
  c.scheme = Lower(std::string(header.substr(0, sp)));
  if (c.scheme != "bearer" && c.scheme != "basic") {
    return Unavailable("the registry asks for \"" + c.scheme +
                       "\" authentication, which agentbox "
                       "does not speak (Bearer and Basic only)");
  }
  std::string_view rest = sp == std::string_view::npos ? "" : header.substr(sp + 1);
  while (!rest.empty()) {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == ',')) rest.remove_prefix(1);
    size_t eq = rest.find('=');
    if (eq == std::string_view::npos) break;
    std::string key = Lower(std::string(rest.substr(0, eq)));
    rest.remove_prefix(eq + 1);
    std::string value;
    if (!rest.empty() && rest.front() == '"') {
      rest.remove_prefix(1);
      while (!rest.empty() && rest.front() != '"') {
        if (rest.front() == '\\' && rest.size() > 1) rest.remove_prefix(1);
        value.push_back(rest.front());
        rest.remove_prefix(1);
      }
      if (rest.empty()) return InvalidArgument("WWW-Authenticate: an unterminated quote");
      rest.remove_prefix(1);
    } else {
      size_t end = rest.find(',');
      value = std::string(rest.substr(0, end));
      rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
    }
    c.params[key] = value;
  }
  if (c.scheme == "bearer" && c.params["realm"].empty()) {
    return InvalidArgument("WWW-Authenticate: a Bearer challenge without a realm");
  }
  return c;
}

StatusOr<std::optional<Credentials>> CredentialsFromDockerConfig(std::string_view json,
                                                                 std::string_view domain) {
  auto j = ParseJsonWithLimits(json);
  if (!j.ok() || !j->is_object()) return InvalidArgument("docker config.json is not a JSON object");
  auto auths = j->find("auths");
  if (auths == j->end() || !auths->is_object()) return std::optional<Credentials>();
  std::string want = domain == "docker.io" ? "index.docker.io" : std::string(domain);
  for (auto it = auths->begin(); it != auths->end(); ++it) {
    if (HostKey(it.key()) != want || !it.value().is_object()) continue;
    const auto& e = it.value();
    Credentials c;
    if (e.contains("auth") && e["auth"].is_string()) {
      auto decoded = Base64Decode(e["auth"].get<std::string>());
      size_t colon = decoded ? decoded->find(':') : std::string::npos;
      if (colon == std::string::npos) {
        return InvalidArgument("docker config.json: the auth of " + want +
                               " is not base64 of user:password");
      }
      c.username = decoded->substr(0, colon);
      c.password = decoded->substr(colon + 1);
    } else {
      auto text = [&](const char* key) {
        return e.contains(key) && e[key].is_string() ? e[key].get<std::string>() : "";
      };
      c.username = text("username");
      c.password = text("password");
    }
    if (c.username.empty()) continue;
    return std::optional<Credentials>(c);
  }
  return std::optional<Credentials>();
}

StatusOr<std::optional<Credentials>> LoadCredentials(std::string_view domain) {
  std::string path;
  if (const char* dir = std::getenv("DOCKER_CONFIG"); dir != nullptr && *dir != '\0') {
    path = std::string(dir) + "/config.json";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    path = std::string(home) + "/.docker/config.json";
  } else {
    return std::optional<Credentials>();
  }
  if (!PathExists(path)) return std::optional<Credentials>();
  AB_ASSIGN_OR_RETURN(std::string text, ReadFileAtMost(path, 1 << 20));
  auto creds = CredentialsFromDockerConfig(text, domain);
  if (!creds.ok()) return InvalidArgument(path + ": " + creds.status().message());
  return creds;
}

std::string BasicAuthorization(const Credentials& c) {
  return "Basic " + Base64Encode(c.username + ":" + c.password);
}

}  // namespace agentbox::registry
