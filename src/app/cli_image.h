// `agentbox image ls|inspect|rm|prune` (cli_image_store.cc), dispatched by cli_image.cc, and
// the image part of `agentbox gc`.
#pragma once

#include <string>
#include <vector>

#include "app/cli.h"
#include "spec/sandbox_spec.h"

// Like AB_ASSIGN_OR_RETURN in a subcommand: a failure is reported (FailWith) and returned.
#define AB_ASSIGN_OR_RETURN_FAIL(lhs, expr) \
  AB_ASSIGN_OR_RETURN_FAIL_IMPL(AB_CONCAT(ab_fail_, __LINE__), lhs, expr)
#define AB_ASSIGN_OR_RETURN_FAIL_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return FailWith(tmp.status());       \
  lhs = std::move(tmp).value()

namespace agentbox {

int ImageLsSubcommand(const Args& args);
int ImageInspectSubcommand(const Args& args);
int ImageRmSubcommand(Args args);
int ImagePruneSubcommand(Args args);

// `run --pull` and `create --pull` (native, with an image): when the store has no image `ref`,
// pulls it from its registry (registry/pull.h), saying so in one line on stderr (a run's stdout
// is the command's). Fails with the pull's reason, prefixed "--pull: could not pull REF: ".
Status PullIfMissing(const SandboxSpec& spec);

// `agentbox gc`'s part: layers no image uses and unfinished downloads; nothing when the state
// directory has no image store. One line each.
std::vector<std::string> CollectImageGarbage();

}  // namespace agentbox
