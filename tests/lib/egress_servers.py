"""Test servers for the egress cases, on the host's loopback only: an HTTP server, an HTTPS one
(a self-signed certificate for index.test, made with openssl), and a hold server that accepts and
keeps connections (for floods). Also serves a PEP 503 "simple" index with one wheel it builds,
so pip can install through the proxy. Writes "http https hold" ports to READY, then serves.

Usage: egress_servers.py DIR READY
"""
import base64, hashlib, http.server, io, os, socket, ssl, subprocess, sys, threading, zipfile

root, ready = sys.argv[1], sys.argv[2]
os.makedirs(os.path.join(root, "www", "simple", "abdemo"), exist_ok=True)
with open(os.path.join(root, "www", "hello.txt"), "w") as f:
    f.write("hello through the proxy\n")
with open(os.path.join(root, "www", "big.bin"), "wb") as f:
    f.write(b"x" * (4 * 1024 * 1024))


def build_wheel():
    name = "abdemo-1.0-py3-none-any.whl"
    files = {"abdemo/__init__.py": b"VALUE = 42\n",
             "abdemo-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: abdemo\nVersion: 1.0\n",
             "abdemo-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = ""
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record += f"{path},sha256={digest},{len(data)}\n"
    record += "abdemo-1.0.dist-info/RECORD,,\n"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for path, data in files.items():
            z.writestr(path, data)
        z.writestr("abdemo-1.0.dist-info/RECORD", record)
    with open(os.path.join(root, "www", "simple", "abdemo", name), "wb") as f:
        f.write(buf.getvalue())
    with open(os.path.join(root, "www", "simple", "abdemo", "index.html"), "w") as f:
        f.write(f'<html><body><a href="{name}">{name}</a></body></html>\n')


build_wheel()
cert, key = os.path.join(root, "cert.pem"), os.path.join(root, "key.pem")
subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                "-subj", "/CN=index.test", "-addext", "subjectAltName=DNS:index.test",
                "-keyout", key, "-out", cert], check=True, capture_output=True)


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **kw):
        super().__init__(*a, directory=os.path.join(root, "www"), **kw)

    def log_message(self, *a):
        pass


def serve(server):
    threading.Thread(target=server.serve_forever, daemon=True).start()


http_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
https_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
https_server.socket = ctx.wrap_socket(https_server.socket, server_side=True)
hold = socket.socket()
hold.bind(("127.0.0.1", 0))
hold.listen(512)
held = []


def hold_forever():
    while True:
        c, _ = hold.accept()
        held.append(c)


serve(http_server)
serve(https_server)
threading.Thread(target=hold_forever, daemon=True).start()
with open(ready + ".tmp", "w") as f:
    f.write(f"{http_server.server_port} {https_server.server_port} {hold.getsockname()[1]}\n")
os.rename(ready + ".tmp", ready)
threading.Event().wait(300)
