#!/usr/bin/env python3
"""Test images without the internet: layers from a directory or from a list of entries (the
malicious ones included), written as an OCI layout, a docker save archive, or pushed to a
registry (OCI distribution API, basic or token auth). Python's standard library only.

  oci_writer.py layer --dir DIR [--uid N --gid N] OUT.tar.gz       # a directory's contents
  oci_writer.py layer --entries JSON OUT.tar.gz                     # [{"path","type",...}]
  oci_writer.py bomb --bytes N [--files N] OUT.tar.gz               # a decompression/entry bomb
  oci_writer.py image [--env K=V]... [--workdir D] [--user U] [--index] [--arch A]
                      (--oci DIR | --oci-tar FILE | --docker-save FILE --tag NAME |
                       --push HOST/REPO:TAG [--auth USER:PASSWORD])  LAYER.tar.gz...

Entry types: file (data, mode), dir, symlink (target), hardlink (target), char, block, fifo.
--index wraps the manifest in an image index with a second, fake arm64 manifest.
"""
import argparse, base64, gzip, hashlib, io, json, os, re, sys, tarfile, urllib.error, urllib.parse
import urllib.request

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
OCI_CONFIG = "application/vnd.oci.image.config.v1+json"
OCI_LAYER = "application/vnd.oci.image.layer.v1.tar+gzip"


def sha(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def gz(raw):
    return gzip.compress(raw, compresslevel=6, mtime=0)


def layer_from_dir(src, uid, gid):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for root, dirs, files in os.walk(src):
            dirs.sort()
            for name in sorted(dirs) + sorted(files):
                path = os.path.join(root, name)
                info = tar.gettarinfo(path, arcname=os.path.relpath(path, src))
                if uid is not None:
                    info.uid, info.gid, info.uname, info.gname = uid, gid, "", ""
                if info.isreg():
                    with open(path, "rb") as f:
                        tar.addfile(info, f)
                else:
                    tar.addfile(info)
    return buf.getvalue()


def layer_from_entries(entries):
    buf = io.BytesIO()
    types = {"file": tarfile.REGTYPE, "dir": tarfile.DIRTYPE, "symlink": tarfile.SYMTYPE,
             "hardlink": tarfile.LNKTYPE, "char": tarfile.CHRTYPE, "block": tarfile.BLKTYPE,
             "fifo": tarfile.FIFOTYPE}
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for e in entries:
            info = tarfile.TarInfo(e["path"])
            info.type = types[e.get("type", "file")]
            info.mode = e.get("mode", 0o755 if info.type == tarfile.DIRTYPE else 0o644)
            info.uid = info.gid = e.get("uid", 0)
            info.mtime = 1700000000
            info.linkname = e.get("target", "")
            data = e.get("data", "").encode()
            if info.type == tarfile.REGTYPE:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)
    return buf.getvalue()


class Zeros(io.RawIOBase):
    def __init__(self, n):
        self.left = n

    def readable(self):
        return True

    def readinto(self, b):
        n = min(len(b), self.left)
        b[:n] = bytes(n)
        self.left -= n
        return n


def bomb(total, files, out):
    with gzip.GzipFile(out, "wb", compresslevel=9, mtime=0) as z:
        with tarfile.open(fileobj=z, mode="w|", format=tarfile.PAX_FORMAT) as tar:
            for i in range(files):
                info = tarfile.TarInfo("f%d" % i)
                info.size = total if i == 0 else 0
                tar.addfile(info, io.BufferedReader(Zeros(info.size)) if info.size else None)


def build(layers, args, arch="amd64"):
    """(manifest bytes, config bytes, [(layer digest, gz bytes)])"""
    diff_ids = [sha(gzip.decompress(l)) for l in layers]
    config = {"architecture": arch, "os": "linux", "created": "2026-01-01T00:00:00Z",
              "config": {"Env": args.env or ["PATH=/usr/local/bin:/usr/bin:/bin"]},
              "rootfs": {"type": "layers", "diff_ids": diff_ids}}
    if args.workdir:
        config["config"]["WorkingDir"] = args.workdir
    if args.user:
        config["config"]["User"] = args.user
    cfg = json.dumps(config).encode()
    manifest = {"schemaVersion": 2, "mediaType": OCI_MANIFEST,
                "config": {"mediaType": OCI_CONFIG, "digest": sha(cfg), "size": len(cfg)},
                "layers": [{"mediaType": OCI_LAYER, "digest": sha(l), "size": len(l)}
                           for l in layers]}
    return json.dumps(manifest).encode(), cfg


def descriptor(media, data, arch=None):
    d = {"mediaType": media, "digest": sha(data), "size": len(data)}
    if arch:
        d["platform"] = {"os": "linux", "architecture": arch}
    return d


def write_oci(out, layers, args, tag):
    manifest, cfg = build(layers, args)
    blobs = [manifest, cfg] + layers
    top = manifest
    top_desc = descriptor(OCI_MANIFEST, manifest)
    if args.index:
        other, other_cfg = build(layers, args, arch="arm64")
        blobs += [other, other_cfg]
        top = json.dumps({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": [
            descriptor(OCI_MANIFEST, other, "arm64"),
            descriptor(OCI_MANIFEST, manifest, "amd64")]}).encode()
        blobs.append(top)
        top_desc = descriptor(OCI_INDEX, top)
    top_desc["annotations"] = {"org.opencontainers.image.ref.name": tag}
    files = {"oci-layout": json.dumps({"imageLayoutVersion": "1.0.0"}).encode(),
             "index.json": json.dumps({"schemaVersion": 2, "manifests": [top_desc]}).encode()}
    for b in blobs:
        files["blobs/sha256/" + hashlib.sha256(b).hexdigest()] = b
    return files


def write_docker_save(layers, args, tag):
    _, cfg = build(layers, args)
    files = {hashlib.sha256(cfg).hexdigest() + ".json": cfg}
    paths = []
    for i, l in enumerate(layers):
        paths.append("layer%d/layer.tar" % i)
        files[paths[-1]] = gzip.decompress(l)
    files["manifest.json"] = json.dumps([{"Config": hashlib.sha256(cfg).hexdigest() + ".json",
                                          "RepoTags": [tag], "Layers": paths}]).encode()
    return files


def save_files(files, out_dir=None, out_tar=None):
    if out_dir:
        for name, data in files.items():
            path = os.path.join(out_dir, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
        return
    with tarfile.open(out_tar, "w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


class Pusher:
    def __init__(self, host, auth):
        self.base = "http://" + host
        self.basic = "Basic " + base64.b64encode(auth.encode()).decode() if auth else None
        self.token = None

    def call(self, method, url, data=None, headers=None, retry=True):
        req = urllib.request.Request(url if url.startswith("http") else self.base + url,
                                     data=data, method=method, headers=dict(headers or {}))
        if self.token:
            req.add_header("Authorization", self.token)
        try:
            return urllib.request.urlopen(req, timeout=30)
        except urllib.error.HTTPError as e:
            if e.code != 401 or not retry:
                raise
            self.authenticate(e.headers.get("WWW-Authenticate", ""))
            return self.call(method, url, data, headers, retry=False)

    def authenticate(self, challenge):
        scheme, _, rest = challenge.partition(" ")
        if scheme.lower() == "basic":
            self.token = self.basic
            return
        params = dict(re.findall(r'(\w+)="([^"]*)"', rest))
        url = params["realm"] + "?" + urllib.parse.urlencode(
            {"service": params.get("service", ""), "scope": params.get("scope", "")})
        req = urllib.request.Request(url, headers={"Authorization": self.basic} if self.basic else {})
        self.token = "Bearer " + json.load(urllib.request.urlopen(req, timeout=30))["token"]

    def blob(self, repo, data):
        digest = sha(data)
        try:
            self.call("HEAD", "/v2/%s/blobs/%s" % (repo, digest))
            return
        except urllib.error.HTTPError as e:
            if e.code != 404:
                raise
        loc = self.call("POST", "/v2/%s/blobs/uploads/" % repo, b"").headers["Location"]
        if not loc.startswith("http"):
            loc = self.base + loc
        sep = "&" if "?" in loc else "?"
        self.call("PUT", loc + sep + "digest=" + digest, data,
                  {"Content-Type": "application/octet-stream"})

    def manifest(self, repo, ref, data, media):
        self.call("PUT", "/v2/%s/manifests/%s" % (repo, ref), data, {"Content-Type": media})


def push(target, layers, args):
    host, _, rest = target.partition("/")
    repo, _, tag = rest.rpartition(":")
    p = Pusher(host, args.auth)
    manifest, cfg = build(layers, args)
    for b in layers + [cfg]:
        p.blob(repo, b)
    if not args.index:
        p.manifest(repo, tag, manifest, OCI_MANIFEST)
        print(sha(manifest))
        return
    other, other_cfg = build(layers, args, arch="arm64")
    p.blob(repo, other_cfg)
    p.manifest(repo, sha(manifest), manifest, OCI_MANIFEST)
    p.manifest(repo, sha(other), other, OCI_MANIFEST)
    index = json.dumps({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": [
        descriptor(OCI_MANIFEST, other, "arm64"), descriptor(OCI_MANIFEST, manifest, "amd64")]})
    p.manifest(repo, tag, index.encode(), OCI_INDEX)
    print(sha(index.encode()))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    l = sub.add_parser("layer")
    l.add_argument("--dir")
    l.add_argument("--entries")
    l.add_argument("--uid", type=int)
    l.add_argument("--gid", type=int)
    l.add_argument("out")
    b = sub.add_parser("bomb")
    b.add_argument("--bytes", type=int, default=0)
    b.add_argument("--files", type=int, default=1)
    b.add_argument("out")
    i = sub.add_parser("image")
    i.add_argument("--env", action="append")
    i.add_argument("--workdir")
    i.add_argument("--user")
    i.add_argument("--index", action="store_true")
    i.add_argument("--oci")
    i.add_argument("--oci-tar")
    i.add_argument("--docker-save")
    i.add_argument("--tag", default="test:latest")
    i.add_argument("--push")
    i.add_argument("--auth")
    i.add_argument("layers", nargs="+")
    args = ap.parse_args()
    if args.cmd == "layer":
        raw = (layer_from_dir(args.dir, args.uid, args.gid) if args.dir
               else layer_from_entries(json.loads(args.entries)))
        with open(args.out, "wb") as f:
            f.write(gz(raw))
    elif args.cmd == "bomb":
        bomb(args.bytes, args.files, args.out)
    else:
        layers = [open(p, "rb").read() for p in args.layers]
        if args.push:
            push(args.push, layers, args)
        elif args.docker_save:
            save_files(write_docker_save(layers, args, args.tag), out_tar=args.docker_save)
        else:
            save_files(write_oci(None, layers, args, args.tag), out_dir=args.oci,
                       out_tar=args.oci_tar)


if __name__ == "__main__":
    sys.exit(main())
