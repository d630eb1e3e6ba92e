"""URL paths of the Kubernetes API to (plural, namespace, name, subresource)."""
import urllib.parse

from .resources import RESOURCES


class Route:
    def __init__(self, plural, namespace=None, name=None, sub=None):
        self.plural, self.namespace, self.name, self.sub = plural, namespace, name, sub


def parse(path):
    """A Route for a resource path, or None (discovery paths are the handler's)."""
    parts = [urllib.parse.unquote(p) for p in path.strip("/").split("/")]
    if parts[:2] == ["api", "v1"]:
        group, version, rest = "", "v1", parts[2:]
    elif len(parts) >= 3 and parts[0] == "apis":
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return None
    if not rest:
        return None
    namespace = None
    if rest[0] == "namespaces" and len(rest) >= 3:
        namespace, rest = rest[1], rest[2:]
    plural = rest[0]
    spec = RESOURCES.get(plural)
    if spec is None or spec[0] != group or spec[1] != version or len(rest) > 3:
        return None
    if namespace is not None and not spec[3]:
        return None
    name = rest[1] if len(rest) > 1 else None
    sub = rest[2] if len(rest) > 2 else None
    return Route(plural, namespace, name, sub)
