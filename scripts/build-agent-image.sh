#!/usr/bin/env bash
# build-agent-image.sh: the kubernetes backend's agent image, built from files on this machine
# (nothing is pulled): the static agentbox-agent at /agentbox-agent and a static busybox as
# /bin/cp, which the pod's init container runs as `/bin/cp /agentbox-agent /.agentbox/agentbox-agent`
# (src/kubernetes/pod_manifest.cc). Written as a docker-archive (one layer, files owned by root,
# mode 0755, mtime 0: the same inputs give the same image id), then loaded when asked.
#
#   scripts/build-agent-image.sh [--agent PATH] [--busybox PATH] [--tag NAME:VERSION]
#                                [--output ARCHIVE] [--load podman|docker]...
#
#   --agent    the static agent (default: build/agentbox-agent)
#   --busybox  a static busybox (default: /bin/busybox, Debian's busybox-static)
#   --tag      default agentbox-agent:VERSION, VERSION from CMakeLists.txt: the image the
#              backend names by default
#   --output   default build/agentbox-agent-VERSION.tar
#   --load     `podman load` / `docker load` the archive (repeatable); podman's extra arguments
#              (a private --root, say) may come in AGENT_IMAGE_PODMAN
#
# Prints the archive's path. Refuses (exit 1, one line) a dynamically linked agent or busybox:
# the image has no libc, and the copied agent runs in any sandbox image.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VERSION=$(sed -n 's/^project(agentbox VERSION \([0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt")
AGENT=$ROOT/build/agentbox-agent
BUSYBOX=/bin/busybox
TAG=agentbox-agent:$VERSION
OUTPUT=
LOADS=()
die() { echo "build-agent-image: $*" >&2; exit 1; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --agent) AGENT=${2:?--agent needs a path}; shift 2 ;;
    --busybox) BUSYBOX=${2:?--busybox needs a path}; shift 2 ;;
    --tag) TAG=${2:?--tag needs NAME:VERSION}; shift 2 ;;
    --output) OUTPUT=${2:?--output needs a path}; shift 2 ;;
    --load)
      [[ ${2:-} == podman || ${2:-} == docker ]] || die "--load takes podman or docker"
      LOADS+=("$2"); shift 2 ;;
    *) die "unknown argument \"$1\" (see the comment at the top of $0)" ;;
  esac
done
OUTPUT=${OUTPUT:-$ROOT/build/agentbox-agent-$VERSION.tar}
[[ -f $AGENT ]] || die "no agent at $AGENT (make build makes build/agentbox-agent)"
[[ -f $BUSYBOX ]] || die "no busybox at $BUSYBOX (apt-get install busybox-static)"

# Without its debug sections the agent is a tenth of its size: every pod's init container copies
# it into an emptyDir of 64 MiB.
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if command -v strip >/dev/null; then
  strip -o "$WORK/agentbox-agent" "$AGENT"
  AGENT=$WORK/agentbox-agent
fi

python3 - "$AGENT" "$BUSYBOX" "$TAG" "$OUTPUT" <<'PY'
import hashlib, io, json, os, struct, sys, tarfile

agent, busybox, tag, output = sys.argv[1:5]

def static_elf(path):
    """True for an ELF without a PT_INTERP program header (no dynamic loader)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return False
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    return all(struct.unpack_from("<I", data, phoff + i * phentsize)[0] != 3 for i in range(phnum))

for path in (agent, busybox):
    if not static_elf(path):
        sys.exit("build-agent-image: %s is not a static ELF executable" % path)

def entry(name, mode, kind=tarfile.REGTYPE, size=0):
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.size = kind, mode, size
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    info.mtime = 0
    return info

layer = io.BytesIO()
with tarfile.open(fileobj=layer, mode="w", format=tarfile.PAX_FORMAT) as t:
    t.addfile(entry("bin", 0o755, tarfile.DIRTYPE))
    for name, src in (("agentbox-agent", agent), ("bin/cp", busybox)):
        with open(src, "rb") as f:
            t.addfile(entry(name, 0o755, size=os.path.getsize(src)), f)
layer_bytes = layer.getvalue()
diff_id = hashlib.sha256(layer_bytes).hexdigest()
config = json.dumps({
    "architecture": "amd64", "os": "linux",
    "config": {"Env": ["PATH=/bin"], "Cmd": ["/bin/cp", "/agentbox-agent", "/.agentbox/agentbox-agent"]},
    "rootfs": {"type": "layers", "diff_ids": ["sha256:" + diff_id]},
    "history": [{"created_by": "agentbox scripts/build-agent-image.sh"}],
}, sort_keys=True).encode()
config_id = hashlib.sha256(config).hexdigest()
manifest = json.dumps([{"Config": config_id + ".json", "RepoTags": [tag],
                        "Layers": [diff_id + "/layer.tar"]}]).encode()
tmp = output + ".tmp"
with tarfile.open(tmp, mode="w") as t:
    for name, body in ((diff_id + "/layer.tar", layer_bytes), (config_id + ".json", config),
                       ("manifest.json", manifest)):
        t.addfile(entry(name, 0o644, size=len(body)), io.BytesIO(body))
os.rename(tmp, output)
PY

read -r -a PODMAN_ARGS <<<"${AGENT_IMAGE_PODMAN:-}"
for engine in "${LOADS[@]}"; do
  if [[ $engine == podman ]]; then
    podman "${PODMAN_ARGS[@]}" load -q -i "$OUTPUT" >/dev/null
  else
    docker load -q -i "$OUTPUT" >/dev/null
  fi
done
echo "$OUTPUT"
