#!/usr/bin/env bash
# Run by tests/packaging/run.sh inside a Debian 12 container booted with systemd as PID 1, the
# package at /agentbox.deb and sdk/python/src at /sdk: installs the package as a user would and
# checks what the unit promises (README's Install, docs/security.md "The systemd unit").
set -eux
for _ in $(seq 600); do s=$(systemctl is-system-running 2>/dev/null || true); [[ $s == running || $s == degraded ]] && break; sleep 0.1; done
echo "systemd: $s"
S=/run/agentbox/agentbox.sock
dpkg -i /agentbox.deb
test "$(systemctl is-enabled agentbox.socket)" = enabled
test "$(systemctl is-active agentbox.socket)" = active
test "$(systemctl is-active agentbox.service)" = inactive
test "$(stat -c "%a %U %G" $S)" = "660 root agentbox"
test "$(curl -sS --unix-socket $S http://x/healthz)" = ok
test "$(systemctl is-active agentbox.service)" = active
journalctl -u agentbox.service --no-pager | grep -q "listening on (systemd) unix:$S"
curl -sS --unix-socket $S http://x/v1/sandboxes | grep -qx "{\"sandboxes\":\[\]}"
# The Python SDK finds the socket of the unit by itself (no URL given).
test "$(PYTHONPATH=/sdk python3 -c "import agentbox; print(agentbox.Client().list())")" = "[]"
if setpriv --reuid=nobody --regid=nogroup --clear-groups curl -sS --unix-socket $S http://x/healthz; then
  echo "nobody, outside the agentbox group, reached the socket"; exit 1
fi
systemctl stop agentbox.service
test "$(systemctl is-active agentbox.socket)" = active
test "$(curl -sS --unix-socket $S http://x/healthz)" = ok
dpkg -r agentbox
test "$(systemctl is-active agentbox.socket)" != active
test "$(systemctl is-active agentbox.service)" != active
echo "all under systemd"
