// Real-client check: the TypeScript MCP clients against a running `serve`.
//   node ts_client_check.mjs URL sdk1            @modelcontextprotocol/sdk 1.x (initialize, 2025-11-25)
//   node ts_client_check.mjs URL v2 auto|modern|legacy
//                                                @modelcontextprotocol/client 2.x with versionNegotiation
//                                                auto (probes server/discover), {pin: 2026-07-28}, legacy
// Exits non-zero with a message on the first failed expectation; prints "OK …" at the end.
const [url, kind, mode] = process.argv.slice(2);

function check(cond, what) {
  if (!cond) {
    console.error(`FAIL: ${what}`);
    process.exit(1);
  }
}

async function connect() {
  if (kind === "sdk1") {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const client = new Client({ name: "ts-sdk1-check", version: "0.0.1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return { client, expected: "2025-11-25" };
  }
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const negotiation = { auto: { mode: "auto" }, modern: { mode: { pin: "2026-07-28" } }, legacy: { mode: "legacy" } }[mode];
  check(negotiation, `unknown mode ${mode}`);
  const client = new Client({ name: "ts-v2-check", version: "0.0.1" }, { versionNegotiation: negotiation });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, expected: mode === "legacy" ? "2025-11-25" : "2026-07-28" };
}

const { client, expected } = await connect();
const negotiated = client.getNegotiatedProtocolVersion?.() ?? client.transport?.protocolVersion;
if (kind !== "sdk1") check(negotiated === expected, `negotiated ${expected}, got ${negotiated}`);

// Every page of tools.
let tools = [];
let cursor;
do {
  const page = await client.listTools(cursor ? { cursor } : {});
  tools = tools.concat(page.tools);
  cursor = page.nextCursor;
} while (cursor);
const names = new Set(tools.map((t) => t.name));
for (const n of ["search_laws", "get_law_section", "search_decisions", "get_decision", "check_citations", "corpus_coverage"]) {
  check(names.has(n), `tools/list has ${n}`);
}
for (const t of tools) check(t.annotations?.readOnlyHint === true, `${t.name} is readOnlyHint`);

// A statute section, verbatim, and a refusal as an isError result.
const r = await client.callTool({ name: "get_law_section", arguments: { book: "BGB", section: "823" } });
check(!r.isError, `get_law_section ok: ${JSON.stringify(r.structuredContent).slice(0, 200)}`);
check(r.structuredContent.section.label === "§ 823", "exactly § 823");
check(r.structuredContent.content.startsWith("(1) Wer vorsätzlich oder fahrlässig"), "§ 823 text");
check(JSON.parse(r.content[0].text).section.label === "§ 823", "text block carries the same JSON");
const bad = await client.callTool({ name: "get_law_section", arguments: { book: "KEINGESETZ", section: "1" } });
check(bad.isError === true && bad.structuredContent.error_code === "book_not_found", "a refusal is an isError result with error_code");
check(typeof bad.structuredContent.hint === "string" && typeof bad.structuredContent.retryable === "boolean", "refusal has hint and retryable");

// The guard over MCP: a § citation verifies.
const g = await client.callTool({
  name: "check_citations",
  arguments: { text: "Der Anspruch folgt aus § 823 Abs. 1 BGB; das Urteil des Gerichts ist nach § 280 Abs. 1 BGB zu beurteilen." },
});
check(!g.isError, `check_citations ok: ${JSON.stringify(g.structuredContent).slice(0, 200)}`);
check(g.structuredContent.findings.some((f) => f.verdict === "verified_corpus"), "§ 823 Abs. 1 BGB verifies");
await client.close();
console.log(`OK ${kind}${mode ? " " + mode : ""}: ${negotiated ?? "legacy"}, ${tools.length} tools`);
