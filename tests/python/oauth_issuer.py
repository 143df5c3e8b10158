"""A loopback OAuth 2.1 authorization server for the tests: the issuer `serve --oauth-issuer`
points at, as Keycloak or Authentik would be in a deployment.

    python oauth_issuer.py        # prints "issuer: http://127.0.0.1:PORT", serves until killed

It serves what a resource server and an MCP client use:
- RFC 8414 metadata at /.well-known/oauth-authorization-server, the JWKS at /jwks (one RSA key,
  kid "k1");
- dynamic client registration (RFC 7591) at /register;
- the authorization-code flow with PKCE (S256): /authorize approves at once and redirects with
  a code; /token exchanges it for a JWT access token whose `aud` is the `resource` the client
  asked for (RFC 8707) and whose `scope` is the one it asked for.

For the refusal cases, POST /mint {"aud", "scope", "exp_in", "key": "good"|"rogue", "kid",
"alg", "sub", "iss"} signs any token: "rogue" is a second RSA key the JWKS does not hold.
POST /rotate replaces the signing key (and its kid: k1, k2, …); the JWKS then holds only the new
one. GET /seen lists the paths requested so far.
"""

import base64
import hashlib
import json
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlparse

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

GOOD = rsa.generate_private_key(public_exponent=65537, key_size=2048)
KID = "k1"
ROGUE = rsa.generate_private_key(public_exponent=65537, key_size=2048)
CODES = {}
SEEN = []
LOCK = threading.Lock()


def b64url_uint(n):
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def jwks():
    pub = GOOD.public_key().public_numbers()
    return {"keys": [{"kty": "RSA", "kid": KID, "use": "sig", "alg": "RS256", "n": b64url_uint(pub.n), "e": b64url_uint(pub.e)}]}


def mint(issuer, aud, scope, exp_in=600, key="good", kid=None, alg="RS256", sub="alice", iss=None, client_id=None):
    kid = kid or KID
    now = int(time.time())
    claims = {"iss": iss or issuer, "sub": sub, "aud": aud, "iat": now, "nbf": now - 5, "exp": now + int(exp_in), "scope": scope}
    if client_id:
        claims["client_id"] = client_id
    if alg.startswith("HS"):
        return jwt.encode(claims, "a shared secret anyone could guess", algorithm=alg, headers={"kid": kid})
    signer = GOOD if key == "good" else ROGUE
    return jwt.encode(claims, signer, algorithm=alg, headers={"kid": kid})


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def issuer(self):
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def send_json(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        n = int(self.headers.get("content-length") or 0)
        return self.rfile.read(n).decode() if n else ""

    def do_GET(self):
        url = urlparse(self.path)
        with LOCK:
            SEEN.append(url.path)
        iss = self.issuer()
        if url.path == "/.well-known/oauth-authorization-server":
            return self.send_json(200, {
                "issuer": iss,
                "authorization_endpoint": f"{iss}/authorize",
                "token_endpoint": f"{iss}/token",
                "registration_endpoint": f"{iss}/register",
                "jwks_uri": f"{iss}/jwks",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none", "client_secret_post"],
            })
        if url.path == "/jwks":
            return self.send_json(200, jwks())
        if url.path == "/seen":
            with LOCK:
                return self.send_json(200, list(SEEN))
        if url.path == "/authorize":
            q = {k: v[0] for k, v in parse_qs(url.query).items()}
            if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
                return self.send_json(400, {"error": "invalid_request", "error_description": "PKCE S256 required"})
            code = secrets.token_urlsafe(16)
            with LOCK:
                CODES[code] = q
            target = q["redirect_uri"] + "?" + urlencode({"code": code, "state": q.get("state", "")})
            self.send_response(302)
            self.send_header("location", target)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        self.send_json(404, {"error": "not_found"})

    def do_POST(self):
        url = urlparse(self.path)
        with LOCK:
            SEEN.append(url.path)
        iss = self.issuer()
        if url.path == "/register":
            meta = json.loads(self.body() or "{}")
            meta["client_id"] = "client-" + secrets.token_hex(4)
            meta["client_id_issued_at"] = int(time.time())
            meta.setdefault("token_endpoint_auth_method", "none")
            return self.send_json(201, meta)
        if url.path == "/token":
            form = {k: v[0] for k, v in parse_qs(self.body()).items()}
            if form.get("grant_type") != "authorization_code":
                return self.send_json(400, {"error": "unsupported_grant_type"})
            with LOCK:
                asked = CODES.pop(form.get("code", ""), None)
            if asked is None:
                return self.send_json(400, {"error": "invalid_grant"})
            verifier = form.get("code_verifier", "")
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            if challenge != asked["code_challenge"]:
                return self.send_json(400, {"error": "invalid_grant", "error_description": "PKCE verifier mismatch"})
            resource = form.get("resource") or asked.get("resource")
            if not resource:
                return self.send_json(400, {"error": "invalid_target", "error_description": "no resource indicator"})
            scope = asked.get("scope", "")
            token = mint(iss, resource, scope, client_id=asked.get("client_id"))
            return self.send_json(200, {"access_token": token, "token_type": "Bearer", "expires_in": 600, "scope": scope})
        if url.path == "/rotate":
            global GOOD, KID
            with LOCK:
                GOOD = rsa.generate_private_key(public_exponent=65537, key_size=2048)
                KID = f"k{int(KID[1:]) + 1}"
            return self.send_json(200, {"kid": KID})
        if url.path == "/mint":
            a = json.loads(self.body() or "{}")
            aud = a.pop("aud")
            scope = a.pop("scope", "")
            return self.send_json(200, {"token": mint(iss, aud, scope, **a)})
        self.send_json(404, {"error": "not_found"})


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    host, port = server.server_address[:2]
    print(f"issuer: http://{host}:{port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
