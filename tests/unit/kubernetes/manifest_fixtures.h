// The two sandboxes the manifest tests and the golden files are made of: the strict default
// policy, and one with every option set (owners, Localhost seccomp, runtime class, TTL, another
// server namespace, an image user, bigger limits, no disk limit).
#pragma once

#include "kubernetes/manifest_inputs.h"
#include "spec/sandbox_spec.h"

namespace agentbox::kubernetes::testing {

inline SandboxSpec StrictSpec() {
  SandboxSpec spec;
  spec.image = "debian:bookworm-slim";
  return spec;
}

inline ManifestInputs StrictInputs() {
  ManifestInputs in;
  in.id = "sb-0123abcd";
  in.agent_image = "agentbox-agent:0.1.0";
  in.agent_args = AgentArgs(StrictSpec());
  return in;
}

inline SandboxSpec FullSpec();

inline ManifestInputs FullInputs() {
  ManifestInputs in = StrictInputs();
  in.agent_args = AgentArgs(FullSpec());
  in.seccomp_localhost_profile = "agentbox.json";
  in.runtime_class_name = "gvisor";
  in.server_namespace = "agentbox-system";
  in.owners.push_back(
      {"apps/v1", "Deployment", "agentbox-serve", "5f0c6f5e-8d4b-4c2e-9a52-0d5a3f1c2b7e", true});
  in.owner = "replicas-of-serve";
  in.identity = {"build.web", "2026-12-05T14:00:00Z", 1796480000, false};
  return in;
}

inline SandboxSpec FullSpec() {
  SandboxSpec spec = StrictSpec();
  spec.limits.memory_bytes = 2 * kGiB;
  spec.limits.cpus = 1.5;
  spec.limits.disk_bytes = kNoDiskLimit;
  spec.tmp_bytes = 512 * kMiB;
  spec.shm_bytes = 128 * kMiB;
  spec.ttl_seconds = 3600.5;
  spec.user = {1234, 2345};
  spec.no_pull = true;
  spec.open_files = 4096;
  spec.random_seed = 42;
  spec.allow_hosts = {"example.com", "*.pypi.org:443"};
  return spec;
}

}  // namespace agentbox::kubernetes::testing
