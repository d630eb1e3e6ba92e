"""The cluster's garbage collector, as background propagation does it: when an object is deleted,
the objects whose metadata.ownerReferences name its uid, and no owner still present, are deleted
too, through their hooks (a pod as a pod delete: grace, then podman's teardown), and theirs after
them in turn. One worker thread, fed by the store's deletions."""
import queue
import threading


class GarbageCollector:
    def __init__(self, store, hooks):
        self.store, self.hooks = store, hooks
        self._gone = queue.Queue()  # uids of deleted objects
        store.on_delete(lambda resource, obj: self._gone.put(obj["metadata"]["uid"]))
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while True:
            self.collect(self._gone.get())

    def collect(self, uid):
        """Deletes the dependents of the deleted object `uid` (their own follow through the store)."""
        for resource, obj in self.store.owned_by(uid):
            meta = obj["metadata"]
            if meta.get("deletionTimestamp"):
                continue  # going already
            if any(self.store.has_uid(o.get("uid")) for o in meta["ownerReferences"]):
                continue  # another owner keeps it (a real cluster drops the dangling reference)
            hook = self.hooks.get(resource)
            if hook and hasattr(hook, "delete"):
                hook.delete(obj)
            else:
                self.store.delete(resource, meta.get("namespace", ""), meta["name"])
