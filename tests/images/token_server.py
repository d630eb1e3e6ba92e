#!/usr/bin/env python3
"""A tiny registry token server (the Docker registry token auth protocol), for tests only.

    token_server.py --cert FILE --key FILE --write-keys      # makes a self-signed RSA cert
    token_server.py --cert FILE --key FILE --port-file F --user U --password P [--service S]

Serves GET /token?service=S&scope=repository:NAME:pull,push on 127.0.0.1 (a port of the
kernel's choosing, written to --port-file). Basic credentials U:P get every action asked; no
credentials get a 401. Tokens are RS256 JWTs whose x5c header carries the certificate, which
the registry's rootcertbundle trusts. Needs python3-cryptography (Debian's).
"""
import argparse, base64, datetime, http.server, json, os, time, urllib.parse

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def write_keys(cert_path, key_path):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "agentbox-test-token")])
    now = datetime.datetime.utcnow()
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))


def make_token(key, cert_der, service, sub, access):
    header = {"typ": "JWT", "alg": "RS256", "x5c": [base64.b64encode(cert_der).decode()]}
    now = int(time.time())
    claims = {"iss": "agentbox-test", "sub": sub, "aud": service, "exp": now + 300,
              "nbf": now - 10, "iat": now, "jti": b64url(os.urandom(12)), "access": access}
    signing_input = (b64url(json.dumps(header).encode()) + "." +
                     b64url(json.dumps(claims).encode())).encode()
    sig = key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    return signing_input.decode() + "." + b64url(sig)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--write-keys", action="store_true")
    ap.add_argument("--port-file")
    ap.add_argument("--user", default="tester")
    ap.add_argument("--password", default="secret")
    ap.add_argument("--service", default="agentbox-test-registry")
    args = ap.parse_args()
    if args.write_keys:
        write_keys(args.cert, args.key)
        return
    with open(args.key, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    with open(args.cert, "rb") as f:
        cert_der = x509.load_pem_x509_certificate(f.read()).public_bytes(serialization.Encoding.DER)
    expected = "Basic " + base64.b64encode(f"{args.user}:{args.password}".encode()).decode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):
            url = urllib.parse.urlparse(self.path)
            if url.path != "/token":
                self.send_error(404)
                return
            if self.headers.get("Authorization") != expected:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="token"')
                self.end_headers()
                return
            q = urllib.parse.parse_qs(url.query)
            access = []
            for scope in q.get("scope", []):
                for one in scope.split(" "):
                    parts = one.split(":")
                    if len(parts) >= 3:
                        access.append({"type": parts[0], "name": ":".join(parts[1:-1]),
                                       "actions": parts[-1].split(",")})
            token = make_token(key, cert_der, q.get("service", [args.service])[0], args.user, access)
            body = json.dumps({"token": token, "access_token": token, "expires_in": 300}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(tmp, args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
