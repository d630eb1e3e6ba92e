#!/usr/bin/env python3
"""Unit tests of the fake API server's parts kubectl cannot reach (stdlib unittest, no podman):
the route check before a pod IP is handed out, phases, the bounded history, selectors, and the
agent-sandbox controller's pods (made from a template, taken from a warm pool, deleted with their
claim), and the garbage collector (ownerReferences)."""
import io
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakeapi import agent_sandbox, gc, pods, selectors, store  # noqa: E402


class FakePodman:
    """Answers as podman would for one running pod whose infra has IP 10.9.9.2."""
    dir, network, bridge = "/nonexistent", "net", "podman7"

    def __init__(self, route_dev, states=("running",)):
        self.route_dev, self.states = route_dev, states

    def containers(self, name):
        infra = {"Id": "infra", "IsInfra": True, "Names": [name + "-infra"], "State": "running"}
        return [infra] + [{"Id": "c%d" % i, "IsInfra": False, "Names": [name + "-c%d" % i], "State": s,
                           "ExitCode": 0 if s != "exited-1" else 1}
                          for i, s in enumerate(self.states)]

    def pod_ip(self, infra_id):
        return "10.9.9.2"

    def route_device(self, ip):
        return self.route_dev


def make_pod(st, n_containers=1, restart="Never"):
    pod = {"kind": "Pod", "metadata": {"name": "p", "namespace": "ns"},
           "spec": {"restartPolicy": restart,
                    "containers": [{"name": "c%d" % i, "image": "i"} for i in range(n_containers)]}}
    return st.create("pods", pod)


class RouteCheck(unittest.TestCase):
    def refreshed(self, podman, n=1, restart="Never"):
        st = store.Store()
        pod = make_pod(st, n, restart)
        pods.Pods(st, podman, log=io.StringIO()).refresh(pod)
        return st.get("pods", "ns", "p")["status"]

    def test_ip_on_the_bridge_is_handed_out(self):
        status = self.refreshed(FakePodman("podman7"))
        self.assertEqual((status["phase"], status["podIP"]), ("Running", "10.9.9.2"))

    def test_ip_routed_elsewhere_fails_the_pod_without_an_ip(self):
        status = self.refreshed(FakePodman("eth0"))
        self.assertEqual((status["phase"], status["reason"]), ("Failed", "NetworkNotLocal"))
        self.assertNotIn("podIP", status)

    def test_phases(self):
        self.assertEqual(self.refreshed(FakePodman("podman7", ("exited",)))["phase"], "Succeeded")
        self.assertEqual(self.refreshed(FakePodman("podman7", ("exited", "exited-1")), 2)["phase"], "Failed")
        self.assertEqual(self.refreshed(FakePodman("podman7", ("created",)))["phase"], "Pending")
        # restartPolicy Always: podman restarts what exits, the pod stays Running (not Ready).
        status = self.refreshed(FakePodman("podman7", ("exited",)), 1, "Always")
        self.assertEqual((status["phase"], status["conditions"][-1]["status"]), ("Running", "False"))


class History(unittest.TestCase):
    def setUp(self):
        self.st = store.Store(history=3)
        for i in range(5):
            self.st.create("secrets", {"metadata": {"name": "s%d" % i, "namespace": "ns"}})

    def test_too_old_is_expired(self):
        with self.assertRaises(store.Expired):
            next(self.st.watch("secrets", "ns", lambda o: True, 1))

    def test_recent_replays_what_follows(self):
        w = self.st.watch("secrets", "ns", lambda o: True, int(self.st.rv()) - 1)
        kind, obj = next(w)
        self.assertEqual((kind, obj["metadata"]["name"]), ("ADDED", "s4"))

    def test_a_watcher_overrun_by_the_history_is_expired(self):
        w = self.st.watch("secrets", "ns", lambda o: True, int(self.st.rv()))
        for i in range(5, 10):
            self.st.create("secrets", {"metadata": {"name": "s%d" % i, "namespace": "ns"}})
        with self.assertRaises(store.Expired):
            next(w)

    def test_no_version_lists_first(self):
        w = self.st.watch("secrets", "ns", lambda o: True, None)
        self.assertEqual([next(w)[1]["metadata"]["name"] for _ in range(5)], ["s%d" % i for i in range(5)])


class Selectors(unittest.TestCase):
    def test_labels(self):
        obj = {"metadata": {"labels": {"app": "x", "tier": "a"}}}
        for expr, want in [("app=x", True), ("app==x,tier!=b", True), ("app in (y,x)", True),
                           ("tier notin (a)", False), ("!app", False), ("gone", False), ("", True)]:
            self.assertEqual(selectors.labels(expr)(obj), want, expr)

    def test_fields(self):
        obj = {"metadata": {"name": "w", "namespace": "n"}, "status": {"phase": "Running"}}
        self.assertTrue(selectors.fields("metadata.name=w,status.phase!=Failed")(obj))
        with self.assertRaises(selectors.Invalid):
            selectors.fields("spec.nodeName=x")


class AgentSandboxController(unittest.TestCase):
    """The controller with pods that only exist as objects (no podman): set Running by hand."""

    def setUp(self):
        self.st = store.Store()
        self.ctl = agent_sandbox.Controller(self.st, pods.PodValidation())
        self.st.create("sandboxtemplates", {"kind": "SandboxTemplate", "metadata": {"name": "t", "namespace": "ns"},
                                            "spec": {"podTemplate": {"metadata": {"labels": {"tier": "x"}},
                                                                     "spec": {"containers": [{"name": "c", "image": "i"}]}}}})

    def claim(self, name, warmpool="default"):
        return self.st.create("sandboxclaims", {"kind": "SandboxClaim", "metadata": {"name": name, "namespace": "ns"},
                                                "spec": {"sandboxTemplateRef": {"name": "t"}, "warmpool": warmpool}})

    def run_pod(self, name):
        self.st.update("pods", "ns", name, lambda o: o.update(status={"phase": "Running", "podIP": "10.1.1.1"}))

    def test_a_claim_gets_a_pod_of_its_template_and_loses_it_with_the_claim(self):
        c = self.claim("a", "none")
        self.ctl._take_warm(c, "t", "none")  # no pool: nothing to take
        self.assertIsNone(self.ctl._take_warm(c, "t", "default"))
        pod = self.ctl._make_pod("ns", "a", self.st.get("sandboxtemplates", "ns", "t"),
                                 {agent_sandbox.CLAIM_UID: c["metadata"]["uid"]}, c)
        self.assertEqual(pod["metadata"]["labels"], {"tier": "x", agent_sandbox.CLAIM_UID: c["metadata"]["uid"]})
        self.assertEqual(pod["metadata"]["ownerReferences"][0]["uid"], c["metadata"]["uid"])
        self.ctl.delete(c)
        self.assertIsNone(self.st.get("pods", "ns", "a"))
        self.assertIsNone(self.st.get("sandboxclaims", "ns", "a"))

    def test_a_pool_is_filled_and_a_claim_takes_its_ready_pod(self):
        pool = self.st.create("sandboxwarmpools", {"kind": "SandboxWarmPool", "metadata": {"name": "w", "namespace": "ns"},
                                                   "spec": {"replicas": 2, "sandboxTemplateRef": {"name": "t"}}})
        self.ctl._fill(pool)
        warm, _ = self.st.list("pods", "ns", lambda o: o["metadata"]["labels"].get(agent_sandbox.POOL) == "w")
        self.assertEqual(len(warm), 2)
        c = self.claim("b")
        self.assertIsNone(self.ctl._take_warm(c, "t", "default"))  # none ready yet
        self.run_pod(warm[0]["metadata"]["name"])
        self.assertIsNone(self.ctl._take_warm(c, "t", "another-pool"))
        taken = self.ctl._take_warm(c, "t", "w")
        self.assertEqual(taken["metadata"]["name"], warm[0]["metadata"]["name"])
        self.assertNotIn(agent_sandbox.POOL, taken["metadata"]["labels"])
        self.assertEqual(taken["metadata"]["labels"][agent_sandbox.CLAIM_UID], c["metadata"]["uid"])
        self.ctl.delete(self.st.get("sandboxwarmpools", "ns", "w"))
        left, _ = self.st.list("pods", "ns", lambda o: True)
        self.assertEqual([p["metadata"]["name"] for p in left], [taken["metadata"]["name"]])


class GarbageCollector(unittest.TestCase):
    """Dependents go after their owner, recursively, each through its hook; other owners keep one."""

    class RecordingPods:
        def __init__(self, st):
            self.st, self.deleted = st, []

        def delete(self, pod):  # as pods.Pods.delete, without the grace period
            self.deleted.append(pod["metadata"]["name"])
            return self.st.delete("pods", pod["metadata"]["namespace"], pod["metadata"]["name"])

    def setUp(self):
        self.st = store.Store()
        self.pods = self.RecordingPods(self.st)
        self.gc = gc.GarbageCollector(self.st, {"pods": self.pods})

    def make(self, resource, name, *owners):
        refs = [{"apiVersion": "v1", "kind": "Secret", "name": o["metadata"]["name"], "uid": o["metadata"]["uid"],
                 "controller": False, "blockOwnerDeletion": False} for o in owners]
        meta = {"name": name, "namespace": "ns"}
        if refs:
            meta["ownerReferences"] = refs
        return self.st.create(resource, {"kind": "X", "metadata": meta})

    def wait_gone(self, resource, name):
        # Woken by the store's events (its DELETED among them), never after a guessed time.
        deadline = time.monotonic() + 30  # a bound for a broken collector, not a wait
        for _ in self.st.watch(resource, "ns", lambda o: o["metadata"]["name"] == name, None):
            if self.st.get(resource, "ns", name) is None:
                return
            self.assertLess(time.monotonic(), deadline, "%s %s was not collected" % (resource, name))

    def test_dependents_go_with_their_owner_recursively(self):
        secret = self.make("secrets", "s")
        policy = self.make("networkpolicies", "np", secret)
        pod = self.make("pods", "p", secret)
        self.make("configmaps", "grandchild", pod)
        self.make("pods", "other")
        self.st.delete("secrets", "ns", "s")
        for resource, name in (("networkpolicies", "np"), ("pods", "p"), ("configmaps", "grandchild")):
            self.wait_gone(resource, name)
        self.assertEqual(self.pods.deleted, ["p"])  # a pod through the pods hook
        self.assertIsNotNone(self.st.get("pods", "ns", "other"))
        self.assertIsNone(self.st.get("networkpolicies", "ns", policy["metadata"]["name"]))

    def test_another_owner_keeps_a_dependent(self):
        a, b = self.make("secrets", "a"), self.make("secrets", "b")
        self.make("pods", "p", a, b)
        self.st.delete("secrets", "ns", "a")
        self.gc.collect(a["metadata"]["uid"])  # what the worker does, here in this thread
        self.assertIsNotNone(self.st.get("pods", "ns", "p"))
        self.st.delete("secrets", "ns", "b")
        self.wait_gone("pods", "p")


if __name__ == "__main__":
    unittest.main()
