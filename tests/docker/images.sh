#!/usr/bin/env bash
# tests/docker/images.sh: images on the docker backend, for real: `--image REF` pulled from a
# registry on loopback (Debian's docker-registry, scripts/test-registry.sh) when the daemon lacks
# it, a missing tag or repository and an unreachable registry as one line and exit 125, and the
# Engine API over TLS (DOCKER_TLS_VERIFY, DOCKER_CERT_PATH) through a TLS-terminating socat in
# front of the daemon's socket, with certificates made here by openssl. Run by
# tests/docker/run_suite.sh images (which makes the busybox and Debian test images first).

export AGENTBOX_BACKEND=docker
# Pushing the Debian image (~400 MB) to a registry takes a while on a busy host.
CASE_TIMEOUT=${CASE_TIMEOUT:-400}
CALL_TIMEOUT=${CALL_TIMEOUT:-240}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lib/persistent.sh
source "$HERE/../lib/persistent.sh"
DOCKER_SOCK=/var/run/docker.sock

dapi() { curl -sS --max-time 20 --unix-socket "$DOCKER_SOCK" -X "$1" "http://docker$2"; }

# start_registry: a registry of this case's own; its address goes to REG.
start_registry() {
  command -v docker-registry >/dev/null || skip "docker-registry is missing (scripts/install-deps.sh docker installs it)"
  local state=$CASE_DIR/registry.env
  on_exit "bash '$HERE/../../scripts/test-registry.sh' stop --state '$state'"
  bash "$HERE/../../scripts/test-registry.sh" start --state "$state" --auth none \
    --dir "$CASE_DIR/registry" >/dev/null || fail "the test registry did not start"
  REG=$(. "$state" && echo "$REGISTRY")
}

# push SRC REF: tags the daemon's image SRC as REF, pushes it, and removes the tag again, so the
# daemon no longer has REF (its layers stay: SRC still uses them).
push() {
  local repo=${2%:*} tag=${2##*:} out
  dapi POST "/images/$1/tag?repo=$repo&tag=$tag" >/dev/null || fail "tag $1 as $2"
  out=$(curl -sS --max-time 200 --unix-socket "$DOCKER_SOCK" -X POST -H "X-Registry-Auth: e30=" \
    "http://docker/images/$repo/push?tag=$tag") || fail "push $2: curl failed"
  [[ $out != *'"error"'* ]] || fail "push $2: ${out: -300}"
  dapi DELETE "/images/$2" >/dev/null
  on_exit "curl -sS --max-time 20 --unix-socket $DOCKER_SOCK -X DELETE http://docker/images/$2 >/dev/null 2>&1"
}

has_image() { [[ $(dapi GET "/images/$1/json") == *'"Id"'* ]]; }

case_run_pulls_a_missing_image() {
  start_registry
  local ref=$REG/agentbox-pull-$$:v1
  push agentbox-test:latest "$ref"
  has_image "$ref" && fail "the daemon still has $ref after the untag"
  ab run --backend docker --image "$ref" -- echo pulled
  expect_rc 0
  expect_out pulled
  has_image "$ref" || fail "run --image $ref did not leave the pulled image"
}

case_missing_tag_or_repository_is_125() {
  start_registry
  push agentbox-test:latest "$REG/agentbox-tags-$$:v1"
  ab run --backend docker --image "$REG/agentbox-tags-$$:nope" -- true
  expect_one_line_error "a tag the registry does not have"
  expect_err_has "$REG/agentbox-tags-$$:nope"
  expect_err_has "not found"
  ab create --backend docker --image "$REG/agentbox-none-$$:v1"
  expect_one_line_error "a repository the registry does not have"
  expect_err_has "agentbox-none-$$"
  [[ -z $(ls "$AGENTBOX_STATE_DIR/sandboxes" 2>/dev/null) ]] || fail "a failed create left state behind"
}

case_unreachable_registry_is_125() {
  # Nothing listens on port 1: the daemon's pull fails at once, and says so in one line.
  ab run --backend docker --image 127.0.0.1:1/agentbox-nowhere:v1 -- true
  expect_one_line_error "a registry nobody answers on"
  expect_err_has "127.0.0.1:1/agentbox-nowhere:v1"
}

# serve's creates never pull (they pass --no-pull): an image the daemon lacks is 404 at once,
# even when a registry has it, and the daemon still lacks it afterwards; nothing is left behind.
case_serve_never_pulls() {
  start_registry
  local ref=$REG/agentbox-serve-$$:v1 sock=$CASE_DIR/serve.sock code
  push agentbox-test:latest "$ref"
  AGENTBOX_BACKEND=docker "$AGENTBOX" serve --listen "unix:$sock" 2>"$CASE_DIR/serve.log" &
  on_exit "kill $! 2>/dev/null"
  wait_until 30 grep -q "listening on" "$CASE_DIR/serve.log" 2>/dev/null || fail "serve did not start: $(head -c 300 "$CASE_DIR/serve.log")"
  code=$(curl -s -o "$CASE_DIR/body" -w '%{http_code}' --max-time 60 --unix-socket "$sock" \
    --json "{\"backend\":\"docker\",\"image\":\"$ref\"}" http://x/v1/sandboxes)
  [[ $code == 404 ]] || fail "create with an image the daemon lacks: HTTP $code, want 404: $(head -c 300 "$CASE_DIR/body")"
  grep -q "does not pull" "$CASE_DIR/body" || fail "the 404 does not say why: $(head -c 300 "$CASE_DIR/body")"
  has_image "$ref" && fail "serve's create pulled $ref"
  [[ -z $(ls "$AGENTBOX_STATE_DIR/sandboxes" 2>/dev/null) ]] || fail "a refused create left state behind"
}

# The done-when of the image work on this backend: python from the Debian image, pulled.
case_debian_python_from_the_registry() {
  has_image agentbox-test-debian:latest || skip "no agentbox-test-debian:latest (run_suite.sh images makes it)"
  start_registry
  local ref=$REG/agentbox-debian-$$:v1
  push agentbox-test-debian:latest "$ref"
  ab run --backend docker --image "$ref" -- python3 -c 'import sys, venv; print("py", sys.version_info[0])'
  expect_rc 0
  expect_out "py 3"
  ab run --backend docker --image "$ref" -- sh -c 'pip --version >/dev/null && rm --version | head -1 && cc --version >/dev/null && echo tools'
  expect_rc 0
  expect_out_has "GNU coreutils"
  expect_out_has tools
}

# make_ca DIR NAME: a CA (DIR/NAME.pem, DIR/NAME-key.pem).
make_ca() {
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$2" \
    -keyout "$1/$2-key.pem" -out "$1/$2.pem" 2>/dev/null || fail "openssl: CA $2"
}
# make_cert DIR CA NAME USAGE [SAN]: a certificate signed by CA (DIR/NAME.pem, DIR/NAME-key.pem).
make_cert() {
  local ext=$1/$3.ext
  printf 'extendedKeyUsage=%s\n%s' "$4" "${5:+subjectAltName=$5}" >"$ext"
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$3" -keyout "$1/$3-key.pem" -out "$1/$3.csr" 2>/dev/null &&
    openssl x509 -req -in "$1/$3.csr" -CA "$1/$2.pem" -CAkey "$1/$2-key.pem" -CAcreateserial \
      -days 2 -extfile "$ext" -out "$1/$3.pem" 2>/dev/null || fail "openssl: certificate $3"
}
# cert_dir DIR CA CLIENT: a DOCKER_CERT_PATH (ca.pem, and cert.pem/key.pem when CLIENT is given).
cert_dir() {
  mkdir -p "$1/$3"
  cp "$1/$2.pem" "$1/$3/ca.pem"
  [[ -z $3 || $3 == none ]] || { cp "$1/$3.pem" "$1/$3/cert.pem"; cp "$1/$3-key.pem" "$1/$3/key.pem"; }
}

# A daemon on TCP with TLS, as `dockerd --tlsverify` offers it: socat terminates TLS (server
# certificate for localhost and 127.0.0.1, client certificates required) in front of the socket.
case_engine_api_over_tls() {
  command -v openssl >/dev/null || skip "openssl is missing"
  command -v socat >/dev/null || skip "socat is missing (scripts/install-deps.sh docker installs it)"
  local d=$CASE_DIR/tls port=$((20000 + RANDOM % 20000))
  mkdir -p "$d"
  make_ca "$d" ca
  make_ca "$d" rogue
  make_cert "$d" ca server serverAuth "DNS:localhost,IP:127.0.0.1"
  make_cert "$d" ca client clientAuth
  make_cert "$d" rogue intruder clientAuth
  cert_dir "$d" ca client
  mkdir -p "$d/none" && cp "$d/ca.pem" "$d/none/ca.pem"
  mkdir -p "$d/wrongca" && cp "$d/rogue.pem" "$d/wrongca/ca.pem" && cp "$d/client.pem" "$d/wrongca/cert.pem" &&
    cp "$d/client-key.pem" "$d/wrongca/key.pem"
  socat "OPENSSL-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork,cert=$d/server.pem,key=$d/server-key.pem,cafile=$d/ca.pem,verify=1" \
    "UNIX-CONNECT:$DOCKER_SOCK" 2>"$d/socat.log" &
  on_exit "kill $!"
  wait_until 20 bash -c "echo >/dev/tcp/127.0.0.1/$port" 2>/dev/null || fail "socat did not listen"

  DOCKER_HOST=tcp://127.0.0.1:$port DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH=$d/client \
    ab run --backend docker -- echo via-tls
  expect_rc 0 "TLS with a client certificate"
  expect_out via-tls
  DOCKER_HOST=tcp://localhost:$port DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH=$d/client \
    ab run --backend docker -- echo by-name
  expect_rc 0 "TLS to a daemon named localhost"
  expect_out by-name
  # The daemon's certificate from another CA: refused before any request is sent.
  DOCKER_HOST=tcp://127.0.0.1:$port DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH=$d/wrongca \
    ab run --backend docker -- true
  expect_one_line_error "a daemon certificate of another CA"
  expect_err_has "TLS"
  # No client certificate: the daemon hangs up.
  DOCKER_HOST=tcp://127.0.0.1:$port DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH=$d/none \
    ab run --backend docker -- true
  expect_one_line_error "no client certificate"
  # TLS without verification is refused, as is plain HTTP to the TLS port.
  DOCKER_HOST=tcp://127.0.0.1:$port DOCKER_TLS=1 ab run --backend docker -- true
  expect_one_line_error "DOCKER_TLS without DOCKER_TLS_VERIFY"
  expect_err_has "DOCKER_TLS_VERIFY"
  DOCKER_HOST=tcp://127.0.0.1:$port ab run --backend docker -- true
  expect_one_line_error "plain HTTP to a TLS port"
}

harness_main "$0" "$@"
