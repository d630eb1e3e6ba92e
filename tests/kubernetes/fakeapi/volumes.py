"""A pod's secret and emptyDir volumes for podman kube play, made as the kubelet makes them.

podman 4.3 mounts only its own secrets (and fails on a Kubernetes Secret's items), and plays an
emptyDir as a named volume that copies up the image's directory with its owner (root: a
non-root pod could not write its /workspace). So both become binds of directories this server
makes under the pod's own dir: a secret volume holds one file per key (or per item), mode
defaultMode (0644 when unset), owned by root and the pod's fsGroup; an emptyDir is empty, mode
0777 (the kubelet's), with the fsGroup's group and setgid when the pod has one. sizeLimit and
medium stay ignored, as podman ignores them.
"""
import base64
import os
import shutil


class SecretMissing(Exception):
    pass


def _empty_dir(path, group):
    os.makedirs(path, exist_ok=True)
    os.chown(path, 0, group)
    os.chmod(path, 0o2777 if group else 0o777)


def materialize(store, pod, manifest, root):
    """Rewrites manifest's secret and emptyDir volumes as hostPath binds of dirs under root."""
    ns = pod["metadata"]["namespace"]
    group = (pod["spec"].get("securityContext") or {}).get("fsGroup", 0)
    for v in manifest["spec"].get("volumes", []):
        if v.pop("emptyDir", None) is not None:
            _empty_dir(os.path.join(root, v["name"]), group)
            v["hostPath"] = {"path": os.path.join(root, v["name"]), "type": "Directory"}
            continue
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
