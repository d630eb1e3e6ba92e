# shellcheck shell=bash
# fake.sh: start and stop the fake Kubernetes API server from a test script (sourced). Any suite
# that runs agentbox's kubernetes backend against it uses these three.
#
#   fake_k8s_image DIR          the busybox test root (scripts/build-test-rootfs.sh, /workspace 0777
#                               as a cluster's emptyDir) as DIR/root.tar,
#                               for --image-import localhost/agentbox-k8s-test:latest=DIR/root.tar
#   fake_k8s_start DIR ARGS...  the server in the background with its state in DIR, a fresh token
#                               (FAKE_K8S_TOKEN), namespace agentbox-test, --exit-with-parent (a
#                               killed script still gets its pods and network removed) and ARGS;
#                               returns once it listens (the FAKE_K8S_* of its ready file set,
#                               KUBECONFIG exported), or 1 with its log when it exited first.
#   fake_k8s_stop               SIGTERM to that server (its pid only), waits for its cleanup.
#   fake_k8s_up DIR IMAGE AGENT [ARGS...]  both images from this machine's files (the busybox test root as
#                               IMAGE, the agent image of AGENT under its default tag
#                               agentbox-agent:VERSION), then the server with them: returns 0,
#                               1 when an image could not be made, 2 when the server did not start
#                               (what went wrong printed either way). ARGS go to the server
#                               (--agent-sandbox: agent-sandbox's CRDs and controller).
FAKE_K8S_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FAKE_K8S_SERVER_PID=

fake_k8s_image() {
  # /workspace 0777: a cluster's emptyDir is, whatever the image has there; podman's copy-up
  # gives the volume the image directory's owner and mode instead (root, 0755 here).
  bash "$FAKE_K8S_HERE/../../scripts/build-test-rootfs.sh" "$1/root" >/dev/null &&
    chmod 0777 "$1/root/workspace" &&
    tar -C "$1/root" -cf "$1/root.tar" .
}

fake_k8s_start() {
  local dir=$1
  shift
  mkdir -p "$dir"
  export FAKE_K8S_TOKEN=tok-$RANDOM$RANDOM$RANDOM
  python3 "$FAKE_K8S_HERE/fake_apiserver.py" --state-dir "$dir" --ready-file "$dir/ready" \
    --token "$FAKE_K8S_TOKEN" --namespace agentbox-test --request-log "$dir/requests.log" \
    --exit-with-parent "$@" 2>"$dir/server.log" &
  FAKE_K8S_SERVER_PID=$!
  # The server writes the file once it listens: wait for it (or for the server's end).
  while [[ ! -f $dir/ready ]] && kill -0 "$FAKE_K8S_SERVER_PID" 2>/dev/null; do sleep 0.05; done
  [[ -f $dir/ready ]] || { cat "$dir/server.log"; FAKE_K8S_SERVER_PID=; return 1; }
  # shellcheck disable=SC1091
  . "$dir/ready"
  export KUBECONFIG=$FAKE_K8S_KUBECONFIG
}

fake_k8s_stop() {
  [[ -n $FAKE_K8S_SERVER_PID ]] || return 0
  kill "$FAKE_K8S_SERVER_PID" && wait "$FAKE_K8S_SERVER_PID"
  local rc=$?
  FAKE_K8S_SERVER_PID=
  return $rc
}

fake_k8s_up() {
  local dir=$1 image=$2 agent=$3
  shift 3
  fake_k8s_image "$dir" || { echo "fake_k8s_up: cannot build the busybox root"; return 1; }
  bash "$FAKE_K8S_HERE/../../scripts/build-agent-image.sh" --agent "$agent" \
    --output "$dir/agent.tar" >/dev/null || { echo "fake_k8s_up: build-agent-image.sh failed"; return 1; }
  # "s": podman's sockets under it must stay within a unix socket path's 108 bytes.
  fake_k8s_start "$dir/s" --image-import "$image=$dir/root.tar" --image-load "$dir/agent.tar" "$@" ||
    { echo "fake_k8s_up: the fake API server could not start podman (log above)"; return 2; }
}
