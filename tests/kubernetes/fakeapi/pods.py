"""Pods that run for real: each created pod is started with `podman kube play` on the fake's
bridge network, and its phase, IP and container states are reported through the store.

The manifest is played as given but for six things: the podman pod is named k8sf-<uid> (two
namespaces may hold the same name; spec.hostname keeps the pod's own); its volumes are named
k8sf-<uid>-<name>; every container's imagePullPolicy is Never (nothing is ever pulled: images
are loaded into the private store at start) and its ports are dropped (podman would publish them
on the host); a pod with init containers and restartPolicy Always plays with OnFailure (see
_play_manifest); emptyDir and secret volumes become binds of directories made as the kubelet
makes them (volumes.py). Fields podman ignores (runAsNonRoot, emptyDir sizeLimit and medium, the
seccompProfile field, runtimeClassName) stay in the stored object. A pod IP is handed out only
when the host's route to it goes through the fake's own bridge; otherwise the pod is Failed and
gets no IP.
"""
import copy
import json
import os
import sys
import threading
import time

from . import volumes
from . import store as S
from .podman import PodmanError


def podman_name(pod):
    return "k8sf-" + pod["metadata"]["uid"][:13]


def _play_manifest(pod):
    m = copy.deepcopy(pod)
    m.pop("status", None)
    # podman 4.3 refuses an annotation value over 63 characters (a label's limit; a cluster takes
    # 256 KiB of them): the pod runs without the long ones, the stored object keeps them all.
    annotations = {k: v for k, v in (pod["metadata"].get("annotations") or {}).items()
                   if len(v) <= 63}
    m["metadata"] = {"name": podman_name(pod), "labels": pod["metadata"].get("labels") or {},
                     "annotations": annotations}
    m["spec"].setdefault("hostname", pod["metadata"]["name"])
    # podman 4.3 applies restartPolicy Always to init containers too: it restarts each one as it
    # exits, and kube play waits 20 s for an exit it never sees. OnFailure runs them once.
    if m["spec"].get("initContainers") and m["spec"].get("restartPolicy", "Always") == "Always":
        m["spec"]["restartPolicy"] = "OnFailure"
    # podman 4.3 plays an emptyDir as a named volume, named as in the manifest: two pods with a
    # "workspace" emptyDir would share one. Each pod's volumes get its own prefix.
    prefix = podman_name(pod) + "-"
    for v in m["spec"].get("volumes", []):
        v["name"] = prefix + v["name"]
    for c in m["spec"].get("containers", []) + m["spec"].get("initContainers", []):
        c["imagePullPolicy"] = "Never"
        # On a cluster a containerPort only names a port; podman 4.3 publishes it on the host
        # (every interface, the same port: a second pod with it cannot start).
        c.pop("ports", None)
        for vm in c.get("volumeMounts", []):
            vm["name"] = prefix + vm["name"]
    return m


def _container_status(spec, ps):
    st = {"name": spec["name"], "image": spec.get("image", ""), "restartCount": 0,
          "ready": bool(ps) and ps["State"] == "running", "started": bool(ps) and ps["State"] == "running"}
    if not ps or ps["State"] in ("created", "configured", "initialized"):
        st["state"] = {"waiting": {"reason": "ContainerCreating"}}
    elif ps["State"] == "running":
        st["state"] = {"running": {"startedAt": S.stamp(ps.get("StartedAt"))}}
    else:
        code = ps.get("ExitCode", 0)
        st["state"] = {"terminated": {"exitCode": code, "reason": "Completed" if code == 0 else "Error"}}
    return st


def _phase(statuses):
    states = [next(iter(s["state"])) for s in statuses]
    if any(s == "running" for s in states):
        return "Running"
    if states and all(s == "terminated" for s in states):
        ok = all(s["state"]["terminated"]["exitCode"] == 0 for s in statuses)
        return "Succeeded" if ok else "Failed"
    return "Pending"


class PodValidation:
    """What the server checks and defaults in a pod it is given (all of it, with --no-podman)."""

    def admit(self, pod):
        spec = pod.get("spec") or {}
        pod["status"] = {"phase": "Pending"}
        causes = []
        if not spec.get("containers"):
            causes.append({"field": "spec.containers", "message": "Required value"})
        for i, c in enumerate(spec.get("containers") or []):
            for f in ("name", "image"):
                if not c.get(f):
                    causes.append({"field": "spec.containers[%d].%s" % (i, f), "message": "Required value"})
        return causes


class Pods(PodValidation):
    """Pods run by podman: the create, delete and logs hooks, and the phases."""

    def __init__(self, store, podman, seccomp_root=None, log=sys.stderr):
        self.store, self.podman, self.seccomp_root, self.log = store, podman, seccomp_root, log
        self.played = {}  # podman name -> (namespace, name): what this server made
        self.locks = {}
        self.created_at = {}  # podman name -> monotonic time of the create, until it leaves Pending
        self.play_seconds = {}  # podman name -> how long its `podman kube play` took
        self.lock = threading.Lock()
        # podman 4.3 fails a kube play that overlaps a pod rm ("starting some containers:
        # internal libpod error"): pods start and go one at a time.
        self.lifecycle = threading.Lock()

    def created(self, pod):
        pod_lock = threading.Lock()
        with self.lock:
            self.locks[podman_name(pod)] = pod_lock
            self.created_at[podman_name(pod)] = time.monotonic()
        pod_lock.acquire()
        threading.Thread(target=self._play, args=(pod, pod_lock), daemon=True).start()

    def _set_status(self, pod, status):
        # The whole status is replaced (a pod that lost its route loses its podIP), but startTime.
        def change(obj):
            start = (obj.get("status") or {}).get("startTime")
            obj["status"] = dict(status, **({"startTime": start} if start else {}))
        return self.store.update("pods", pod["metadata"]["namespace"], pod["metadata"]["name"], change)

    def _play(self, pod, pod_lock):
        name = podman_name(pod)
        try:
            path = os.path.join(self.podman.dir, name + ".json")
            manifest = _play_manifest(pod)
            volumes.materialize(self.store, pod, manifest, self._volumes_dir(name))
            with open(path, "w") as f:
                json.dump(manifest, f)
            with self.lock:
                self.played[name] = (pod["metadata"]["namespace"], pod["metadata"]["name"])
            args = ["kube", "play", "--network", self.podman.network]
            if self.seccomp_root:
                args += ["--seccomp-profile-root", self.seccomp_root]
            with self.lifecycle:
                played = time.monotonic()
                self.podman.run(*args, path)
                self.play_seconds[name] = time.monotonic() - played
            self.refresh(pod)
        except (PodmanError, OSError, ValueError, volumes.SecretMissing) as e:
            self.log.write("fake-apiserver: pod %s failed to play: %s\n" % (name, getattr(e, "stderr", e)))
            self.log.flush()
            # What a failed play made (an infra container, volumes) goes now, not at delete.
            with self.lifecycle:
                self.podman.run("pod", "rm", "-f", "-t", "0", name, check=False)
            self._set_status(pod, {"phase": "Failed", "reason": "PodmanFailed", "message": str(e)})
        finally:
            pod_lock.release()

    def _volumes_dir(self, name):
        return os.path.join(self.podman.dir, "volumes", name)

    def refresh(self, pod):
        """Reads the podman pod's containers and IP into the stored pod's status."""
        name = podman_name(pod)
        status = self._status(pod, name, self.podman.containers(name))
        status["startTime"] = S.now()  # kept from the first refresh on
        self._set_status(pod, status)
        started = self.created_at.pop(name, None) if status["phase"] != "Pending" else None
        if started is not None:
            # At wall clock T (bench/kubernetes reads these lines): the phase, and of the time
            # since the create, how long `podman kube play` itself took.
            self.log.write("fake-apiserver: pod %s/%s %s %.3f s after its create (kube play %.3f s) at %.3f\n" % (
                pod["metadata"]["namespace"], pod["metadata"]["name"], status["phase"],
                time.monotonic() - started, self.play_seconds.pop(name, 0), time.time()))
            self.log.flush()

    def _status(self, pod, name, ps):
        """The pod's status from podman's view of its containers (ps); the IP only when routed
        through the bridge."""
        if not ps:
            return {"phase": "Failed", "reason": "PodmanPodGone", "message": "the podman pod %s is gone" % name}
        infra = next((c for c in ps if c.get("IsInfra")), None)
        by_name = {c["Names"][0]: c for c in ps if not c.get("IsInfra")}
        statuses = [_container_status(c, by_name.get(name + "-" + c["name"])) for c in pod["spec"]["containers"]]
        phase = _phase(statuses)
        if phase in ("Succeeded", "Failed") and pod["spec"].get("restartPolicy", "Always") == "Always":
            phase = "Running"  # its containers are restarted: a cluster keeps such a pod Running
        ip = self.podman.pod_ip(infra["Id"]) if infra else None
        dev = self.podman.route_device(ip) if ip else None
        if ip and dev != self.podman.bridge:
            return {"phase": "Failed", "reason": "NetworkNotLocal",
                    "message": "route to %s goes through %s, not the bridge %s" % (ip, dev, self.podman.bridge)}
        status = {"phase": phase, "containerStatuses": statuses, "hostIP": "127.0.0.1"}
        if ip:
            status.update(podIP=ip, podIPs=[{"ip": ip}])
        ready = "True" if phase == "Running" and all(c["ready"] for c in statuses) else "False"
        status["conditions"] = [{"type": t, "status": ready if t in ("Ready", "ContainersReady") else "True"}
                                for t in ("PodScheduled", "Initialized", "ContainersReady", "Ready")]
        return status

    def containers_changed(self):
        """A container started or exited: refresh every pod this server runs, but those being
        played or removed (their podman pod is not whole; the play refreshes when done)."""
        with self.lock:
            live = [key for name, key in self.played.items()
                    if name in self.locks and not self.locks[name].locked()]
        for ns, n in live:
            pod = self.store.get("pods", ns, n)
            # Succeeded and Failed are final, as on a cluster (a failed play's reason stays).
            final = pod and pod["status"].get("phase") in ("Succeeded", "Failed")
            if pod and not final and not pod["metadata"].get("deletionTimestamp"):
                try:
                    self.refresh(pod)
                except (PodmanError, ValueError):
                    pass

    def delete(self, pod):
        # Kubernetes' grace period (30 s by default), capped at 1 s: tests wait for deletions.
        grace = min(int(pod["spec"].get("terminationGracePeriodSeconds", 30)), 1)

        def mark(obj):
            obj["metadata"]["deletionTimestamp"] = S.now()
            obj["metadata"]["deletionGracePeriodSeconds"] = grace
        marked = self.store.update("pods", pod["metadata"]["namespace"], pod["metadata"]["name"], mark)
        threading.Thread(target=self._remove, args=(pod, grace), daemon=True).start()
        return marked or pod

    def _remove(self, pod, grace):
        name = podman_name(pod)
        with self.lock:
            pod_lock = self.locks.pop(name, None)
        if pod_lock:
            pod_lock.acquire()  # a play in progress finishes first
        with self.lifecycle:
            self.podman.run("pod", "rm", "-f", "-t", str(grace), name, check=False)
        volumes.remove(self._volumes_dir(name))
        with self.lock:
            self.played.pop(name, None)
        self.store.delete("pods", pod["metadata"]["namespace"], pod["metadata"]["name"])

    def logs(self, pod, container):
        c = container or pod["spec"]["containers"][0]["name"]
        return self.podman.run("logs", podman_name(pod) + "-" + c, check=False)

    def remove_all(self):
        """At exit: every podman pod this server made, by the names it recorded."""
        with self.lock:
            names = list(self.played)
            self.played.clear()
        for name in names:
            self.podman.run("pod", "rm", "-f", "-t", "0", name, check=False)
            volumes.remove(self._volumes_dir(name))
