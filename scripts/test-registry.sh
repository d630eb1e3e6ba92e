#!/usr/bin/env bash
# A private OCI registry on loopback for tests and benchmarks: Debian's docker-registry (the
# CNCF distribution registry) with its own config, port, storage dir and, optionally, auth.
#
#   scripts/test-registry.sh start --state FILE [--auth none|basic|token] [--dir DIR]
#   scripts/test-registry.sh stop --state FILE
#
# start writes FILE (shell variables: REGISTRY=127.0.0.1:PORT, REGISTRY_DIR, REGISTRY_AUTH,
# REGISTRY_USER, REGISTRY_PASSWORD, REGISTRY_PID, TOKEN_PID, DOCKER_CONFIG: a config.json with
# the credentials, for agentbox's pull) and returns once the registry answers. basic: htpasswd
# (bcrypt); token: Bearer tokens from tests/images/token_server.py, which wants the credentials.
# stop kills only the pids FILE names (checked against their command lines) and removes DIR.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:-}; shift || true
state="" auth=none dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --state) state=$2; shift 2 ;;
    --auth) auth=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) echo "test-registry: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$state" ] || { echo "test-registry: --state FILE is required" >&2; exit 2; }

# Debian's python3, whose packages (bcrypt, cryptography) the test installs, before any other.
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Kills pid $1 if its command line still contains $2 (a pid can be reused).
stop_pid() {
  local pid=$1 mark=$2
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 0
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$mark" || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do [ -d "/proc/$pid" ] || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

do_stop() {
  [ -f "$state" ] || return 0
  # shellcheck disable=SC1090
  . "$state"
  stop_pid "${REGISTRY_PID:-}" "$REGISTRY_DIR/config.yml"
  stop_pid "${TOKEN_PID:-}" "$REGISTRY_DIR/token.crt"
  rm -rf "$REGISTRY_DIR"
  rm -f "$state"
}

do_start() {
  command -v docker-registry >/dev/null || { echo "test-registry: docker-registry is not installed (apt-get install docker-registry)" >&2; exit 77; }
  [ -n "$dir" ] || dir=$(mktemp -d /tmp/agentbox-registry.XXXXXX)
  mkdir -p "$dir/storage"
  local port user=tester password secret token_pid="" auth_yaml=""
  port=$(free_port)
  password=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
  user=tester
  case "$auth" in
    none) ;;
    basic)
      $PY -c 'import bcrypt,sys; print(sys.argv[1]+":"+bcrypt.hashpw(sys.argv[2].encode(), bcrypt.gensalt(5)).decode())' \
        "$user" "$password" >"$dir/htpasswd"
      auth_yaml="auth:
  htpasswd:
    realm: agentbox-test
    path: $dir/htpasswd" ;;
    token)
      $PY "$here/tests/images/token_server.py" --cert "$dir/token.crt" --key "$dir/token.key" --write-keys
      $PY "$here/tests/images/token_server.py" --cert "$dir/token.crt" --key "$dir/token.key" \
        --port-file "$dir/token.port" --user "$user" --password "$password" >"$dir/token.log" 2>&1 &
      token_pid=$!
      for _ in $(seq 1 100); do [ -f "$dir/token.port" ] && break; sleep 0.1; done
      [ -f "$dir/token.port" ] || { echo "test-registry: the token server did not start" >&2; exit 1; }
      auth_yaml="auth:
  token:
    realm: http://127.0.0.1:$(cat "$dir/token.port")/token
    service: agentbox-test-registry
    issuer: agentbox-test
    rootcertbundle: $dir/token.crt" ;;
    *) echo "test-registry: --auth none|basic|token" >&2; exit 2 ;;
  esac
  secret=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  cat >"$dir/config.yml" <<YAML
version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $dir/storage
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$port
  secret: $secret
$auth_yaml
YAML
  docker-registry serve "$dir/config.yml" >"$dir/registry.log" 2>&1 &
  local pid=$!
  mkdir -p "$dir/docker-config"
  if [ "$auth" != none ]; then
    printf '{"auths":{"127.0.0.1:%s":{"auth":"%s"}}}\n' "$port" \
      "$(printf '%s:%s' "$user" "$password" | base64 -w0)" >"$dir/docker-config/config.json"
  fi
  cat >"$state" <<STATE
REGISTRY=127.0.0.1:$port
REGISTRY_DIR=$dir
REGISTRY_AUTH=$auth
REGISTRY_USER=$user
REGISTRY_PASSWORD=$password
REGISTRY_PID=$pid
TOKEN_PID=$token_pid
DOCKER_CONFIG=$dir/docker-config
STATE
  for _ in $(seq 1 150); do
    code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v2/" || true)
    case "$code" in 200|401) return 0 ;; esac
    [ -d "/proc/$pid" ] || break
    sleep 0.1
  done
  echo "test-registry: the registry did not answer on 127.0.0.1:$port; its log:" >&2
  cat "$dir/registry.log" >&2
  do_stop
  exit 1
}

case "$cmd" in
  start) do_start ;;
  stop) do_stop ;;
  *) echo "usage: $0 start|stop --state FILE [--auth none|basic|token] [--dir DIR]" >&2; exit 2 ;;
esac
