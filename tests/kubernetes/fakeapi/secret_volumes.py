"""Secret volumes for podman kube play: podman 4.3 mounts only its own secrets (and fails on a
Kubernetes Secret's items), so each secret volume of a pod becomes a read-only bind of a
directory this server writes from the stored Secret, as the kubelet does: one file per key (or
per item), mode defaultMode (0644 when unset), owned by root and the pod's fsGroup.
"""
import base64
import os
import shutil


class SecretMissing(Exception):
    pass


def materialize(store, pod, manifest, root):
    """Rewrites manifest's secret volumes as hostPath binds of directories under root."""
    ns = pod["metadata"]["namespace"]
    group = (pod["spec"].get("securityContext") or {}).get("fsGroup", 0)
    for v in manifest["spec"].get("volumes", []):
        src = v.pop("secret", None)
        if src is None:
            continue
        secret = store.get("secrets", ns, src.get("secretName", ""))
        if secret is None:
            raise SecretMissing('secret "%s" not found' % src.get("secretName", ""))
        data = secret.get("data") or {}
        items = src.get("items") or [{"key": k, "path": k} for k in data]
        path = os.path.join(root, v["name"])
        os.makedirs(path, mode=0o755, exist_ok=True)
        for item in items:
            if item["key"] not in data:
                raise SecretMissing('secret "%s" has no key "%s"' % (src["secretName"], item["key"]))
            target = os.path.join(path, item["path"])
            with open(target, "wb") as f:
                f.write(base64.b64decode(data[item["key"]]))
            os.chown(target, 0, group)
            os.chmod(target, item.get("mode", src.get("defaultMode", 0o644)))
        v["hostPath"] = {"path": path, "type": "Directory"}


def remove(root):
    shutil.rmtree(root, ignore_errors=True)
