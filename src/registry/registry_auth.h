// What a registry asks for (its WWW-Authenticate challenge) and the credentials agentbox has
// for it.
//
// Credentials come from one documented place: docker's config.json ($DOCKER_CONFIG/config.json,
// else ~/.docker/config.json), its "auths" entry for the registry ("auth": base64 of
// "user:password", or "username" and "password"; "identitytoken" is sent as a refresh token).
// Credential helpers ("credsStore", "credHelpers") are not run: agentbox executes no program
// named by a config file. Parsing is pure and unit-tested; only LoadCredentials reads a file.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace agentbox::registry {

struct Challenge {
  std::string scheme;                         // "bearer" or "basic", lower-cased
  std::map<std::string, std::string> params;  // realm, service, scope, ...
};

// Parses one WWW-Authenticate value: `Bearer realm="https://a/token",service="r",scope="..."`.
StatusOr<Challenge> ParseChallenge(std::string_view header);

struct Credentials {
  std::string username;
  std::string password;
};

// The entry for `domain` in a docker config.json text (keys may be "host", "https://host" or
// "https://host/v1/"); nullopt when there is none. kInvalidArgument for malformed text.
StatusOr<std::optional<Credentials>> CredentialsFromDockerConfig(std::string_view json,
                                                                 std::string_view domain);

// The same, read from the config file in the environment's place (absent file: nullopt).
StatusOr<std::optional<Credentials>> LoadCredentials(std::string_view domain);

// "Basic <base64(user:password)>".
std::string BasicAuthorization(const Credentials& c);

}  // namespace agentbox::registry
