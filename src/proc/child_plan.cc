#include "proc/child_plan.h"

namespace agentbox {

void PointAtCommand(CommandStrings& strings, ChildPlan& plan) {
  plan.argv.clear();
  plan.envp.clear();
  for (auto& a : strings.argv) plan.argv.push_back(a.data());
  plan.argv.push_back(nullptr);
  for (auto& e : strings.env) plan.envp.push_back(e.data());
  plan.envp.push_back(nullptr);
}

}  // namespace agentbox
