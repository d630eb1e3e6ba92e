#!/usr/bin/env bash
# Integration suite: the CLI of docs/contract.md §1 on the native backend, as a user runs it, each a function case_NAME that can fail.
# Needs root, user namespaces and env AGENTBOX, ABPROBE (see tests/CMakeLists.txt).
# Usage: AGENTBOX=build/agentbox ABPROBE=build/abprobe bash tests/integration/run.sh [REGEX]
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lib/oneshot.sh
source "$HERE/../lib/oneshot.sh"
for f in "$HERE"/cases/*.sh; do
  # shellcheck source=/dev/null
  source "$f"
done
harness_main "$HERE/run.sh" "$@"
