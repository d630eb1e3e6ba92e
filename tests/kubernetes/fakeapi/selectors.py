"""labelSelector and fieldSelector as the API server parses them (the subset clients send).

Labels: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`, comma-joined.
Fields: `metadata.name`, `metadata.namespace`, `status.phase` with `=`, `==`, `!=`.
"""
import re


class Invalid(ValueError):
    pass


def _split(expr):
    # Commas inside "in (a,b)" do not split requirements.
    parts, depth, cur = [], 0, ""
    for ch in expr:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


_SET = re.compile(r"^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$")
_EQ = re.compile(r"^([\w./-]+)\s*(==|=|!=)\s*([\w./-]*)$")
_EXISTS = re.compile(r"^(!?)([\w./-]+)$")


def _label_req(req):
    m = _SET.match(req)
    if m:
        key, op, vals = m.group(1), m.group(2), {v.strip() for v in m.group(3).split(",")}
        if op == "in":
            return lambda l: key in l and l[key] in vals
        return lambda l: key not in l or l[key] not in vals
    m = _EQ.match(req)
    if m:
        key, op, val = m.groups()
        if op == "!=":
            return lambda l: l.get(key) != val
        return lambda l: l.get(key) == val
    m = _EXISTS.match(req)
    if m:
        neg, key = m.groups()
        return (lambda l: key not in l) if neg else (lambda l: key in l)
    raise Invalid("unable to parse requirement: %r" % req)


def labels(expr):
    reqs = [_label_req(r) for r in _split(expr or "")]
    return lambda obj: all(r(obj["metadata"].get("labels") or {}) for r in reqs)


_FIELDS = {
    "metadata.name": lambda o: o["metadata"].get("name", ""),
    "metadata.namespace": lambda o: o["metadata"].get("namespace", ""),
    "status.phase": lambda o: (o.get("status") or {}).get("phase", ""),
}


def _field_req(req):
    m = _EQ.match(req)
    if not m or m.group(1) not in _FIELDS:
        raise Invalid("field label not supported: %s" % req)
    get, op, val = _FIELDS[m.group(1)], m.group(2), m.group(3)
    if op == "!=":
        return lambda o: get(o) != val
    return lambda o: get(o) == val


def fields(expr):
    reqs = [_field_req(r) for r in _split(expr or "")]
    return lambda obj: all(r(obj) for r in reqs)


def both(label_expr, field_expr):
    a, b = labels(label_expr), fields(field_expr)
    return lambda obj: a(obj) and b(obj)
