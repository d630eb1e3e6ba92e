// Images the docker backend runs: present on the daemon, or pulled through it.
//
// EnsureImage asks the daemon for the image and, when it lacks it and `may_pull`, has the daemon
// pull it from its registry (POST /images/create, the daemon's own registry settings, mirrors
// and credentials). The pull is bounded: it fails when the daemon reports no progress for
// kPullStallMs, or when it has not finished within kPullTimeoutMs. serve's creates never pull
// (SandboxSpec::no_pull): a tenant must not make the host fetch from a registry of its choosing,
// nor hold a request (and a server thread) for a quarter of an hour.
#pragma once

#include <string>

#include "base/status.h"
#include "docker/engine_client.h"

namespace agentbox::docker {

inline constexpr int kPullTimeoutMs = 15 * 60 * 1000;
inline constexpr int kPullStallMs = 120 * 1000;

// OK when the daemon has `image` or has just pulled it. kNotFound when the registry has no such
// repository or tag (or, without `may_pull`, when the daemon lacks it), kUnavailable when the
// pull could not be made (no registry reachable, a stalled pull); one line each, naming the
// image and what the daemon said.
Status EnsureImage(EngineClient& client, const std::string& image, bool may_pull = true);

// "repo:tag" -> {"repo", "tag"}, "repo@sha256:..." -> {"repo", "sha256:..."}, "repo" ->
// {"repo", "latest"}; a ':' inside a registry host:port is not a tag separator.
std::pair<std::string, std::string> SplitReference(const std::string& name);

// The first {"error": ...} of a stream of JSON progress objects (one per line), or "".
std::string FirstStreamError(std::string_view lines);

}  // namespace agentbox::docker
