"""The fake Kubernetes API server's parts (tests/kubernetes/fake_apiserver.py is the entry)."""
