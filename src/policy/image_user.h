// ResolveImageUser: who an image's commands run as, from its config's User ("name", "uid",
// "name:group", "uid:gid") and the image's own /etc/passwd and /etc/group.
//
// Pure (no OS headers: the native backend, the docker backend's agent and tests all call it).
// The image's user is honoured when it is not root: a uid of 1..65534 (a name is looked up in the
// image's passwd), with the group named after the colon (a name looked up in its group file),
// else the passwd entry's group, else the uid's own number. Root (uid 0, "root", or no User at
// all) keeps the sandbox's strict default, uid/gid 1000; a group 0 is never given (the user's own
// number instead): root's group owns what only root may change. The uid and gid only change the
// number inside: on the host the user stays an id no account has (docs/policy.md, "Images").
// A name the image does not list, or an id past 65534 (the highest agentbox maps), is
// kInvalidArgument with one line, as docker refuses an unknown user.
#pragma once

#include <string_view>

#include "base/status.h"
#include "spec/sandbox_spec.h"

namespace agentbox {

StatusOr<SandboxUser> ResolveImageUser(std::string_view user, std::string_view passwd,
                                       std::string_view group);

// True when `user` needs the image's files to resolve (it names a user or group by name).
bool ImageUserNeedsLookup(std::string_view user);

// "uid:gid", as the agent's --user flag and docker's User take it.
std::string SandboxUserText(const SandboxUser& user);
// The inverse; kInvalidArgument for anything but two ids in 1..65534.
StatusOr<SandboxUser> ParseSandboxUser(std::string_view text);

}  // namespace agentbox
