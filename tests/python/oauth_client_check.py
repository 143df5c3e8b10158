"""Real-client OAuth check: the Python `mcp` SDK 1.x's OAuth client against a `serve` that
requires a token for every tool and names a loopback issuer (`oauth_issuer.py`).

    python oauth_client_check.py http://127.0.0.1:PORT/mcp http://127.0.0.1:ISSUER_PORT

The client starts with no token: the server's 401 names the protected-resource metadata, from
which the SDK finds the issuer, registers, authorizes with PKCE asking for this server as the
resource (RFC 8707), exchanges the code, and retries. Exits non-zero on the first failed
expectation; never prints a token.
"""

import asyncio
import sys
from urllib.parse import parse_qs, urlparse

import httpx
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}", file=sys.stderr)
        sys.exit(1)


class MemoryStorage(TokenStorage):
    def __init__(self):
        self.tokens = None
        self.client = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


async def main(url, issuer):
    seen = {}

    async def redirect_handler(authorization_url):
        # The user's browser: the test issuer approves at once and redirects with a code.
        seen["authorize"] = {k: v[0] for k, v in parse_qs(urlparse(authorization_url).query).items()}
        async with httpx.AsyncClient() as c:
            r = await c.get(authorization_url, follow_redirects=False)
        check(r.status_code == 302, f"the issuer redirects back, got {r.status_code}: {r.text}")
        q = parse_qs(urlparse(r.headers["location"]).query)
        seen["code"], seen["state"] = q["code"][0], q["state"][0]

    async def callback_handler():
        return seen["code"], seen["state"]

    storage = MemoryStorage()
    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="legal-data OAuth check",
            redirect_uris=[AnyUrl("http://127.0.0.1:9/callback")],
            grant_types=["authorization_code"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    async with httpx.AsyncClient(auth=provider, timeout=30) as http:
        async with streamable_http_client(url, http_client=http) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                check(any(t.name == "whoami" for t in tools.tools), "tools/list after authorizing")
                who = await session.call_tool("whoami", {})
                sc = who.structuredContent
                check(not who.isError and sc["authenticated"] is True, f"whoami: {sc}")
                check(sc["auth_method"] == "oauth", f"auth_method oauth: {sc}")
                check(sc["oauth"]["subject"] == "alice", f"the token's subject: {sc}")
                check(set(sc["oauth"]["abilities"]) == {"search", "read", "graph", "datapackage", "citation-check"},
                      f"the scopes of the metadata map to every ability: {sc}")
                check(sc["rate_limit"]["bucket"] == "subject", f"a budget per subject: {sc}")
                found = await session.call_tool("search_laws", {"query": "Notwehr"})
                check(not found.isError, f"search_laws with the token: {found.structuredContent}")

    prm = provider.context.protected_resource_metadata
    check(prm is not None, "the SDK discovered the protected-resource metadata")
    check(str(prm.resource).rstrip("/") == url, f"its resource is the MCP endpoint: {prm.resource}")
    check(str(provider.context.auth_server_url).rstrip("/") == issuer, f"and it named the issuer: {provider.context.auth_server_url}")
    check(seen["authorize"].get("resource", "").rstrip("/") == url, f"the client asked for this server (RFC 8707): {seen['authorize']}")
    check("legal:search" in seen["authorize"].get("scope", ""), f"with the scopes the metadata lists: {seen['authorize']}")
    check(storage.tokens is not None, "a token was stored")
    print(f"OK oauth mcp 1.x: discovered {prm.resource} -> {provider.context.auth_server_url}, scopes {seen['authorize']['scope']}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1].rstrip("/"), sys.argv[2].rstrip("/")))
