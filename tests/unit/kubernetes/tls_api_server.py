#!/usr/bin/env python3
"""tls_api_server.py DIR: a mutual-TLS HTTPS server for kubernetes/api_client_tls_test.cc.

Makes a CA, a server certificate for 127.0.0.1 and a client certificate (CN agentbox-test) in
DIR with openssl, listens on 127.0.0.1 at a free port, prints the port, and answers up to three
connections (10 s each at most) with {"kind":"Pod","client":CN of the client's certificate}:
a client without a certificate signed by the CA fails the handshake. Then it exits.
"""
import http.server
import json
import os
import ssl
import subprocess
import sys


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def make_certs(d):
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test-ca",
            "-keyout", f"{d}/ca-key.pem", "-out", f"{d}/ca.pem")
    with open(f"{d}/san.ext", "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    for name, ext in (("server", ["-extfile", f"{d}/san.ext"]), ("client", [])):
        cn = "127.0.0.1" if name == "server" else "agentbox-test"
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={cn}",
                "-keyout", f"{d}/{name}-key.pem", "-out", f"{d}/{name}.csr")
        openssl("x509", "-req", "-in", f"{d}/{name}.csr", "-CA", f"{d}/ca.pem",
                "-CAkey", f"{d}/ca-key.pem", "-CAcreateserial", "-days", "2",
                "-out", f"{d}/{name}.pem", *ext)


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        cert = self.connection.getpeercert()
        cn = dict(x[0] for x in cert["subject"])["commonName"]
        body = json.dumps({"kind": "Pod", "client": cn}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    d = sys.argv[1]
    make_certs(d)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(f"{d}/server.pem", f"{d}/server-key.pem")
    ctx.load_verify_locations(f"{d}/ca.pem")
    ctx.verify_mode = ssl.CERT_REQUIRED
    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    server.socket = ctx.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=True)
    server.timeout = 10
    print(server.server_address[1], flush=True)
    for _ in range(3):
        server.handle_request()
    os.close(1)


if __name__ == "__main__":
    main()
