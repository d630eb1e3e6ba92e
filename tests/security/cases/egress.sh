# shellcheck shell=bash
# Egress by allowlist (allow_hosts, --allow-host): the only way out is agentbox's proxy, and it
# opens exactly what the list names. Every server here is the test's own, on the host's
# loopback (tests/lib/egress_servers.py); names resolve through a hosts file the test controls
# (AGENTBOX_EGRESS_HOSTS_FILE, read by the proxy before /etc/hosts and DNS): index.test, other.test and rebind.test are
# 127.0.0.1, meta.test is 169.254.169.254. Loopback is refused unless a pattern names the address
# exactly, so the allowed cases name both the host and 127.0.0.1:PORT.
# shellcheck disable=SC2016,SC2034

# egress_setup: the servers, the hosts file, the cert in the workspace, ALLOW for index.test.
egress_setup() {
  egress_servers_start
  printf '127.0.0.1 index.test other.test rebind.test\n169.254.169.254 meta.test\n' >"$CASE_DIR/hosts"
  export AGENTBOX_EGRESS_HOSTS_FILE=$CASE_DIR/hosts
  install -m 0644 -o "${AB_WS_OWNER%:*}" -g "${AB_WS_OWNER#*:}" "$CASE_DIR/srv/cert.pem" "$WS/cert.pem"
  ALLOW=(--allow-host "index.test:$HTTP_PORT" --allow-host "127.0.0.1:$HTTP_PORT"
    --allow-host "index.test:$HTTPS_PORT" --allow-host "127.0.0.1:$HTTPS_PORT")
}

# box_has TOOL: whether the sandboxes' root has TOOL: the host's /usr has what the tests need; an
# image lane's image (tests/images/lane.sh) is asked (the Debian test image has python3 and pip,
# no curl).
box_has() {
  [[ -z $AB_IMAGE_LABEL ]] && return 0
  "$AGENTBOX" run "${AB_KIND[@]}" --disk-limit none -- sh -c "command -v $1" >/dev/null 2>&1
}

# needs_in_box TOOL: the docker lane's image is busybox (tests/docker/run_suite.sh): no curl, no
# python, no TLS client. Cases that need one are N/A there, and on an image lane whose image
# lacks it; the probe's proxy-request covers HTTP.
needs_in_box() {
  [[ $AB_BACKEND != docker ]] || not_applicable "the docker lane's busybox image has no $1"
  box_has "$1" || not_applicable "the image $AB_IMAGE_LABEL has no $1"
}

case_egress_http_allowed_host() {
  egress_setup
  boxj "${ALLOW[@]}" -- /workspace/abprobe proxy-request \
    "GET http://index.test:$HTTP_PORT/hello.txt HTTP/1.1" "Host: index.test:$HTTP_PORT"
  expect_rc 0
  json_assert "'hello through the proxy' in r['stdout']" "a GET through the proxy did not get the file"
  json_assert "r['network']['egress'] and r['network']['connections'][0]['allowed']"
  json_assert "r['network']['connections'][0]['host'] == 'index.test'"
  json_assert "r['network']['connections'][0]['address'] == '127.0.0.1'"
  json_assert "r['network']['connections'][0]['bytes_received'] > 24"
  # curl's own proxy support, where the box has curl.
  [[ $AB_BACKEND == docker ]] || ! box_has curl && return 0
  boxj "${ALLOW[@]}" -- curl -sS --max-time 20 "http://index.test:$HTTP_PORT/hello.txt"
  expect_rc 0
  json_assert "r['stdout'] == 'hello through the proxy\n'" "curl through the proxy did not get the file"
}

case_egress_https_connect_allowed_host() {
  needs_in_box curl
  egress_setup
  boxj "${ALLOW[@]}" -- curl -sS --max-time 20 --cacert /workspace/cert.pem \
    "https://index.test:$HTTPS_PORT/hello.txt"
  expect_rc 0
  json_assert "r['stdout'] == 'hello through the proxy\n'" "CONNECT with TLS to an allowed host failed"
  json_assert "r['network']['connections'][0]['allowed'] and r['network']['connections'][0]['bytes_sent'] > 0"
}

# A host not on the list: refused with 403, recorded, and one line on stderr that says so.
case_egress_denied_host() {
  egress_setup
  box "${ALLOW[@]}" -- /workspace/abprobe proxy-request "GET http://other.test:$HTTP_PORT/hello.txt HTTP/1.1"
  expect_out_has "403 Forbidden"
  expect_out_lacks "hello through the proxy"
  expect_err_has "agentbox: network: connect to other.test:$HTTP_PORT denied by policy (allow_hosts)"
  boxj "${ALLOW[@]}" -- /workspace/abprobe proxy-request "CONNECT other.test:$HTTPS_PORT HTTP/1.1"
  expect_out_has "403 Forbidden"
  json_assert "not r['network']['connections'][0]['allowed']"
  json_assert "r['network']['connections'][0]['reason'] == 'not in allow_hosts'"
}

# DNS rebinding: a name on the list that resolves to loopback or the metadata address.
case_egress_dns_rebinding_refused() {
  egress_setup
  boxj --allow-host rebind.test --allow-host meta.test -- sh -c \
    "/workspace/abprobe proxy-request 'GET http://rebind.test:$HTTP_PORT/hello.txt HTTP/1.1'; /workspace/abprobe proxy-request 'GET http://meta.test/latest/meta-data/ HTTP/1.1'"
  expect_out_lacks "hello through the proxy"
  json_assert "[c['allowed'] for c in r['network']['connections']] == [False, False]"
  json_assert "'loopback 127.0.0.1' in r['network']['connections'][0]['reason']"
  json_assert "'metadata address 169.254.169.254' in r['network']['connections'][1]['reason']"
  # A range does not open loopback either: only the exact address does.
  boxj --allow-host rebind.test --allow-host 127.0.0.0/8 -- /workspace/abprobe proxy-request "GET http://rebind.test:$HTTP_PORT/hello.txt HTTP/1.1"
  json_assert "not r['network']['connections'][0]['allowed']" "127.0.0.0/8 opened loopback"
}

# An IP literal is not a name on the list; it needs an address pattern of its own.
case_egress_ip_literal_needs_an_address_pattern() {
  egress_setup
  boxj --allow-host "index.test:$HTTP_PORT" -- /workspace/abprobe proxy-request "GET http://127.0.0.1:$HTTP_PORT/hello.txt HTTP/1.1"
  json_assert "not r['network']['connections'][0]['allowed']" "an IP literal passed on a name pattern"
  boxj --allow-host "127.0.0.1:$HTTP_PORT" -- /workspace/abprobe proxy-request "GET http://127.0.0.1:$HTTP_PORT/hello.txt HTTP/1.1"
  json_assert "'hello through the proxy' in r['stdout']" "the exact address pattern did not open it"
}

# Around the proxy: a direct TCP connect (to the host's loopback server, to any address) and UDP
# find no route; only the proxy's own port answers on the sandbox's loopback.
case_egress_raw_tcp_and_udp_stay_impossible() {
  egress_setup
  box "${ALLOW[@]}" -- /workspace/abprobe connect-tcp 127.0.0.1 "$HTTP_PORT"
  [[ $AB_RC != 0 ]] || fail "a direct connect reached the host's loopback server"
  box "${ALLOW[@]}" -- /workspace/abprobe connect-tcp 198.51.100.7 80
  [[ $AB_RC != 0 ]] || fail "a direct connect found a route out"
  [[ $AB_BACKEND == docker ]] || ! box_has python3 && return 0  # the rest needs python3 in the box
  box "${ALLOW[@]}" -- "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.sendto(b"x", ("198.51.100.7", 53))
except OSError as e:
    print("refused", e.errno); sys.exit(0)
print("sent"); sys.exit(1)'
  expect_rc 0
  expect_out_has refused
  # SOCKS5 UDP ASSOCIATE is refused by the proxy (command not supported).
  box "${ALLOW[@]}" -- "$PY" -c '
import os, socket
p = int(os.environ["ALL_PROXY"].rsplit(":", 1)[1])
s = socket.create_connection(("127.0.0.1", p))
s.sendall(b"\x05\x01\x00"); s.recv(2)
s.sendall(b"\x05\x03\x00\x01\x00\x00\x00\x00\x00\x00")
print("reply", s.recv(10)[1])'
  expect_out_has "reply 7"
}

# SNI and Host must name the host asked for: domain fronting through an allowed name is refused.
case_egress_sni_and_host_mismatch_refused() {
  egress_setup
  box "${ALLOW[@]}" -- /workspace/abprobe proxy-request \
    "GET http://index.test:$HTTP_PORT/hello.txt HTTP/1.1" "Host: other.test"
  expect_out_has "400 Bad Request" "a Host header naming another host was not refused"
  expect_out_lacks "hello through the proxy"
  [[ $AB_BACKEND == docker ]] || ! box_has python3 && return 0  # the TLS part needs python3 in the box
  boxj "${ALLOW[@]}" -- "$PY" -c '
import os, socket, ssl
p = int(os.environ["HTTPS_PROXY"].rsplit(":", 1)[1])
s = socket.create_connection(("127.0.0.1", p))
s.sendall(b"CONNECT index.test:'"$HTTPS_PORT"' HTTP/1.1\r\n\r\n")
print(s.recv(100).split(b"\r\n")[0].decode())
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
try:
    ctx.wrap_socket(s, server_hostname="evil.test").sendall(b"GET / HTTP/1.0\r\n\r\n")
    print("tls ok")
except (ssl.SSLError, OSError) as e:
    print("tls refused")
h = socket.create_connection(("127.0.0.1", p))
h.sendall(b"GET http://index.test:'"$HTTP_PORT"'/hello.txt HTTP/1.1\r\nHost: other.test\r\n\r\n")
print(h.recv(100).split(b"\r\n")[0].decode())'
  expect_out_has "tls refused"
  expect_out_has "400"
  json_assert "any('TLS server name evil.test' in c.get('reason', '') for c in r['network']['connections'])"
}

# A flood: connections past egress_connections are refused at once, and the proxy still serves.
case_egress_connection_flood_bounded() {
  needs_in_box python3
  egress_setup
  printf '{"egress_connections": 8}' >"$CASE_DIR/p.json"
  boxj --policy "$CASE_DIR/p.json" --allow-host "127.0.0.1:$HOLD_PORT" "${ALLOW[@]}" -- "$PY" -c '
import os, socket
p = int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])
held, answered = [], 0
for i in range(200):
    try:
        s = socket.create_connection(("127.0.0.1", p), timeout=10)
        s.sendall(b"CONNECT 127.0.0.1:'"$HOLD_PORT"' HTTP/1.1\r\n\r\n")
        held.append(s)
    except OSError:
        pass  # refused at once: what the limit does
for s in held:
    try:
        if s.recv(100).startswith(b"HTTP/1.1 200"): answered += 1
    except OSError:
        pass
print("connected", answered)'
  expect_rc 0
  json_assert "int(r['stdout'].split()[1]) <= 8" "more than egress_connections were open at once"
  json_assert "sum(1 for c in r['network']['connections'] if 'egress_connections' in c.get('reason', '')) + r['network'].get('connections_dropped', 0) >= 150"
}

# pip installs a package from the allowed local index, through the proxy, and nothing else.
case_egress_pip_install_from_local_index() {
  needs_in_box pip
  egress_setup
  box "${ALLOW[@]}" -- "$PY" -m pip install --no-cache-dir --disable-pip-version-check \
    --index-url "http://index.test:$HTTP_PORT/simple/" --trusted-host "index.test:$HTTP_PORT" \
    --target /workspace/site abdemo
  expect_rc 0 "pip install through the proxy"
  [[ -f $WS/site/abdemo/__init__.py ]] || fail "the package is not in the workspace"
}

# No allowlist: no proxy, no variables, nothing reachable; the result says egress is off.
case_egress_none_without_allowlist() {
  boxj -- /bin/sh -c 'echo "${HTTP_PROXY:-none}"; /workspace/abprobe connect-tcp 198.51.100.7 80'
  json_assert "r['stdout'].startswith('none')" "proxy variables set without allow_hosts"
  json_assert "r['network'] == {'egress': False, 'connections': []}"
}

# A persistent sandbox: each exec gets its own listener, its own report; the proxy dies with rm.
case_egress_persistent_sandbox_per_exec() {
  egress_setup
  new_box "${ALLOW[@]}"
  ab exec --json "$BOX" -- /workspace/abprobe proxy-request "GET http://index.test:$HTTP_PORT/hello.txt HTTP/1.1"
  expect_rc 0
  json_assert "len(r['network']['connections']) == 1 and r['network']['connections'][0]['allowed']"
  ab exec --json "$BOX" -- /workspace/abprobe proxy-request "GET http://other.test:$HTTP_PORT/ HTTP/1.1"
  json_assert "len(r['network']['connections']) == 1 and not r['network']['connections'][0]['allowed']" \
    "the second exec's report is not its own"
  local pid
  pid=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["egress_pid"])' \
    "$AGENTBOX_STATE_DIR/sandboxes/$BOX/sandbox.json")
  [[ $pid -gt 0 ]] && kill -0 "$pid" || fail "no egress proxy running for the sandbox"
  ab rm -f "$BOX"
  wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" || fail "the egress proxy outlived rm"
}

# A name looked up in the sandbox, without an allowlist: the sandbox's DNS catcher (127.0.0.1:53,
# the resolver its resolv.conf names) answers REFUSED at once, and the result names the host.
case_egress_lookup_without_allowlist_is_caught() {
  boxj -- /workspace/abprobe dns-query pypi.org
  expect_rc 0
  json_assert "'rcode=5 server=127.0.0.1' in r['stdout']" "the lookup was not refused by the catcher"
  json_assert "not r['network']['egress']"
  json_assert "[c['host'] for c in r['network']['connections'] if c['kind'] == 'lookup'] == ['pypi.org']"
  box -- /workspace/abprobe dns-query pypi.org
  expect_err_has "agentbox: network: connect to pypi.org denied by policy (allow_hosts: none"
}

# With an allowlist, a lookup in the sandbox is still refused (only the proxy resolves), and the
# line says where names go instead; in a persistent sandbox too (the agent's catcher).
case_egress_lookup_with_allowlist_points_at_the_proxy() {
  egress_setup
  box "${ALLOW[@]}" -- /workspace/abprobe dns-query index.test
  expect_rc 0
  expect_err_has "connect to index.test denied by policy (allow_hosts): looked up in the sandbox"
  new_box "${ALLOW[@]}"
  ab exec --json "$BOX" -- /workspace/abprobe dns-query other.test
  expect_rc 0
  json_assert "[c['host'] for c in r['network']['connections'] if c['kind'] == 'lookup'] == ['other.test']" \
    "the persistent sandbox's lookup is not in its exec's result"
}

# A background process (exec -d) goes through the sandbox's proxy too, under the same list; its
# attempts are in no exec's report.
case_egress_background_process_through_the_proxy() {
  egress_setup
  new_box "${ALLOW[@]}"
  ab exec -d "$BOX" -- /bin/sh -c "/workspace/abprobe proxy-request 'GET http://index.test:$HTTP_PORT/hello.txt HTTP/1.1' > /workspace/allowed.out
    /workspace/abprobe proxy-request 'GET http://other.test:$HTTP_PORT/ HTTP/1.1' > /workspace/denied.out"
  expect_rc 0
  ab wait "$BOX" p1
  grep -q "hello through the proxy" "$WS/allowed.out" || fail "a background process could not use the proxy: $(cat "$WS/allowed.out")"
  grep -q " 403 " "$WS/denied.out" || fail "a background process reached a host not on the list: $(cat "$WS/denied.out")"
}

# Another sandbox's loopback is its own: a server there is not what 127.0.0.1:PORT through the
# proxy reaches (that is the host's loopback, where nothing listens on that port).
case_egress_another_sandbox_unreachable() {
  needs_in_box python3
  egress_setup
  local port
  port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  new_box
  ab exec -d "$BOX" -- "$PY" -c "
import socket
s = socket.socket(); s.bind(('127.0.0.1', $port)); s.listen(4)
open('/workspace/listening', 'w').close()
while True:
    c, _ = s.accept(); c.sendall(b'other sandbox\n'); c.close()"
  wait_until 20 test -e "$WS/listening" || fail "the other sandbox's server did not start"
  box --allow-host "127.0.0.1:$port" -- /workspace/abprobe proxy-request "CONNECT 127.0.0.1:$port HTTP/1.1"
  expect_out_lacks "other sandbox"
  expect_out_has "502"
}

# No allowlist, no JSON: a failed name lookup in the command's stderr gets agentbox's line too.
case_egress_no_allowlist_lookup_failure_is_said() {
  box -- /bin/sh -c 'echo "curl: (6) Could not resolve host: pypi.org" >&2; exit 6'
  expect_rc 6
  expect_err_has "agentbox: network: connect to pypi.org denied by policy (allow_hosts: none"
}
