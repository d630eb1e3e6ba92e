"""A throwaway CA and a server certificate for 127.0.0.1 and localhost, made with openssl(1)."""
import base64
import os
import subprocess


def make(dir_):
    """Writes ca.crt, server.crt and server.key into dir_; returns their paths."""
    ca_key, ca, key, csr, crt = (os.path.join(dir_, n) for n in
                                 ("ca.key", "ca.crt", "server.key", "server.csr", "server.crt"))
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run = lambda *a: subprocess.run(["openssl", *a], check=True, capture_output=True)
    run("req", "-x509", *ec, "-keyout", ca_key, "-out", ca, "-days", "2", "-subj", "/CN=agentbox-fake-ca",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    run("req", "-new", *ec, "-keyout", key, "-out", csr, "-subj", "/CN=agentbox-fake-apiserver")
    ext = os.path.join(dir_, "server.ext")
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
                "keyUsage=critical,digitalSignature,keyEncipherment\nbasicConstraints=CA:FALSE\n")
    run("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-days", "2",
        "-out", crt, "-extfile", ext)
    return ca, crt, key


def kubeconfig(path, url, ca_path, token, namespace):
    """A kubeconfig with one cluster, user and context (YAML, as kubectl writes them)."""

    with open(ca_path, "rb") as f:
        ca_data = base64.b64encode(f.read()).decode()
    text = f"""apiVersion: v1
kind: Config
clusters:
- name: agentbox-fake
  cluster:
    server: {url}
    certificate-authority-data: {ca_data}
users:
- name: agentbox-fake-user
  user:
    token: {token}
contexts:
- name: agentbox-fake
  context:
    cluster: agentbox-fake
    user: agentbox-fake-user
    namespace: {namespace}
current-context: agentbox-fake
preferences: {{}}
"""
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o600)
