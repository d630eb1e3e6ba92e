"""agent-sandbox's extensions (extensions.agents.x-k8s.io/v1alpha1), served only with
--agent-sandbox: SandboxTemplate, SandboxClaim and SandboxWarmPool, and a minimal controller.

The controller, as kubernetes-sigs/agent-sandbox's does it in the large: a claim takes a ready
pod of a SandboxWarmPool of its template (spec.warmpool "default", or that pool's name; never
with "none"), or gets a pod made from the template's podTemplate, named as the claim; either way
the pod is labelled agents.x-k8s.io/claim-uid=<the claim's uid> and owned by the claim. Once the
pod runs with an IP the claim's status says so (status.sandbox.name, podIPs, a Ready condition);
a pod that fails makes Ready False. Deleting a claim deletes its pod. A pool keeps
spec.replicas pods of spec.sandboxTemplateRef's template (labelled with the pool's name until
a claim takes one), and deleting it deletes them. No Sandbox objects, no lifecycle enforcement,
no template NetworkPolicy (agentbox makes its own).
"""
import copy
import random
import string
import threading

from . import resources as R
from . import store as S

GROUP, VERSION = "extensions.agents.x-k8s.io", "v1alpha1"
CLAIM_UID = "agents.x-k8s.io/claim-uid"
POOL = "agents.x-k8s.io/warm-pool"  # the fake's own label on a pool's unclaimed pods
_RW = ["create", "delete", "get", "list", "patch", "watch"]


def enable():
    """Adds the three kinds to what the server routes and lists in discovery."""
    R.RESOURCES.update({
        "sandboxtemplates": (GROUP, VERSION, "SandboxTemplate", True, _RW, ["sandboxtemplate"]),
        "sandboxclaims": (GROUP, VERSION, "SandboxClaim", True, _RW, ["sandboxclaim"]),
        "sandboxwarmpools": (GROUP, VERSION, "SandboxWarmPool", True, _RW, ["swp"]),
    })


def _running_ip(pod):
    st = pod.get("status") or {}
    return st.get("podIP") if st.get("phase") == "Running" and not pod["metadata"].get("deletionTimestamp") else None


class Controller:
    """The hooks of sandboxclaims and sandboxwarmpools (handler.py calls created and delete)."""

    def __init__(self, store, pods):
        self.store, self.pods = store, pods
        self.lock = threading.Lock()  # one claim takes one warm pod

    # -- pods -------------------------------------------------------------------------------

    def _make_pod(self, ns, name, template, labels, owner):
        pt = template["spec"]["podTemplate"]
        meta = copy.deepcopy(pt.get("metadata") or {})
        meta.update(name=name, namespace=ns)
        meta["labels"] = dict(meta.get("labels") or {}, **labels)
        meta["ownerReferences"] = [{"apiVersion": "%s/%s" % (GROUP, VERSION), "kind": owner["kind"],
                                    "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"],
                                    "controller": True, "blockOwnerDeletion": True}]
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": copy.deepcopy(pt["spec"])}
        if self.pods.admit(pod):
            return None
        created = self.store.create("pods", pod)
        if created is not None and hasattr(self.pods, "created"):
            self.pods.created(created)
        return created

    def _delete_pods(self, ns, selector):
        items, _ = self.store.list("pods", ns, selector)
        for pod in items:
            if pod["metadata"].get("deletionTimestamp"):
                continue
            if hasattr(self.pods, "delete"):
                self.pods.delete(pod)
            else:  # --no-podman: nothing runs, the object goes at once
                self.store.delete("pods", ns, pod["metadata"]["name"])

    # -- claims -----------------------------------------------------------------------------

    def created(self, obj):
        if obj["kind"] == "SandboxClaim":
            threading.Thread(target=self._bind, args=(obj,), daemon=True).start()
        else:
            threading.Thread(target=self._fill, args=(obj,), daemon=True).start()

    def _set_claim(self, claim, ready, reason, message="", pod=None, ip=None):
        def change(obj):
            status = obj.setdefault("status", {})
            if pod is not None:
                status["sandbox"] = {"name": pod, "podIPs": [ip] if ip else []}
            status["conditions"] = [{"type": "Ready", "status": "True" if ready else "False",
                                     "reason": reason, "message": message, "lastTransitionTime": S.now()}]
        m = claim["metadata"]
        return self.store.update("sandboxclaims", m["namespace"], m["name"], change)

    def _take_warm(self, claim, ref, policy):
        """A ready pod of a pool of the claim's template, relabelled as the claim's; or None."""
        ns = claim["metadata"]["namespace"]
        pools, _ = self.store.list("sandboxwarmpools", ns, lambda o: True)
        names = [p["metadata"]["name"] for p in pools
                 if (p["spec"].get("sandboxTemplateRef") or {}).get("name") == ref
                 and policy in ("default", p["metadata"]["name"])]
        with self.lock:
            for pool in names:
                items, _ = self.store.list("pods", ns, lambda o, n=pool: (o["metadata"].get("labels") or {}).get(POOL) == n)
                ready = [p for p in items if _running_ip(p)]
                if not ready:
                    continue
                pod = ready[0]

                def adopt(obj):
                    obj["metadata"]["labels"].pop(POOL, None)
                    obj["metadata"]["labels"][CLAIM_UID] = claim["metadata"]["uid"]
                    obj["metadata"]["ownerReferences"] = [{
                        "apiVersion": "%s/%s" % (GROUP, VERSION), "kind": "SandboxClaim",
                        "name": claim["metadata"]["name"], "uid": claim["metadata"]["uid"],
                        "controller": True, "blockOwnerDeletion": True}]
                taken = self.store.update("pods", ns, pod["metadata"]["name"], adopt)
                pool_obj = self.store.get("sandboxwarmpools", ns, pool)
                if pool_obj:
                    threading.Thread(target=self._fill, args=(pool_obj,), daemon=True).start()
                return taken
        return None

    def _bind(self, claim):
        ns, name, uid = claim["metadata"]["namespace"], claim["metadata"]["name"], claim["metadata"]["uid"]
        ref = ((claim.get("spec") or {}).get("sandboxTemplateRef") or {}).get("name", "")
        template = self.store.get("sandboxtemplates", ns, ref)
        if template is None:
            return self._set_claim(claim, False, "TemplateNotFound", 'SandboxTemplate "%s" not found' % ref)
        policy = (claim.get("spec") or {}).get("warmpool") or "default"
        pod = self._take_warm(claim, ref, policy) if policy != "none" else None
        if pod is None:
            pod = self._make_pod(ns, name, template, {CLAIM_UID: uid}, claim)
        if pod is None:
            return self._set_claim(claim, False, "PodNotCreated", "the template's pod was refused")
        self._set_claim(claim, False, "SandboxNotReady", "", pod["metadata"]["name"])
        sel = lambda o: (o["metadata"].get("labels") or {}).get(CLAIM_UID) == uid  # noqa: E731
        for event in self.store.watch("pods", ns, sel, None):
            if self.store.get("sandboxclaims", ns, name) is None:
                return None
            if event is None:
                continue
            kind, obj = event
            ip = _running_ip(obj)
            if ip:
                return self._set_claim(claim, True, "SandboxReady", "", obj["metadata"]["name"], ip)
            phase = (obj.get("status") or {}).get("phase")
            if kind == "DELETED" or phase in ("Failed", "Succeeded"):
                return self._set_claim(claim, False, "SandboxFailed", "pod %s: %s" % (
                    obj["metadata"]["name"], "deleted" if kind == "DELETED" else "phase " + phase))
        return None

    def delete(self, obj):
        m = obj["metadata"]
        if obj["kind"] == "SandboxClaim":
            self._delete_pods(m["namespace"], lambda o: (o["metadata"].get("labels") or {}).get(CLAIM_UID) == m["uid"])
            gone = self.store.delete("sandboxclaims", m["namespace"], m["name"])
        else:
            with self.lock:  # no refill (_fill) between the pool's end and its pods'
                gone = self.store.delete("sandboxwarmpools", m["namespace"], m["name"])
                self._delete_pods(m["namespace"], lambda o: (o["metadata"].get("labels") or {}).get(POOL) == m["name"])
        return gone or obj

    # -- warm pools -------------------------------------------------------------------------

    def _fill(self, pool):
        ns, name = pool["metadata"]["namespace"], pool["metadata"]["name"]
        with self.lock:
            pool = self.store.get("sandboxwarmpools", ns, name)
            if pool is None:
                return
            ref = (pool["spec"].get("sandboxTemplateRef") or {}).get("name", "")
            template = self.store.get("sandboxtemplates", ns, ref)
            items, _ = self.store.list("pods", ns, lambda o: (o["metadata"].get("labels") or {}).get(POOL) == name
                                       and not o["metadata"].get("deletionTimestamp"))
            missing = int(pool["spec"].get("replicas") or 0) - len(items)
            for _ in range(max(0, missing) if template else 0):
                suffix = "".join(random.choices(string.ascii_lowercase + string.digits, k=5))
                self._make_pod(ns, "%s-%s" % (name, suffix), template, {POOL: name}, pool)
