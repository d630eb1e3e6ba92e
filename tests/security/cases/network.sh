# shellcheck shell=bash
# Network: docs/contract.md §2 "no network: its own network namespace with only loopback".
# Single-quoted scripts run inside the sandbox and expand there; results read by the harness.
# shellcheck disable=SC2016,SC2034

# Only "lo" may exist: any other interface is a path off the box.
case_net_only_loopback_interface() {
  sh_in "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '"
  expect_rc 0
  [[ $AB_OUT == lo ]] || fail "interfaces inside: $(echo "$AB_OUT" | tr '\n' ' '), want only lo"
}

# lo must be up: tools (test servers, language servers) rely on 127.0.0.1 inside the box.
case_net_loopback_is_up() {
  box -- /workspace/abprobe loopback
  expect_rc 0
  expect_out_has LOOPBACK_OK
}

# No route to the internet.
case_net_no_route_to_internet() {
  probe_denied connect-tcp 1.1.1.1 80
  probe_denied connect-tcp 8.8.8.8 53
}

# No way to the host's own external address (a service bound to 0.0.0.0 on the host).
case_net_no_route_to_host_address() {
  local ip
  ip=$(ip -4 -o addr show scope global | awk '{sub(/\/.*/, "", $4); print $4; exit}')
  [[ -n $ip ]] || ip=192.0.2.1  # no global address: any non-loopback address must be unreachable
  host_listen tcp 0.0.0.0
  probe_denied connect-tcp "$ip" "$LISTEN_PORT"
}

# The host's 127.0.0.1 is not the sandbox's: a host dev server (databases, dockerd on tcp,
# metadata proxies) must stay unreachable.
case_net_host_loopback_tcp_unreachable() {
  host_listen tcp 127.0.0.1
  host_can_connect tcp 127.0.0.1 "$LISTEN_PORT" || fail "sanity: host cannot reach its own listener"
  probe_denied connect-tcp 127.0.0.1 "$LISTEN_PORT"
}

# A host unix socket by path (docker.sock-style): the path must not be reachable.
case_net_host_unix_socket_path_unreachable() {
  local sock=$CASE_DIR/host.sock
  chmod 755 "$CASE_DIR"
  host_listen unix "$sock"
  host_can_connect unix "$sock" || fail "sanity: host cannot reach its own unix socket"
  probe_denied connect-unix "$sock"
  probe_denied connect-unix /run/docker.sock
  probe_denied connect-unix /var/run/dbus/system_bus_socket
}

# Abstract unix sockets are scoped by network namespace; a host one (X11's @/tmp/.X11-unix,
# containerd-shim's, CVE-2020-15257) must not be reachable.
case_net_host_abstract_socket_unreachable() {
  local name
  name=abtest-$(new_marker)
  host_listen abstract "$name"
  host_can_connect abstract "$name" || fail "sanity: host cannot reach its own abstract socket"
  probe_denied connect-abstract "$name"
}
