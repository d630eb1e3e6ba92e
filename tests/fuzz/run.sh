#!/usr/bin/env bash
# fuzz: builds the libFuzzer targets (tests/fuzz/*_fuzzer.cc) in a separate clang build with
# ASan + UBSan, then runs each for FUZZ_SECONDS (default 15) from its committed seed corpus
# tests/fuzz/corpus/NAME/. A crash, a sanitizer report, a leak or a broken FUZZ_CHECK fails the
# fuzzer; its reproducer is kept in $FUZZ_BUILD_DIR/artifacts. Prints "N passed, N failed".
# Skipped (exit 77) when clang or libFuzzer is missing; under CI=true that is a failure.
#
# Env: FUZZ_SECONDS, FUZZ_BUILD_DIR (default build-fuzz in the source tree), FUZZ_JOBS (2).
# Usage: run.sh [NAME...]   fuzz only these (e.g. http_request_fuzzer); all by default.
set -uo pipefail

SRC=${AGENTBOX_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${FUZZ_BUILD_DIR:-$SRC/build-fuzz}
SECONDS_EACH=${FUZZ_SECONDS:-15}
JOBS=${FUZZ_JOBS:-2}

skip() {
  echo "fuzz: skipped: $1"
  [[ "${CI:-}" == "true" ]] && { echo "0 passed, 1 failed"; exit 1; }
  exit 77
}

CLANGXX=$(command -v clang++ || command -v clang++-14 || true)
CLANG=$(command -v clang || command -v clang-14 || true)
[[ -n "$CLANGXX" && -n "$CLANG" ]] || skip "clang is not installed (scripts/install-deps.sh test)"
probe_dir=$(mktemp -d /tmp/ab-fuzz-probe.XXXXXX)
trap 'rm -rf "$probe_dir"' EXIT
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' \
  >"$probe_dir/p.cc"
"$CLANGXX" -fsanitize=fuzzer,address,undefined "$probe_dir/p.cc" -o "$probe_dir/p" 2>/dev/null ||
  skip "clang cannot link -fsanitize=fuzzer (libclang-rt-14-dev missing?)"

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
mkdir -p "$BUILD"
echo "fuzz: configuring $BUILD"
if ! cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAGENTBOX_FUZZ=ON \
  -DCMAKE_C_COMPILER="$CLANG" -DCMAKE_CXX_COMPILER="$CLANGXX" "${launcher[@]}" >"$BUILD/configure.log" 2>&1; then
  cat "$BUILD/configure.log"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "fuzz: building the fuzzers"
if ! cmake --build "$BUILD" --target fuzzers -j"$JOBS" >"$BUILD/build.log" 2>&1; then
  tail -40 "$BUILD/build.log"
  echo "0 passed, 1 failed"
  exit 1
fi

if [[ $# -gt 0 ]]; then
  names=("$@")
else
  names=()
  for f in "$SRC"/tests/fuzz/*_fuzzer.cc; do names+=("$(basename "$f" .cc)"); done
fi

PASS=0 FAIL=0
mkdir -p "$BUILD/artifacts"
for name in "${names[@]}"; do
  bin=$BUILD/tests/fuzz/$name
  seeds=$SRC/tests/fuzz/corpus/${name%_fuzzer}
  work=$(mktemp -d /tmp/ab-fuzz-corpus.XXXXXX)  # new inputs go here, never into the seeds
  case $name in
    http_request_fuzzer) dict=(-dict="$SRC/tests/fuzz/dict/http.dict") ;;
    cli_args_fuzzer) dict=(-dict="$SRC/tests/fuzz/dict/cli.dict") ;;
    path_beneath_fuzzer) dict=() ;;
    websocket_fuzzer) dict=() ;;  # binary frames: no text tokens to suggest
    *) dict=(-dict="$SRC/tests/fuzz/dict/json.dict") ;;
  esac
  log=$BUILD/artifacts/$name.log
  if [[ ! -x "$bin" ]]; then
    FAIL=$((FAIL + 1))
    echo "FAIL $name: not built"
    continue
  fi
  "$bin" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -error_exitcode=1 -print_final_stats=1 \
    -artifact_prefix="$BUILD/artifacts/$name-" "${dict[@]}" "$work" "$seeds" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  if [[ $rc -eq 0 ]]; then
    PASS=$((PASS + 1))
    echo "PASS $name: ${execs:-?} execs in ${SECONDS_EACH}s, ${cov:-cov: ?}"
  else
    FAIL=$((FAIL + 1))
    echo "FAIL $name (exit $rc): reproducer and log in $BUILD/artifacts"
    grep -m1 -E 'ERROR: |FUZZ_CHECK|runtime error|terminate called' "$log" | sed 's/^/  /'
  fi
  rm -rf "$work"
done
echo "$PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
