"""The resources the fake serves, Kubernetes' Status errors, and the discovery documents.

kubectl finds resources through /api, /apis and each group version's APIResourceList (the
legacy discovery; the server answers plain JSON to the aggregated-discovery Accept, which makes
kubectl fall back to it, as against an older cluster).
"""

VERSION = {"major": "1", "minor": "30", "gitVersion": "v1.30.0-agentbox-fake",
           "platform": "linux/amd64", "goVersion": "go1.22", "compiler": "gc"}

# plural -> (group, version, kind, namespaced, verbs, shortNames)
_RW = ["create", "delete", "get", "list", "patch", "watch"]
RESOURCES = {
    "namespaces": ("", "v1", "Namespace", False, ["get", "list", "patch", "watch"], ["ns"]),
    "pods": ("", "v1", "Pod", True, _RW, ["po"]),
    "secrets": ("", "v1", "Secret", True, _RW, []),
    "networkpolicies": ("networking.k8s.io", "v1", "NetworkPolicy", True, _RW, ["netpol"]),
}
SUBRESOURCES = {"pods/log": ("", "v1", "Pod", True, ["get"], [])}


def api_version(plural):
    group, version = RESOURCES[plural][:2]
    return "%s/%s" % (group, version) if group else version


def status(code, reason, message, name=None, plural=None):
    """A Kubernetes Status object, as every API error is sent."""
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}
    if name is not None or plural is not None:
        details = {"kind": plural or ""}
        if name is not None:
            details["name"] = name
        body["details"] = details
    return body


def _qualified(plural):
    # As the server names a resource in messages: "pods", "networkpolicies.networking.k8s.io".
    group = RESOURCES[plural][0]
    return plural + "." + group if group else plural


def not_found(plural, name):
    return status(404, "NotFound", '%s "%s" not found' % (_qualified(plural), name), name, plural)


def already_exists(plural, name):
    return status(409, "AlreadyExists", '%s "%s" already exists' % (_qualified(plural), name), name, plural)


def invalid(kind, name, causes):
    body = status(422, "Invalid", '%s "%s" is invalid: %s' % (
        kind, name, "; ".join("%s: %s" % (c["field"], c["message"]) for c in causes)))
    body["details"] = {"name": name, "kind": kind,
                       "causes": [dict(c, reason="FieldValueRequired") for c in causes]}
    return body


def api_versions():
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]}


def _groups():
    return sorted({(v[0], v[1]) for v in RESOURCES.values() if v[0]})


def api_group_list():
    groups = []
    for g, version in _groups():
        gv = {"groupVersion": "%s/%s" % (g, version), "version": version}
        groups.append({"name": g, "versions": [gv], "preferredVersion": gv})
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_group(group):
    return next((g for g in api_group_list()["groups"] if g["name"] == group), None)


def resource_list(group, version):
    """The APIResourceList of one group version, or None when the fake does not serve it."""
    table = dict(RESOURCES, **SUBRESOURCES)
    found = [(p, v) for p, v in table.items() if v[0] == group and v[1] == version]
    if not found:
        return None
    res = [{"name": p, "singularName": "" if "/" in p else v[2].lower(), "namespaced": v[3],
            "kind": v[2], "verbs": v[4], **({"shortNames": v[5]} if v[5] else {})}
           for p, v in found]
    gv = "%s/%s" % (group, version) if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": res}


def _gv_path(group, version):
    return "apis/%s/%s" % (group, version) if group else "api/" + version


def openapi_root():
    """/openapi/v3: one document per group version, as the real server lists them."""
    gvs = sorted({(v[0], v[1]) for v in RESOURCES.values()})
    return {"paths": {_gv_path(g, v): {"serverRelativeURL": "/openapi/v3/%s?hash=fake" % _gv_path(g, v)}
                      for g, v in gvs}}


def openapi_gv(path):
    """A group version's OpenAPI v3 document, reduced to what kubectl reads before a create: a
    PATCH operation per kind that lists the fieldValidation parameter, which makes kubectl leave
    validation to the server (the fake does not validate fields) instead of downloading schemas."""
    found = {}
    for plural, (g, v, kind, namespaced, _, _) in RESOURCES.items():
        if "/openapi/v3/" + _gv_path(g, v) != path:
            continue
        url = "/%s/%s%s/{name}" % (_gv_path(g, v), "namespaces/{namespace}/" if namespaced else "", plural)
        found[url] = {"patch": {
            "x-kubernetes-group-version-kind": {"group": g, "version": v, "kind": kind},
            "parameters": [{"name": "fieldValidation", "in": "query", "schema": {"type": "string"}}],
            "responses": {"200": {"description": "OK"}}}}
    if not found:
        return None
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes (agentbox fake)", "version": VERSION["gitVersion"]},
            "paths": found}
