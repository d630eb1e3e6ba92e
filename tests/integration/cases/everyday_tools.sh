# shellcheck shell=bash
# Ordinary tools keep working under the filter (issue 17, point 7): named pipes, unix sockets, and
# the real workloads an agent runs all day (a C build with make -j, a venv with pip installing a
# local wheel, npm installing a local tarball, git cloning a local repo, pytest). Everything runs
# offline: the network stays off. A tool the host lacks is a skip with its reason (a failure
# under CI=true: scripts/install-deps.sh test installs them all).
# shellcheck disable=SC2016,SC2034

# own_workspace: the files a case wrote into $WS from the host become the workspace owner's, as
# the harness made $WS itself (the sandbox's user could not write beside root's files).
own_workspace() { chown -R "$AB_WS_OWNER" "$WS"; }

# missing_tool REASON: the host lacks a tool a case needs. A skip (a failure under CI=true) on a
# host, where scripts/install-deps.sh test installs it; N/A in the VM lane, whose root is a
# minimal one for cgroup v2 and the kernel: these cases are about the seccomp filter, which
# does not depend on the kernel, and every host lane runs them.
missing_tool() {
  [[ ${AGENTBOX_VM_GUEST:-} == 1 ]] && not_applicable "the VM lane's minimal root: $1"
  skip "$1"
}

# need_tool NAME...: skips the case unless each NAME is on the PATH the sandbox sees (/usr/bin,
# /bin: the host's system dirs, not a host user's ~/.pyenv or ~/.nvm).
need_tool() {
  local t
  for t in "$@"; do
    [[ -x /usr/bin/$t || -x /bin/$t ]] || missing_tool "$t is not installed in /usr/bin (scripts/install-deps.sh test)"
  done
}

# A FIFO in /workspace and in /tmp, made by mkfifo and by mknod p, carries data between processes.
case_mkfifo_in_workspace_and_tmp() {
  sh_in 'set -e
for d in /workspace /tmp; do
  mkfifo "$d/pipe"; mknod "$d/pipe2" p
  test -p "$d/pipe" && test -p "$d/pipe2"
  (echo "through $d" >"$d/pipe") & read -r line <"$d/pipe"; wait
  echo "$line"; rm "$d/pipe" "$d/pipe2"
done'
  expect_rc 0 "$AB_ERR"
  expect_out_has "through /workspace"
  expect_out_has "through /tmp"
}

# The raw calls too, both syscalls: FIFOs, sockets and plain files (mknod's type 0 and S_IFREG).
case_mknod_fifo_socket_file_allowed() {
  local type via
  for type in fifo sock reg; do
    for via in mknod mknodat; do
      box -- /workspace/abprobe mknod "/tmp/node-$type-$via" "$type" "$via"
      [[ $AB_RC == 0 && $AB_OUT == OK* ]] || fail "mknod $type via $via refused: $AB_OUT"
    done
  done
}

# A shell script's job control over named pipes, as test harnesses and build scripts use it:
# several writers, one reader, fd redirections held open.
case_shell_script_with_named_pipes() {
  cat >"$WS/fan-in.sh" <<'EOF'
#!/bin/sh
set -e
dir=$(mktemp -d)
mkfifo "$dir/results"
exec 3<>"$dir/results"   # held open for reading, so no worker's line is lost between reads
for i in 1 2 3 4; do (echo "worker $i done" >"$dir/results") & done
count=0
while [ $count -lt 4 ]; do read -r line <&3; count=$((count + 1)); done
wait
exec 3<&-
echo "all $count workers reported"
rm -r "$dir"
EOF
  chmod +x "$WS/fan-in.sh"
  own_workspace
  box -- /workspace/fan-in.sh
  expect_rc 0 "$AB_ERR"
  expect_out_has "all 4 workers reported"
}

# A C project built with make -j and a recursive make (the job server's pipe), then run.
case_c_build_with_make_j() {
  need_tool make cc
  mkdir -p "$WS/proj/lib"
  local i
  for i in 1 2 3 4 5 6; do printf 'int f%d(void) { return %d; }\n' "$i" "$i" >"$WS/proj/lib/f$i.c"; done
  printf 'int f1(void);int f2(void);int f3(void);int f4(void);int f5(void);int f6(void);\n#include <stdio.h>\nint main(void){printf("sum=%%d\\n",f1()+f2()+f3()+f4()+f5()+f6());return 0;}\n' >"$WS/proj/main.c"
  printf 'OBJS = f1.o f2.o f3.o f4.o f5.o f6.o\nlibf.a: $(OBJS)\n\tar rcs $@ $^\n%%.o: %%.c\n\t$(CC) -O2 -c $< -o $@\n' >"$WS/proj/lib/Makefile"
  printf 'app: main.c lib/libf.a\n\t$(CC) -O2 main.c lib/libf.a -o app\nlib/libf.a:\n\t$(MAKE) -C lib\n.PHONY: lib/libf.a\n' >"$WS/proj/Makefile"
  own_workspace
  box -w /workspace/proj -- sh -c 'make -j4 && ./app'
  expect_rc 0 "$AB_ERR"
  expect_out_has "sum=21"
}

# python3 -m venv, a wheel built offline from a local project, pip installing it into the venv.
case_python_venv_pip_install_local_wheel() {
  need_tool python3
  /usr/bin/python3 -c 'import ensurepip, venv, setuptools, wheel' 2>/dev/null ||
    missing_tool "Debian's python3-venv, python3-setuptools or python3-wheel is missing (scripts/install-deps.sh test)"
  mkdir -p "$WS/hello/abhello"
  printf 'def greet():\n    return "hello from a local wheel"\n' >"$WS/hello/abhello/__init__.py"
  printf 'from setuptools import setup\nsetup(name="abhello", version="1.0", packages=["abhello"])\n' >"$WS/hello/setup.py"
  own_workspace
  # Three calls, each well within the harness's bound on one (a venv's ensurepip takes seconds).
  box -- python3 -m pip wheel --no-deps --no-build-isolation --no-index -q -w /workspace/dist /workspace/hello
  expect_rc 0 "pip wheel: $AB_ERR"
  box -- python3 -m venv /workspace/venv
  expect_rc 0 "venv: $AB_ERR"
  box -- sh -c 'set -e
/workspace/venv/bin/pip install --no-index -q /workspace/dist/abhello-1.0-py3-none-any.whl
/workspace/venv/bin/python -c "import abhello; print(abhello.greet())"'
  expect_rc 0 "$AB_ERR"
  expect_out_has "hello from a local wheel"
}

# pytest collecting and running a small suite (tmp_path, capture, a failing test reported as such).
case_pytest_runs_a_suite() {
  need_tool python3
  /usr/bin/python3 -c 'import pytest' 2>/dev/null || missing_tool "python3-pytest is missing (scripts/install-deps.sh test)"
  mkdir -p "$WS/t"
  printf 'def test_tmp(tmp_path):\n    (tmp_path / "f").write_text("x")\n    assert (tmp_path / "f").read_text() == "x"\n\ndef test_out(capsys):\n    print("hi")\n    assert capsys.readouterr().out == "hi\\n"\n\ndef test_bad():\n    assert 1 == 2\n' >"$WS/t/test_a.py"
  own_workspace
  box -w /workspace/t -- python3 -m pytest -q -p no:cacheprovider
  expect_rc 1 "one test fails on purpose"
  expect_out_has "1 failed, 2 passed"
}

# npm packing a local package and installing the tarball into another project, offline.
case_npm_install_local_tarball() {
  need_tool node npm
  mkdir -p "$WS/lib" "$WS/app"
  printf '{"name":"ab-local-lib","version":"1.0.0","main":"index.js"}\n' >"$WS/lib/package.json"
  printf 'module.exports = () => "hello from a local tarball";\n' >"$WS/lib/index.js"
  printf '{"name":"ab-app","version":"1.0.0","private":true}\n' >"$WS/app/package.json"
  own_workspace
  box -e NO_UPDATE_NOTIFIER=1 -w /workspace/app -- sh -c 'set -e
npm pack --silent ../lib >/dev/null
npm install --offline --no-audit --no-fund --silent ./ab-local-lib-1.0.0.tgz
node -e "console.log(require(\"ab-local-lib\")())"'
  expect_rc 0 "$AB_ERR"
  expect_out_has "hello from a local tarball"
}

# git init, commit, clone of the local repo (git's own helpers: pack-objects, index-pack), log.
case_git_clone_local_repo() {
  need_tool git
  box -e GIT_AUTHOR_NAME=a -e GIT_AUTHOR_EMAIL=a@b -e GIT_COMMITTER_NAME=a \
    -e GIT_COMMITTER_EMAIL=a@b -- sh -c 'set -e
git init -q -b main /workspace/origin
cd /workspace/origin
for i in 1 2 3; do echo "v$i" >file; git add file; git commit -qm "commit $i"; done
git gc -q
git clone -q /workspace/origin /workspace/copy
git clone -q --no-local file:///workspace/origin /tmp/copy2
cd /workspace/copy && git log --oneline | wc -l && cat file
cd /tmp/copy2 && git fsck --no-progress 2>&1 && echo FSCK_OK'
  expect_rc 0 "$AB_ERR"
  [[ $AB_OUT == $'3\nv3\nFSCK_OK' ]] || fail "clone: got '$AB_OUT'"
}
