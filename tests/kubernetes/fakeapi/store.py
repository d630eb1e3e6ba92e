"""An in-memory object store with Kubernetes' resourceVersion and watch semantics.

Every change bumps one global resourceVersion and appends an event to a bounded history; a watch
from resourceVersion RV replays the history after RV, or is told 410 Expired when events after RV
were already dropped (the history is bounded on purpose, so clients' relist path can be tested).
"""
import collections
import copy
import datetime
import threading
import uuid


class Expired(Exception):
    """The requested resourceVersion is older than the oldest event the history still holds."""


def stamp(epoch=None):
    """An RFC 3339 time as the API writes them: now, or a Unix time (podman's StartedAt)."""
    t = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc) if epoch else \
        datetime.datetime.now(datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def now():
    return stamp()


class Store:
    def __init__(self, history=100):
        self._lock = threading.Condition()
        self._objects = {}  # (resource, namespace, name) -> object
        self._events = collections.deque(maxlen=history)  # (rv, resource, type, object)
        self._rv = 1
        self._closed = False
        self._deleted = []  # on_delete's callbacks

    def on_delete(self, callback):
        """callback(resource, object) after each delete, with the lock held: it must not block."""
        self._deleted.append(callback)

    def rv(self):
        with self._lock:
            return str(self._rv)

    def _record(self, resource, kind, obj):
        # Called with the lock held: bump the version, stamp it, keep the event, wake watchers.
        self._rv += 1
        obj["metadata"]["resourceVersion"] = str(self._rv)
        self._events.append((self._rv, resource, kind, copy.deepcopy(obj)))
        self._lock.notify_all()

    def create(self, resource, obj):
        """Stores a new object (uid, timestamps, version set); None when the name is taken."""
        meta = obj["metadata"]
        key = (resource, meta.get("namespace", ""), meta["name"])
        with self._lock:
            if key in self._objects:
                return None
            meta["uid"] = str(uuid.uuid4())
            meta["creationTimestamp"] = now()
            self._objects[key] = obj
            self._record(resource, "ADDED", obj)
            return copy.deepcopy(obj)

    def get(self, resource, namespace, name):
        with self._lock:
            obj = self._objects.get((resource, namespace, name))
            return copy.deepcopy(obj) if obj else None

    def update(self, resource, namespace, name, change):
        """Applies change(obj) in place under the lock; the new object, or None when gone."""
        with self._lock:
            obj = self._objects.get((resource, namespace, name))
            if obj is None:
                return None
            change(obj)
            self._record(resource, "MODIFIED", obj)
            return copy.deepcopy(obj)

    def delete(self, resource, namespace, name):
        with self._lock:
            obj = self._objects.pop((resource, namespace, name), None)
            if obj is None:
                return None
            self._record(resource, "DELETED", obj)
            for callback in self._deleted:
                callback(resource, copy.deepcopy(obj))
            return copy.deepcopy(obj)

    def owned_by(self, uid):
        """(resource, object) of every object whose metadata.ownerReferences name uid."""
        with self._lock:
            return [(r, copy.deepcopy(o)) for (r, _, _), o in sorted(self._objects.items())
                    if any(ref.get("uid") == uid for ref in o["metadata"].get("ownerReferences") or [])]

    def has_uid(self, uid):
        with self._lock:
            return any(o["metadata"].get("uid") == uid for o in self._objects.values())

    def list(self, resource, namespace, sel):
        """Matching objects and the list's resourceVersion; namespace None means all."""
        with self._lock:
            items = [copy.deepcopy(o) for (r, ns, _), o in sorted(self._objects.items())
                     if r == resource and (namespace is None or ns == namespace) and sel(o)]
            return items, str(self._rv)

    def watch(self, resource, namespace, sel, since):
        """Yields (type, object) from resourceVersion `since` (None: ADDED for what exists now).

        Raises Expired before yielding anything when `since` is older than the history. Waits
        for new events; yields None every second when idle so the caller can check its deadline.
        """
        with self._lock:
            if since is None:
                items, rv = self.list(resource, namespace, sel)
                pending = [("ADDED", o) for o in items]
                last = int(rv)
            else:
                last = since
                oldest = self._events[0][0] if self._events else self._rv + 1
                if last + 1 < oldest and last < self._rv:
                    raise Expired("too old resource version: %d (%d)" % (last, oldest - 1))
                pending = []
        yield from pending
        while True:
            with self._lock:
                fresh = [e for e in self._events if e[0] > last]
                if not fresh and not self._closed:
                    self._lock.wait(1.0)
                    fresh = [e for e in self._events if e[0] > last]
                if self._closed:
                    return
            if fresh and fresh[0][0] > last + 1:
                # This watcher fell behind the bounded history: as a real server, end it.
                raise Expired("too old resource version: %d (%d)" % (last, fresh[0][0] - 1))
            for rv, res, kind, obj in fresh:
                last = rv
                ns = obj["metadata"].get("namespace", "")
                if res == resource and (namespace is None or ns == namespace) and sel(obj):
                    yield kind, copy.deepcopy(obj)
            if not fresh:
                yield None

    def close(self):
        with self._lock:
            self._closed = True
            self._lock.notify_all()
