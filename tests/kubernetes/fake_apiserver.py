#!/usr/bin/env python3
"""A fake Kubernetes API server for agentbox's tests (Python's standard library only).

    fake_apiserver.py --state-dir DIR --ready-file FILE --token TOKEN [--namespace NS]
        [--image-import NAME=ROOTFS.tar]... [--image-load DOCKER-ARCHIVE]... [--no-podman]
        [--history N] [--seccomp-profile-root DIR] [--request-log FILE] [--exit-with-parent]
        [--agent-sandbox]

Serves HTTPS on 127.0.0.1 (a port it picks) with a CA it makes, bearer-token auth, and the subset
of the API in docs/testing.md; pods run for real under podman (tests/kubernetes/fakeapi/pods.py).
When ready it writes DIR/kubeconfig and then FILE, shell lines (FAKE_K8S_URL, _PORT, _KUBECONFIG,
_PID, _NETWORK, _BRIDGE, _SUBNET, _PODMAN: the private podman's command line). SIGTERM or SIGINT:
removes the podman pods and the network it made, and exits 0.
"""
import argparse
import ctypes
import os
import shlex
import signal
import ssl
import sys
import threading
import http.server

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakeapi import agent_sandbox, gc, handler, pods, store, tls  # noqa: E402
from fakeapi.secrets import Secrets  # noqa: E402
from fakeapi.podman import Podman  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--state-dir", required=True)
    p.add_argument("--ready-file", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--namespace", default="default")
    p.add_argument("--history", type=int, default=100, help="events kept for watches (default 100)")
    p.add_argument("--image-import", action="append", default=[], metavar="NAME=TAR")
    p.add_argument("--image-load", action="append", default=[], metavar="ARCHIVE")
    p.add_argument("--seccomp-profile-root")
    p.add_argument("--no-podman", action="store_true", help="pods stay Pending (API only)")
    p.add_argument("--request-log")
    p.add_argument("--agent-sandbox", action="store_true",
                   help="serve agent-sandbox's extensions CRDs and run its minimal controller")
    p.add_argument("--exit-with-parent", action="store_true",
                   help="SIGTERM (and so the cleanup) when the parent dies, even by SIGKILL")
    return p.parse_args()


def start_podman(args, st):
    pm = Podman(args.state_dir)
    hook = pods.Pods(st, pm, args.seccomp_profile_root)
    pm.create_network("k8sf-%d-%s" % (os.getpid(), os.urandom(3).hex()))
    for spec in args.image_import:
        name, _, tar = spec.partition("=")
        pm.import_image(tar, name)
    for archive in args.image_load:
        pm.load_image(archive)
    events = pm.popen("events", "--format", "{{.Status}}", "--filter", "type=container")

    def follow():  # a container started or exited: refresh the pods' phases
        for line in events.stdout:
            if line.strip() in ("start", "died", "stop", "cleanup"):
                hook.containers_changed()
    threading.Thread(target=follow, daemon=True).start()
    return pm, hook, events


def write_ready(args, port, kubeconfig, pm):
    values = {"URL": "https://127.0.0.1:%d" % port, "PORT": port, "KUBECONFIG": kubeconfig,
              "PID": os.getpid(), "NETWORK": pm.network if pm else "", "BRIDGE": pm.bridge if pm else "",
              "SUBNET": pm.subnet if pm else "", "PODMAN": shlex.join(pm.argv) if pm else "",
              "CONTAINERS_CONF": pm.conf if pm else ""}
    tmp = args.ready_file + ".tmp"
    with open(tmp, "w") as f:
        f.writelines("FAKE_K8S_%s=%s\n" % (k, shlex.quote(str(v))) for k, v in values.items())
    os.rename(tmp, args.ready_file)


def main():
    args = parse_args()
    os.makedirs(args.state_dir, exist_ok=True)
    st = store.Store(args.history)
    for ns in sorted({"default", "kube-system", args.namespace}):
        st.create("namespaces", {"kind": "Namespace", "apiVersion": "v1", "metadata": {"name": ns},
                                 "status": {"phase": "Active"}})
    pm = hook = events = None
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    if args.exit_with_parent:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:
            stop.set()
    try:
        hooks = {"secrets": Secrets()}
        if args.no_podman:
            hooks["pods"] = pods.PodValidation()
        else:
            pm, hook, events = start_podman(args, st)
            hooks["pods"] = hook
        if args.agent_sandbox:
            agent_sandbox.enable()
            controller = agent_sandbox.Controller(st, hooks["pods"])
            hooks["sandboxclaims"] = hooks["sandboxwarmpools"] = controller
        gc.GarbageCollector(st, hooks)  # ownerReferences: a Secret's pod goes with it
        ca, crt, key = tls.make(args.state_dir)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(crt, key)
        log = open(args.request_log, "a") if args.request_log else None
        api = handler.Api(st, args.token, hooks, log)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler.make_handler(api))
        server.daemon_threads = True
        # The handshake happens in each request's thread, not in the accepting one.
        server.socket = ctx.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
        port = server.server_address[1]
        kubeconfig = os.path.join(args.state_dir, "kubeconfig")
        tls.kubeconfig(kubeconfig, "https://127.0.0.1:%d" % port, ca, args.token, args.namespace)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        write_ready(args, port, kubeconfig, pm)
        print("fake-apiserver: ready on https://127.0.0.1:%d" % port, file=sys.stderr, flush=True)
        while not stop.wait(1):
            pass
        server.shutdown()
    finally:
        st.close()
        if hook:
            hook.remove_all()
        if events:
            events.terminate()
            events.wait()
        if pm:
            pm.remove_network()
            pm.unmount_storage()
    return 0


if __name__ == "__main__":
    sys.exit(main())
