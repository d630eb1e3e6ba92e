#!/usr/bin/env bash
# run-tests.sh BUILD_DIR [CTEST_ARG...]: what `make test` runs (and so CI, through .ci/run).
#
# Installs what the suites need (scripts/install-deps.sh test, and as root docker and vm too),
# starts a Docker daemon for the docker suites when none answers (scripts/dockerd-ci.sh, with a
# private state file: only a daemon started here is stopped at the end), runs ctest, then prints
# one line per suite (its own count, or why it was skipped) and a last line
#   suites: N passed, N failed[, N skipped]
# Under CI=true nothing that CI can provide may be skipped: a skipped suite counts as failed.
# CTEST_ARG... go to ctest (e.g. -R security, -E 'fuzz|vm_cgroup2'); AGENTBOX_TEST_JOBS=1 runs the
# suites one after another.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: run-tests.sh BUILD_DIR [CTEST_ARG...]}
shift

groups=(test)
[[ $(id -u) == 0 ]] && groups+=(docker vm)
scripts/install-deps.sh "${groups[@]}" || exit 1

dockerd_state=""
if [[ $(id -u) == 0 ]]; then
  dockerd_state=$(mktemp /tmp/agentbox-dockerd.XXXXXX)
  # A daemon that cannot start is the docker suites' to report (they skip, or fail under CI).
  scripts/dockerd-ci.sh start --state "$dockerd_state" || echo "run-tests: no Docker daemon: the docker suites will say so"
fi
stop_dockerd() { [[ -z $dockerd_state ]] || scripts/dockerd-ci.sh stop --state "$dockerd_state"; }
trap stop_dockerd EXIT

junit=$(mktemp /tmp/agentbox-ctest.XXXXXX.xml)
start=$SECONDS
# Whole outputs kept for the summary (ctest keeps only 1 KiB of a passed test's by default).
# Two suites at a time (AGENTBOX_TEST_JOBS): most wait on sandboxes, daemons and a VM more than
# they compute, and every suite keeps to its own state dirs, so they may overlap; the qemu lane
# starts first (its COST), the longest on its own.
(cd "$build" && ctest -j "${AGENTBOX_TEST_JOBS:-2}" --output-on-failure --output-junit "$junit" \
  --test-output-size-passed 4000000 --test-output-size-failed 4000000 "$@")
rc=$?
echo
echo "==== summary ($((SECONDS - start)) s)"
python3 scripts/test-summary.py "$junit" || rc=1
rm -f "$junit"
exit $rc
