"""HTTP handling: bearer-token auth, discovery, and create/get/list/delete/watch on the store.

Resource-specific behaviour (pod validation, running pods, logs) is in `hooks`, one object per
plural with optional methods: admit(obj) -> causes (it may set defaults, as admission does),
created(obj), delete(obj) -> the object marked for deletion (the hook finishes the deletion
later, as after a pod's grace period), and logs(obj, container).
"""
import http.server
import json
import random
import re
import string
import time
import urllib.parse

from . import resources as R
from . import routes, selectors, store

_NAME = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")


class Api:
    """What every request handler shares."""

    def __init__(self, store_, token, hooks, log=None):
        self.store, self.token, self.hooks, self.log = store_, token, hooks, log


def _merge(target, patch):
    """Applies a JSON merge patch to the dict target in place (null removes a key)."""
    for k, v in patch.items():
        if v is None:
            target.pop(k, None)
        elif isinstance(v, dict) and isinstance(target.get(k), dict):
            _merge(target[k], v)
        else:
            target[k] = v


def make_handler(api):
    class Handler(_Handler):
        pass

    Handler.api = api
    return Handler


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    api = None

    def log_message(self, fmt, *args):
        if self.api.log:
            # The wall clock first (ms): bench/kubernetes lines requests up with its own clocks.
            self.api.log.write("%.3f %s %s\n" % (time.time(), self.address_string(), fmt % args))
            self.api.log.flush()

    def send_json(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def fail(self, body):
        self.send_json(body["code"], body)

    def authorized(self):
        if self.headers.get("Authorization", "") == "Bearer " + self.api.token:
            return True
        self.fail(R.status(401, "Unauthorized", "Unauthorized"))
        return False

    def dispatch(self, method):
        if not self.authorized():
            return
        url = urllib.parse.urlsplit(self.path)
        self.query = {k: v[-1] for k, v in urllib.parse.parse_qs(url.query).items()}
        if method == "GET" and url.path == "/openapi/v2":
            return self.openapi_v2()
        doc = self.discovery(url.path.rstrip("/")) if method == "GET" else None
        if doc is not None:
            return self.send_json(200, doc)
        route = routes.parse(url.path)
        if route is None:
            return self.fail(R.status(404, "NotFound", "the server could not find the requested resource"))
        verb = {"POST": "create", "DELETE": "delete", "PATCH": "patch"}.get(method, "get" if route.name else "list")
        if verb not in R.RESOURCES[route.plural][4]:
            self.body()
            return self.fail(R.status(405, "MethodNotAllowed", "%s is not served for %s" % (verb, route.plural)))
        try:
            getattr(self, "do_" + method.lower() + "_resource")(route)
        except selectors.Invalid as e:
            self.fail(R.status(400, "BadRequest", str(e)))

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def do_PATCH(self):
        self.dispatch("PATCH")

    def do_PUT(self):
        self.body()
        self.fail(R.status(405, "MethodNotAllowed", "the fake API server does not replace objects (PATCH them)"))

    def discovery(self, path):
        if path == "/version":
            return R.VERSION
        if path == "/api":
            return R.api_versions()
        if path == "/apis":
            return R.api_group_list()
        if path == "/api/v1":
            return R.resource_list("", "v1")
        if path == "/openapi/v3":
            return R.openapi_root()
        if path.startswith("/openapi/v3/"):
            return R.openapi_gv(path)
        parts = path.split("/")
        if len(parts) == 3 and parts[1] == "apis":
            return R.api_group(parts[2])
        if len(parts) == 4 and parts[1] == "apis":
            return R.resource_list(parts[2], parts[3])
        return None

    def openapi_v2(self):
        # An empty protobuf Document: kubectl before 1.27 (Debian's 1.20) downloads it to validate
        # what it creates, finds no schema for the kind, and leaves validation to the server.
        self.send_response(200)
        self.send_header("Content-Type", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    # -- resources -------------------------------------------------------------------------

    def key(self, route):
        return route.plural, route.namespace or "", route.name

    def namespace_missing(self, route):
        if route.namespace is None or self.api.store.get("namespaces", "", route.namespace):
            return False
        self.fail(R.not_found("namespaces", route.namespace))
        return True

    def do_get_resource(self, route):
        sel = selectors.both(self.query.get("labelSelector"), self.query.get("fieldSelector"))
        if route.name is None and self.query.get("watch") in ("true", "1"):
            return self.watch(route, sel)
        if route.name is None:
            items, rv = self.api.store.list(route.plural, route.namespace, sel)
            kind = R.RESOURCES[route.plural][2] + "List"
            return self.send_json(200, {"kind": kind, "apiVersion": R.api_version(route.plural),
                                        "metadata": {"resourceVersion": rv}, "items": items})
        obj = self.api.store.get(*self.key(route))
        if obj is None:
            return self.fail(R.not_found(route.plural, route.name))
        hook = self.api.hooks.get(route.plural)
        if route.sub == "log" and hasattr(hook, "logs"):
            text = hook.logs(obj, self.query.get("container")).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            return self.wfile.write(text)
        if route.sub is not None:
            return self.fail(R.status(404, "NotFound", "no subresource " + route.sub))
        self.send_json(200, obj)

    def do_post_resource(self, route):
        raw = self.body()
        if route.name is not None:
            return self.fail(R.status(405, "MethodNotAllowed", "create posts to the collection"))
        if self.namespace_missing(route):
            return None
        try:
            obj = json.loads(raw)
        except ValueError as e:
            return self.fail(R.status(400, "BadRequest", "the body is not JSON: %s" % e))
        meta = obj.setdefault("metadata", {})
        if meta.get("namespace", route.namespace) != route.namespace:
            return self.fail(R.status(400, "BadRequest", "the namespace of the provided object does "
                                      "not match the namespace sent on the request"))
        if route.namespace is not None:
            meta["namespace"] = route.namespace
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = meta["generateName"] + "".join(random.choices(string.ascii_lowercase + string.digits, k=5))
        kind = R.RESOURCES[route.plural][2]
        causes = [] if _NAME.match(meta.get("name") or "") else [
            {"field": "metadata.name", "message": "Required value: a lowercase RFC 1123 subdomain"}]
        hook = self.api.hooks.get(route.plural)
        causes += hook.admit(obj) if hook and hasattr(hook, "admit") else []
        if causes:
            return self.fail(R.invalid(kind, meta.get("name", ""), causes))
        obj["kind"], obj["apiVersion"] = kind, R.api_version(route.plural)
        created = self.api.store.create(route.plural, obj)
        if created is None:
            return self.fail(R.already_exists(route.plural, meta["name"]))
        if hook and hasattr(hook, "created"):
            hook.created(created)
        self.send_json(201, created)

    def do_patch_resource(self, route):
        """A JSON merge patch (RFC 7386); a strategic merge patch is taken as one, which is what it
        is for labels, annotations and other maps. A pod's spec cannot change, as on a cluster."""
        raw = self.body()
        kind = self.headers.get("Content-Type", "").split(";")[0]
        if kind not in ("application/merge-patch+json", "application/strategic-merge-patch+json"):
            return self.fail(R.status(415, "UnsupportedMediaType", "the fake takes merge patches only, not " + kind))
        try:
            patch = json.loads(raw)
        except ValueError as e:
            return self.fail(R.status(400, "BadRequest", "the patch is not JSON: %s" % e))
        if route.name is None or route.sub is not None or not isinstance(patch, dict):
            return self.fail(R.status(405, "MethodNotAllowed", "patch a named object with a JSON object"))
        if route.plural == "pods" and "spec" in patch:
            return self.fail(R.invalid("Pod", route.name, [{"field": "spec", "message": "Forbidden: pod updates "
                                                            "may not change the spec in the fake"}]))
        patch.get("metadata", {}).pop("resourceVersion", None)
        obj = self.api.store.update(*self.key(route), lambda o: _merge(o, patch))
        if obj is None:
            return self.fail(R.not_found(route.plural, route.name))
        self.send_json(200, obj)

    def do_delete_resource(self, route):
        self.body()
        if route.name is None or route.sub is not None:
            return self.fail(R.status(405, "MethodNotAllowed", "delete a named object"))
        hook = self.api.hooks.get(route.plural)
        obj = self.api.store.get(*self.key(route))
        if obj is None:
            return self.fail(R.not_found(route.plural, route.name))
        if hook and hasattr(hook, "delete"):
            return self.send_json(200, hook.delete(obj))
        gone = self.api.store.delete(*self.key(route))
        if gone is None:
            return self.fail(R.not_found(route.plural, route.name))
        self.send_json(200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                             "details": {"name": route.name, "kind": route.plural,
                                         "uid": gone["metadata"]["uid"]}})

    # -- watch -------------------------------------------------------------------------------

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def watch(self, route, sel):
        rv = self.query.get("resourceVersion")
        since = int(rv) if rv not in (None, "", "0") else None
        deadline = time.monotonic() + float(self.query.get("timeoutSeconds") or 1800)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for event in self.api.store.watch(route.plural, route.namespace, sel, since):
                if event is not None:
                    self.chunk(json.dumps({"type": event[0], "object": event[1]}).encode() + b"\n")
                if time.monotonic() > deadline:
                    break
        except store.Expired as e:
            # As the real server (its watch cache): a 200 stream whose one event is the 410.
            gone = R.status(410, "Expired", str(e))
            self.chunk(json.dumps({"type": "ERROR", "object": gone}).encode() + b"\n")
        except OSError:  # the client went away (a broken pipe, a reset, a TLS EOF)
            self.close_connection = True
            return
        self.chunk(b"")
        self.close_connection = True
