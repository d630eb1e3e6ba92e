#include "image/sandbox_image.h"

#include <algorithm>

namespace agentbox::image {

void ApplyImageConfig(const ImageConfig& config, SandboxSpec* spec) {
  std::vector<std::pair<std::string, std::string>> env;
  for (const std::string& entry : config.env) {
    size_t eq = entry.find('=');
    if (eq == 0 || eq == std::string::npos || entry.find('\0') != std::string::npos) continue;
    std::string name = entry.substr(0, eq);
    bool overridden = std::any_of(spec->env.begin(), spec->env.end(),
                                  [&](const auto& kv) { return kv.first == name; });
    if (!overridden) env.emplace_back(name, entry.substr(eq + 1));
  }
  env.insert(env.end(), spec->env.begin(), spec->env.end());
  spec->env = std::move(env);
  if (!spec->cwd_given && !config.working_dir.empty() && config.working_dir[0] == '/') {
    spec->cwd = config.working_dir;
  }
}

}  // namespace agentbox::image
