#!/usr/bin/env python3
"""check-deploy.py [--root DIR]: deploy/'s manifests parse and keep their promises.

kubectl cannot check them here (`apply --dry-run=client` asks a server which kinds exist), so
this reads every deploy/*.yaml with PyYAML and checks: each document has apiVersion, kind and
metadata.name; the Role grants exactly the verbs docs/kubernetes.md lists (pods, secrets,
networkpolicies in agentbox-sandboxes, nothing else); serve's pods carry the label a sandbox's
NetworkPolicy admits (the value of kLabelRole/kRoleServer in src/kubernetes/object_names.h) and
run non-root, read-only, without capabilities or privilege escalation; serve makes every sandbox
a pod (`--backend kubernetes`) in the Role's namespace (AGENTBOX_KUBE_NAMESPACE); more than one
replica shares one AGENTBOX_KUBE_OWNER and its Service keeps a client on one replica
(sessionAffinity ClientIP: an MCP session's calls in flight and cursors are one replica's). One
line per problem; the last line is `deploy: N passed, N failed`.
"""
import argparse
import glob
import os
import re
import sys

import yaml

ROLE_RULES = {
    ("", "pods"): ["get", "list", "watch", "create", "delete"],
    ("", "secrets"): ["get", "list", "create", "delete"],
    ("networking.k8s.io", "networkpolicies"): ["get", "list", "create", "delete"],
}


def server_label(root):
    text = open(os.path.join(root, "src/kubernetes/object_names.h")).read()
    key = re.search(r'kLabelRole = "([^"]+)"', text).group(1)
    value = re.search(r'kRoleServer = "([^"]+)"', text).group(1)
    return key, value


def check_role(doc, problems):
    rules = {}
    for rule in doc.get("rules", []):
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                rules[(group, resource)] = rule["verbs"]
    if rules != ROLE_RULES:
        problems.append(f"Role {doc['metadata']['name']}: rules {rules} != {ROLE_RULES}")


def check_serve_backend(container, role_namespaces, problems):
    args = container.get("args", [])
    if not any(a == "--backend" and b == "kubernetes" for a, b in zip(args, args[1:])):
        problems.append(f"Deployment: container {container['name']}: no --backend kubernetes, "
                        "so a create that names no backend would not be a pod")
    env = {e["name"]: e.get("value") for e in container.get("env", [])}
    if env.get("AGENTBOX_KUBE_NAMESPACE") not in role_namespaces:
        problems.append(f"Deployment: container {container['name']}: AGENTBOX_KUBE_NAMESPACE "
                        f"{env.get('AGENTBOX_KUBE_NAMESPACE')} is not the Role's namespace "
                        f"{sorted(role_namespaces)}")


def check_serve(doc, label, role_namespaces, problems):
    pod = doc["spec"]["template"]
    if pod["metadata"]["labels"].get(label[0]) != label[1]:
        problems.append(f"Deployment: pods lack {label[0]}={label[1]}, so no sandbox admits them")
    if pod["spec"]["securityContext"].get("runAsNonRoot") is not True:
        problems.append("Deployment: runAsNonRoot is not true")
    for c in pod["spec"]["containers"]:
        sc = c.get("securityContext", {})
        want = {"readOnlyRootFilesystem": True, "allowPrivilegeEscalation": False,
                "privileged": False, "capabilities": {"drop": ["ALL"]}}
        for key, value in want.items():
            if sc.get(key) != value:
                problems.append(f"Deployment: container {c['name']}: {key} is not {value}")
        if c["name"] == "serve":
            check_serve_backend(c, role_namespaces, problems)


def check_replicas(doc, services, problems):
    """More than one replica is safe only when they share their sandboxes' and tenants' owner,
    and a client's MCP session stays on one replica (its calls in flight, log level and output
    cursors are that replica's; the session itself is shared through the owner)."""
    if doc["spec"].get("replicas", 1) <= 1:
        return
    pod = doc["spec"]["template"]
    for c in pod["spec"]["containers"]:
        if c["name"] != "serve":
            continue
        env = {e["name"]: e.get("value") for e in c.get("env", [])}
        if not env.get("AGENTBOX_KUBE_OWNER"):
            problems.append("Deployment: several replicas without one AGENTBOX_KUBE_OWNER: each "
                            "would see only its own sandboxes")
    labels = pod["metadata"]["labels"]
    selecting = [s for s in services
                 if s["spec"].get("selector") and
                 all(labels.get(k) == v for k, v in s["spec"]["selector"].items())]
    if not selecting:
        problems.append("Deployment: no Service selects serve's pods")
    for s in selecting:
        if s["spec"].get("sessionAffinity") != "ClientIP":
            problems.append(f"Service {s['metadata']['name']}: several serve replicas need "
                            "sessionAffinity ClientIP (an MCP session's calls in flight are "
                            "one replica's)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    root = ap.parse_args().root
    label = server_label(root)
    problems, docs, deployments, services, role_namespaces = [], 0, [], [], set()
    for path in sorted(glob.glob(os.path.join(root, "deploy/*.yaml"))):
        try:
            loaded = [d for d in yaml.safe_load_all(open(path)) if d is not None]
        except yaml.YAMLError as e:
            problems.append(f"{path}: not YAML: {e}".replace("\n", " "))
            continue
        for doc in loaded:
            docs += 1
            if not (doc.get("apiVersion") and doc.get("kind") and doc.get("metadata", {}).get("name")):
                problems.append(f"{path}: a document without apiVersion, kind or metadata.name")
                continue
            if doc["kind"] == "Role":
                check_role(doc, problems)
                role_namespaces.add(doc["metadata"].get("namespace"))
            if doc["kind"] == "Deployment":
                deployments.append(doc)
            if doc["kind"] == "Service":
                services.append(doc)
    for doc in deployments:
        check_serve(doc, label, role_namespaces, problems)
        check_replicas(doc, services, problems)
    for p in problems:
        print(p)
    print(f"deploy: {docs - len(problems) if docs >= len(problems) else 0} passed, "
          f"{len(problems)} failed ({docs} documents of deploy/)")
    return 1 if problems or docs == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
