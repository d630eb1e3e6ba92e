#!/usr/bin/env bash
# packaging: what a user installs (issue 19, point 2), checked as they would meet it:
#  - `agentbox version`: version, commit (git's HEAD) and build type;
#  - `cmake --install` into a scratch prefix: the binaries (the agent found in libexec), a man
#    page per subcommand whose options are exactly those of its --help (both come from one
#    table), bash/zsh/fish completions that load and offer the flags, the systemd units, docs;
#  - socket activation: systemd-socket-activate (what a .socket unit does, without systemd
#    running) hands serve its listening socket; serve answers on it and never unlinks it; a
#    TCP socket without --tokens, two sockets, or --listen beside one are refused;
#  - the units pass `systemd-analyze verify`;
#  - `make deb`'s package: its control data and files, then installed with apt (its
#    dependencies from the mirror) on a fresh Debian 12 (a minimal bookworm root from mmdebstrap, run as a privileged container), where
#    `agentbox doctor` must pass and `agentbox run` work;
#  - the package under a real systemd (that root booted with systemd as PID 1; in_systemd.sh):
#    postinst starts agentbox.socket, the first connection starts agentbox.service.
# Prints "N passed, N failed"; exits 77 (skip) when the host lacks what a step needs.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
AGENTBOX=${AGENTBOX:-$SRC/build/agentbox}
BUILD=$(cd "$(dirname "$AGENTBOX")" && pwd)
skip() { echo "skip: $1"; [[ "${CI:-}" == "true" ]] && exit 1; exit 77; }
[[ $(id -u) == 0 ]] || skip "needs root (the installed agentbox runs a sandbox; dpkg; docker)"
"$AGENTBOX" doctor >/dev/null 2>&1 || skip "agentbox doctor fails here"
for tool in cmake cpack dpkg-shlibdeps groff systemd-socket-activate curl; do
  command -v "$tool" >/dev/null || skip "$tool missing (scripts/install-deps.sh test installs it)"
done
# shellcheck source=tests/lib/serve_fixture.sh
source "$SRC/tests/lib/serve_fixture.sh"
fixture_begin packaging

# ---- version ----
V=$("$AGENTBOX" version)
echo "$V" >"$WORK/version.log"
# The commit it names is one of this repository's (the build's HEAD: CI builds what it tests).
version_ok() {
  [[ $V =~ ^agentbox\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ ([0-9a-f]{12})(-dirty)?,\ (RelWithDebInfo|Release|Debug|MinSizeRel)\)$ ]] &&
    git -C "$SRC" cat-file -e "${BASH_REMATCH[1]}^{commit}"
}
if version_ok; then ok "agentbox version: version, commit, build type ($V)"; else bad "agentbox version: $V" "$WORK/version.log"; fi

# ---- cmake --install ----
P=$WORK/prefix
step "cmake --install into a prefix" "$WORK/install.log" cmake --install "$BUILD" --prefix "$P"
SUBS=$("$AGENTBOX" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1}' | grep -vx help)
missing=()
for f in bin/agentbox libexec/agentbox/agentbox-agent share/man/man1/agentbox.1 \
  share/bash-completion/completions/agentbox share/zsh/vendor-completions/_agentbox \
  share/fish/vendor_completions.d/agentbox.fish lib/systemd/system/agentbox.service \
  lib/systemd/system/agentbox.socket share/doc/agentbox/copyright share/doc/agentbox/README.md \
  share/doc/agentbox/docs/contract.md; do
  [[ -e $P/$f ]] || missing+=("$f")
done
for sub in $SUBS; do [[ -e $P/share/man/man1/agentbox-$sub.1 ]] || missing+=("agentbox-$sub.1"); done
step "installed: binaries, a man page per subcommand, completions, units, docs" "$WORK/files.log" \
  bash -c "echo 'missing: ${missing[*]}'; [[ -z '${missing[*]}' ]]"
step "the unit runs the installed agentbox" "$WORK/unit.log" \
  grep -qx "ExecStart=$P/bin/agentbox serve" "$P/lib/systemd/system/agentbox.service"

# Every page renders without a warning, and lists exactly the options of the subcommand's --help.
check_pages() {
  local sub page want got rc=0
  for page in "$P"/share/man/man1/*.1; do
    if groff -man -Tutf8 -ww -z "$page" 2>&1 | grep .; then echo "groff warns on $page"; rc=1; fi
  done
  for sub in $SUBS; do
    want=$("$AGENTBOX" "$sub" --help | grep -o -- '--[a-z][a-z-]*' | sort -u | paste -sd' ')
    # roff spells --no-op as \-\-no\-op: the dashes escaped, the name's own too.
    got=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$P/share/man/man1/agentbox-$sub.1" |
      grep -o -- '\\-\\-[a-z][a-z]*\(\\-[a-z][a-z]*\)*' | sed 's/\\//g' | sort -u | paste -sd' ')
    # --help's prose may name other subcommands' flags; every option line must be in the page.
    for flag in $("$AGENTBOX" "$sub" --help | sed -n '/^Options:/,/^$/p' | grep -o -- '^  \(-., \)\?--[a-z-]*' | grep -o -- '--[a-z-]*'); do
      [[ " $got " == *" $flag "* ]] || { echo "agentbox-$sub.1 lacks $flag (its --help has it)"; rc=1; }
    done
    for flag in $got; do
      [[ " $want " == *" $flag "* ]] || { echo "agentbox-$sub.1 has $flag, its --help does not"; rc=1; }
    done
  done
  return $rc
}
step "man pages render cleanly and match --help, flag for flag" "$WORK/man.log" check_pages
if command -v man >/dev/null; then
  step "man -l shows agentbox-run(1)" "$WORK/man-l.log" bash -c "MANWIDTH=80 man -l '$P/share/man/man1/agentbox-run.1' | grep -q -- '--memory'"
fi

complete_bash() {  # WORDS...: what the installed bash completion offers for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _agentbox; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$P/share/bash-completion/completions/agentbox" "$@"
}
step "bash completion: commands, then a command's flags" "$WORK/bash-completion.log" bash -c "
  $(declare -f complete_bash); P='$P'
  complete_bash agentbox '' | grep -qx exec && complete_bash agentbox ls --f | grep -qx -- --format &&
  complete_bash agentbox run --mem | grep -qx -- --memory && complete_bash agentbox help ins | grep -qx inspect"
for shell in zsh fish; do
  if command -v "$shell" >/dev/null; then
    file=$P/share/zsh/vendor-completions/_agentbox
    [[ $shell == fish ]] && file=$P/share/fish/vendor_completions.d/agentbox.fish
    step "$shell completion parses" "$WORK/$shell.log" "$shell" -n "$file"
  elif [[ ${CI:-} == true ]]; then
    bad "$shell missing (scripts/install-deps.sh test installs it)"
  fi
done
if command -v fish >/dev/null; then
  step "fish completion offers ls's flags" "$WORK/fish-complete.log" bash -c \
    "fish -c 'source $P/share/fish/vendor_completions.d/agentbox.fish; complete -C \"agentbox ls --\"' | grep -q -- '--format'"
fi

mkdir -p "$WORK/state-installed"
step "the installed agentbox finds its agent in libexec and runs a command" "$WORK/installed-run.log" \
  env -u AGENTBOX_AGENT AGENTBOX_STATE_DIR="$WORK/state-installed" "$P/bin/agentbox" run -- sh -c 'echo from $(hostname)'
grep -qx "from sandbox" "$WORK/installed-run.log" || bad "the installed agentbox's output" "$WORK/installed-run.log"

if command -v systemd-analyze >/dev/null; then
  step "systemd-analyze verify: the units" "$WORK/verify.log" bash -c \
    "systemd-analyze verify '$P/lib/systemd/system/agentbox.socket' '$P/lib/systemd/system/agentbox.service' 2>&1 | tee /dev/stderr | grep -v 'Failed to load\|Cannot add dependency\|No such file' | grep -qi 'error\|warning' && exit 1; exit 0"
fi

# ---- socket activation ----
# activate NAME ARGS...: systemd-socket-activate ARGS -- agentbox serve; its pid in ACT_PID.
activate() {
  local name=$1
  shift
  mkdir -p "$WORK/state-$name"
  AGENTBOX_STATE_DIR=$WORK/state-$name guard_bg systemd-socket-activate "$@" 2>"$WORK/$name.log"
  ACT_PID=$GUARD_BG_PID
  FIXTURE_SERVERS+=("$ACT_PID")
  guard_track "$ACT_PID"
}
SA=$WORK/activated.sock
activate sa -l "$SA" "$AGENTBOX" serve
wait_for() { for _ in $(seq 400); do eval "$1" && return 0; sleep 0.05; done; return 1; }
step "systemd-socket-activate made the socket" "$WORK/sa-made.log" wait_for "[[ -S '$SA' ]]"
step "serve answers on the socket it was handed (first connection starts it)" "$WORK/sa-health.log" \
  bash -c "[[ \$(curl -sS --max-time 60 --unix-socket '$SA' http://x/healthz) == ok ]]"
step "serve says the socket is systemd's" "$WORK/sa-line.log" grep -q "listening on (systemd) unix:$SA" "$WORK/sa.log"
step "a sandbox through the activated socket" "$WORK/sa-exec.log" bash -c "
  id=\$(curl -sS --unix-socket '$SA' --json '{}' http://x/v1/sandboxes | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"id\"])') &&
  curl -sS --unix-socket '$SA' --json '{\"argv\":[\"echo\",\"activated\"]}' http://x/v1/sandboxes/\$id/exec | grep -q '\"stdout\":\"activated\\\\n\"' &&
  curl -sS --unix-socket '$SA' -X DELETE \"http://x/v1/sandboxes/\$id?force=true\" | grep -q removed"
kill -TERM "$ACT_PID"
wait "$ACT_PID"
rc=$?
step "SIGTERM: serve exits 0 and leaves systemd's socket in place" "$WORK/sa-stop.log" \
  bash -c "echo rc=$rc; [[ $rc == 0 && -S '$SA' ]]"

# Refused: --listen beside an activated socket, two sockets, TCP without --tokens.
refused() {  # NAME WANT ARGS...: serve handed a socket by systemd-socket-activate ARGS must exit 125 saying WANT
  local name=$1 want=$2 sock
  shift 2
  activate "$name" "$@"
  sock=$(printf '%s\n' "$@" | grep -m1 -- '^/\|^127')
  for _ in $(seq 400); do [[ -S $sock ]] || [[ $sock == 127.* ]] && break; sleep 0.05; done
  if [[ $sock == 127.* ]]; then curl -s --max-time 30 "http://$sock/healthz" >/dev/null; else curl -s --max-time 30 --unix-socket "$sock" http://x/healthz >/dev/null; fi
  wait "$ACT_PID"
  local got=$?
  echo "exit $got"; cat "$WORK/$name.log"
  [[ $got == 125 ]] && grep -q -- "$want" "$WORK/$name.log"
}
step "refused: --listen with a socket from systemd" "$WORK/r1.log" refused r1 "the .socket unit says where" -l "$WORK/r1.sock" "$AGENTBOX" serve --listen "unix:$WORK/other.sock"
step "refused: two sockets" "$WORK/r2.log" refused r2 "serve takes exactly one" -l "$WORK/r2a.sock" -l "$WORK/r2b.sock" "$AGENTBOX" serve
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
step "refused: a TCP socket without --tokens" "$WORK/r3.log" refused r3 "without --tokens" -l "127.0.0.1:$PORT" "$AGENTBOX" serve

# ---- make deb ----
step "make deb (cpack)" "$WORK/cpack.log" bash -c "cd '$BUILD' && cpack -G DEB"
DEB=$(ls "$BUILD"/agentbox_*_amd64.deb 2>/dev/null | head -1)
step "the package's control data" "$WORK/deb-info.log" bash -c "
  dpkg-deb -I '$DEB' && dpkg-deb -f '$DEB' Package Version Architecture | paste -sd' ' | grep -qx 'Package: agentbox Version: [0-9.]* Architecture: amd64' &&
  deps=\$(dpkg-deb -f '$DEB' Depends | sed 's/ *([^)]*)//g; s/, */\\n/g' | sort -u | paste -sd' ') && echo \"Depends: \$deps\" &&
  [[ \$deps == 'btrfs-progs libc6 libcurl4 passwd' ]] &&
  dpkg-deb -I '$DEB' postinst | grep -q 'groupadd --system agentbox'"
step "the package's files" "$WORK/deb-files.log" bash -c "
  dpkg-deb -c '$DEB' | tee /dev/stderr | awk '{print \$6}' > '$WORK/deb.list' &&
  for f in ./usr/bin/agentbox ./usr/libexec/agentbox/agentbox-agent ./usr/share/man/man1/agentbox-run.1 \
    ./usr/lib/systemd/system/agentbox.service ./usr/lib/systemd/system/agentbox.socket \
    ./usr/share/bash-completion/completions/agentbox ./usr/share/doc/agentbox/copyright; do
    grep -qx \"\$f\" '$WORK/deb.list' || { echo \"missing \$f\"; exit 1; }
  done
  dpkg-deb --fsys-tarfile '$DEB' | tar -xOf - ./usr/lib/systemd/system/agentbox.service | grep -qx 'ExecStart=/usr/bin/agentbox serve'"

# On a fresh Debian 12: a bookworm root made now (cached in the build dir for a day), dpkg -i.
fresh_install() {
  command -v docker >/dev/null && docker info >/dev/null 2>&1 || { echo "no Docker daemon answers"; return 77; }
  # shellcheck source=scripts/lib/fresh_debian.sh
  source "$SRC/scripts/lib/fresh_debian.sh"
  local root=$BUILD/packaging/bookworm.tar tag=agentbox-deb-test:$$ name=agentbox-deb-test-$$
  mkdir -p "$BUILD/packaging"
  if [[ ! -s $root || -n $(find "$root" -mmin +1440) ]]; then
    # (mmdebstrap picks the format from the name's extension: .tar)
    fresh_debian_root "$root.new.tar" "$WORK/mmdebstrap.log" && mv "$root.new.tar" "$root" || { tail -20 "$WORK/mmdebstrap.log"; return 1; }
  fi
  docker import "$root" "$tag" >/dev/null || return 1
  fresh_debian_privilege
  # apt installs it as a newcomer would, its dependencies from the mirror (the host's network).
  docker run --rm --name "$name" "${FRESH_PRIVILEGE[@]}" --cgroupns=host --network host \
    --mount type=volume,dst=/var/lib/agentbox --mount type=volume,dst=/tmp \
    -v "$DEB:/agentbox.deb:ro" "$tag" bash -euc '
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /agentbox.deb
      getent group agentbox
      agentbox version
      agentbox doctor
      agentbox run -- sh -c "echo fresh from \$(hostname)"
      id=$(agentbox create)
      agentbox exec "$id" -- true
      agentbox rm "$id"
      test -x /usr/libexec/agentbox/agentbox-agent
      agentbox image ls
      dpkg -r agentbox && test ! -e /usr/bin/agentbox'
  local rc=$?
  docker rmi -f "$tag" >/dev/null 2>&1
  return $rc
}
# container_step NAME FUNC: FUNC's output in $WORK/FUNC.log; its 77 (no Docker daemon) is a skip,
# and under CI a failure.
container_step() {
  local name=$1 fn=$2 rc
  "$fn" >"$WORK/$fn.log" 2>&1
  rc=$?
  if [[ $rc == 0 ]]; then
    ok "$name"
  elif [[ $rc != 77 ]]; then
    bad "$name" "$WORK/$fn.log"
  elif [[ ${CI:-} == true ]]; then
    bad "$name: $(head -1 "$WORK/$fn.log")"
  else
    echo "skip $name: $(head -1 "$WORK/$fn.log")"
  fi
}
container_step "the .deb on a fresh Debian 12: apt installs it, doctor passes, run/create/exec/rm work, dpkg -r" fresh_install


# Under systemd: the same root booted with systemd as PID 1 (a private cgroup namespace, no
# network, so it can touch nothing of this host's), where dpkg -i's postinst enables and starts
# agentbox.socket. The first connection starts agentbox.service (serve on systemd's socket), the
# socket is 0660 root:agentbox (a user outside the group is refused), the Python SDK finds it with
# no URL given, a stopped service is started again by the next connection, and dpkg -r stops
# both. On cgroup v1 the systemd in a container gets no controllers to delegate, so no sandbox is
# made here: the fresh install above makes them.
# systemd_image TAG: the bookworm root with systemd, curl, python3 and the package's dependencies
# (from the mirror), but not the package itself: dpkg -i comes once systemd runs.
systemd_image() {
  local tag=$1 prep=agentbox-deb-prep-$$ root=$BUILD/packaging/bookworm.tar rc
  [[ -s $root ]] || { echo "no bookworm root (the fresh install step makes it)"; return 1; }
  docker import "$root" "$tag-base" >/dev/null || return 1
  docker run --name "$prep" --network host -v "$DEB:/agentbox.deb:ro" "$tag-base" bash -euc '
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends systemd systemd-sysv curl python3 /agentbox.deb >/dev/null
    dpkg -r agentbox >/dev/null' &&
    docker commit "$prep" "$tag" >/dev/null
  rc=$?
  docker rm -f "$prep" >/dev/null 2>&1
  docker rmi -f "$tag-base" >/dev/null 2>&1
  return $rc
}

under_systemd() {
  command -v docker >/dev/null && docker info >/dev/null 2>&1 || { echo "no Docker daemon answers"; return 77; }
  local tag=agentbox-deb-systemd:$$ name=agentbox-deb-systemd-$$ rc
  systemd_image "$tag" || return 1
  fresh_debian_privilege
  local priv=() i
  # All but the host's cgroup tree and /dev (no sandbox is made here; systemd keeps to its own).
  for ((i = 0; i < ${#FRESH_PRIVILEGE[@]}; i++)); do
    if [[ ${FRESH_PRIVILEGE[i]} == -v && ${FRESH_PRIVILEGE[i + 1]} == @(/sys/fs/cgroup|/dev):* ]]; then
      i=$((i + 1))
    else
      priv+=("${FRESH_PRIVILEGE[i]}")
    fi
  done
  # cgroup v1 (this tree a tmpfs): an empty tmpfs, where systemd mounts its own hierarchy inside
  # the private namespace; v2: docker mounts the namespace's own cgroup2 there.
  local cg=()
  [[ $(stat -fc %T /sys/fs/cgroup) == tmpfs ]] && cg=(--tmpfs /sys/fs/cgroup)
  docker run -d --name "$name" --network none "${priv[@]}" --cgroupns=private \
    "${cg[@]}" --tmpfs /run --tmpfs /run/lock -e container=docker \
    -v "$DEB:/agentbox.deb:ro" -v "$SRC/sdk/python/src:/sdk:ro" \
    -v "$SRC/tests/packaging/in_systemd.sh:/in_systemd.sh:ro" "$tag" /lib/systemd/systemd >/dev/null || { docker rmi -f "$tag" >/dev/null; return 1; }
  docker exec "$name" bash /in_systemd.sh
  rc=$?
  docker logs "$name" 2>&1 | tail -5
  docker rm -f "$name" >/dev/null 2>&1
  docker rmi -f "$tag" >/dev/null 2>&1
  return $rc
}
container_step "the .deb under systemd: postinst starts agentbox.socket, the first connection starts serve, 0660 root:agentbox, dpkg -r stops both" under_systemd

fixture_summary
