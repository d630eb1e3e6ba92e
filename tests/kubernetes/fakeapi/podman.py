"""A private podman: its own storage, run dir, containers.conf and bridge network.

Everything lives under one state dir, so nothing is shared with another podman user of the
host (another fake server, a developer's containers): storage (--root/--runroot), the events log
and locks (tmp_dir), network definitions (network_config_dir). containers.conf lowers the nofile
and nproc ulimits: podman as root asks for more than these machines' hard limits and runc fails.
Only what this object created is removed, by the names it recorded.
"""
import ipaddress
import json
import os
import random
import subprocess

_CONF = """[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
[network]
network_backend = "netavark"
network_config_dir = "{dir}/networks"
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
tmp_dir = "{dir}/tmp"
"""


class PodmanError(Exception):
    pass


class Podman:
    def __init__(self, state_dir):
        self.dir = os.path.join(state_dir, "podman")
        os.makedirs(os.path.join(self.dir, "networks"), exist_ok=True)
        self.conf = os.path.join(self.dir, "containers.conf")
        with open(self.conf, "w") as f:
            f.write(_CONF.format(dir=self.dir))
        self.env = dict(os.environ, CONTAINERS_CONF=self.conf)
        self.argv = ["podman", "--root", self.dir + "/storage", "--runroot", self.dir + "/run"]
        self.network = self.bridge = self.subnet = None

    def run(self, *args, check=True, timeout=120):
        try:
            p = subprocess.run(self.argv + list(args), env=self.env, capture_output=True, text=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            raise PodmanError("podman %s: no answer in %d s" % (args[0], timeout))
        if check and p.returncode != 0:
            last = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
            error = PodmanError("podman %s: %s" % (args[0], last))
            error.stderr = p.stderr
            raise error
        return p.stdout

    def popen(self, *args):
        return subprocess.Popen(self.argv + list(args), env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)

    def create_network(self, name):
        """A bridge network on a private /24 no route of the host covers yet."""
        used = [ipaddress.ip_network(r["dst"], strict=False)
                for r in json.loads(subprocess.check_output(["ip", "-j", "route"]))
                if r.get("dst", "default") != "default"]
        for _ in range(20):
            net = ipaddress.ip_network("10.%d.%d.0/24" % (random.randint(200, 250), random.randint(0, 255)))
            if any(net.overlaps(u) for u in used):
                continue
            if self.run("network", "create", "--disable-dns", "--subnet", str(net), name, check=False):
                self.network, self.subnet = name, net
                self.bridge = self._own_bridge_name(name)
                return
        raise PodmanError("no free private subnet for the pod network")

    def _own_bridge_name(self, name):
        """podman names the bridge podmanN after the networks of its own config dir: two fake
        servers (two suites at once) would share podman1, and the first to stop would take the
        other's bridge away. The bridge is made at the first pod's start, so renaming it in the
        network's file before then gives each server a bridge of its own (at most 15 bytes)."""
        path = os.path.join(self.dir, "networks", name + ".json")
        with open(path) as f:
            config = json.load(f)
        config["network_interface"] = "k8sf%06x%02x" % (os.getpid() & 0xffffff, random.randint(0, 255))
        with open(path, "w") as f:
            json.dump(config, f)
        return config["network_interface"]

    def route_device(self, ip):
        out = subprocess.run(["ip", "-o", "route", "get", ip], capture_output=True, text=True).stdout.split()
        return out[out.index("dev") + 1] if "dev" in out else None

    def import_image(self, tar, name):
        self.run("import", tar, name, timeout=600)

    def load_image(self, archive):
        self.run("load", "-i", archive, timeout=600)

    def containers(self, pod):
        return json.loads(self.run("ps", "-a", "--filter", "pod=" + pod, "--format", "json") or "[]")

    def pod_ip(self, infra_id):
        nets = json.loads(self.run("inspect", infra_id, "--format", "{{json .NetworkSettings.Networks}}"))
        return (nets.get(self.network) or {}).get("IPAddress") or None

    def remove_network(self):
        if self.network:
            self.run("network", "rm", "-f", self.network, check=False)
            self.network = None

    def unmount_storage(self):
        # containers/storage bind-mounts its overlay dir on itself: undo it, deepest first, so
        # the state dir can be removed. Only mounts under this podman's own dir are touched.
        with open("/proc/self/mountinfo") as f:
            points = [line.split()[4] for line in f]
        for point in sorted((p for p in points if p.startswith(self.dir + "/")), reverse=True):
            subprocess.run(["umount", "-l", point], capture_output=True)
