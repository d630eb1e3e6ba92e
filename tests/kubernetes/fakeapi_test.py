#!/usr/bin/env python3
"""Unit tests of the fake API server's parts kubectl cannot reach (stdlib unittest, no podman):
the route check before a pod IP is handed out, phases, the bounded history, selectors."""
import io
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakeapi import pods, selectors, store  # noqa: E402


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


if __name__ == "__main__":
    unittest.main()
