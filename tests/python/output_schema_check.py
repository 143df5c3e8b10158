"""Every tool's answers conform to the `outputSchema` it declares in `tools/list`.

    python output_schema_check.py http://127.0.0.1:PORT/mcp [DUMP_DIR]

Runs with the Python `mcp` SDK 1.x, whose `ClientSession.call_tool` itself validates
`structuredContent` against the declared `outputSchema` (a mismatch raises). On top of that each
answer is validated here with `jsonschema`'s Draft 2020-12 validator, so a failure names the
field. The calls reach every tool's success path with arguments discovered from the served
generation (ids, books, sections), plus the shapes that change an answer most: snippet modes,
empty results, paging, both graph directions, full texts, statutes and cases in one check.
Exits non-zero on the first tool without a schema, an answer that does not conform, or a tool
no call reached.
"""

import asyncio
import json
import os
import sys

from jsonschema import Draft202012Validator


def fail(what):
    print(f"FAIL: {what}", file=sys.stderr)
    sys.exit(1)


async def main(url, dump_dir):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write, _):
        async with ClientSession(read, write) as s:
            await s.initialize()
            tools, cursor = [], None
            while True:
                page = await s.list_tools(cursor=cursor) if cursor else await s.list_tools()
                tools.extend(page.tools)
                cursor = page.nextCursor
                if not cursor:
                    break
            validators = {}
            for t in tools:
                schema = t.outputSchema
                if not schema or schema.get("type") != "object":
                    fail(f"{t.name} declares no object outputSchema")
                Draft202012Validator.check_schema(schema)
                for branch in ("answer", "refusal"):
                    if branch not in schema.get("$defs", {}):
                        fail(f"{t.name}: the outputSchema has no $defs/{branch}")
                # Each branch alone, so an answer is checked as an answer and a refusal as a refusal.
                validators[t.name] = {
                    branch: Draft202012Validator({"$ref": f"#/$defs/{branch}", "$defs": schema["$defs"]})
                    for branch in ("answer", "refusal")
                }
            ok_calls = {name: 0 for name in validators}
            refusals = [0]
            answers = []

            async def call(name, args):
                # The SDK validates structuredContent against the outputSchema here (raises on a
                # mismatch); the explicit validation below names the failing field.
                r = await s.call_tool(name, args)
                sc = r.structuredContent
                if sc is None:
                    fail(f"{name} {args}: no structuredContent")
                answers.append({"tool": name, "arguments": args, "is_error": r.isError, "answer": sc})
                branch = "refusal" if r.isError else "answer"
                errors = sorted(validators[name][branch].iter_errors(sc), key=lambda e: list(e.absolute_path))
                if errors:
                    e = errors[0]
                    path = "/".join(str(p) for p in e.absolute_path)
                    fail(f"{name} ({branch}) {json.dumps(args, ensure_ascii=False)[:200]}: /{path}: {e.message[:300]}")
                if r.isError:
                    refusals[0] += 1
                    return None
                ok_calls[name] += 1
                return sc

            await calls(call)
            if dump_dir:
                os.makedirs(dump_dir, exist_ok=True)
                with open(os.path.join(dump_dir, "answers.json"), "w") as f:
                    json.dump(answers, f, ensure_ascii=False, indent=1)
            missing = [n for n, c in ok_calls.items() if c == 0]
            if missing:
                fail(f"no successful call reached: {missing}")
            if refusals[0] == 0:
                fail("no call was refused, so no refusal was checked against its schema")
            print(f"OK output schemas: {sum(ok_calls.values())} answers of {len(ok_calls)} tools and {refusals[0]} refusals conform")


async def calls(call):
    # OUTPUT_SCHEMA_BREADTH > 1 reaches more laws and decisions (for a large generation).
    many = int(os.environ.get("OUTPUT_SCHEMA_BREADTH", "1"))
    await call("get_platform_info", {})
    await call("whoami", {})
    # Refusals conform to the refusal branch, with a code the tool lists.
    await call("get_law_section", {"book": "KEINGESETZ", "section": "1"})
    await call("get_decision", {"id": "keine-solche-entscheidung"})
    await call("search_laws", {"query": "Notwehr", "limit": 999})
    await call("check_citations", {"text": "zu kurz"})
    books = await call("list_law_books", {"limit": 5 * many, "offset": 40 if many > 1 else 0})
    await call("list_law_books", {"prefix": "SGB", "limit": 3})
    await call("list_law_books", {"search": "keinsolchertitelxyz"})
    await call("search_laws", {"query": "Notwehr"})
    await call("search_laws", {"query": "Schadensersatz", "book": "BGB", "limit": 3})
    await call("search_laws", {"query": "§ 823 BGB"})
    await call("search_laws", {"query": "xyzzyqwertz"})
    await call("get_law_section", {"book": "BGB", "section": "§ 823"})
    await call("get_law_section", {"book": "GG", "section": "Art. 20", "offset": 10, "length": 50})
    await call("get_law", {"book": "BGB"})
    await call("get_law", {"book": "GG", "include": ["meta", "toc", "text"], "length": 2000})
    await call("get_law", {"book": "GG", "include": ["text"], "offset": 100, "length": 50})
    await call("get_law", {"book": "BGB", "include": ["toc"], "toc_offset": 10, "toc_limit": 5})
    for b in (books or {}).get("laws", [])[: 2 * many]:
        law = await call("get_law", {"book": b["code"], "include": ["meta", "toc"], "toc_limit": 20})
        for entry in (law or {}).get("toc", {}).get("entries", [])[: 3 * many]:
            await call("get_law_section", {"book": b["code"], "section": entry["section"]})

    page = await call("filter_cases", {"limit": min(100, 20 * many)})
    await call("filter_cases", {"court": "BVerwG", "date_from": "2010", "limit": 5, "offset": 2})
    await call("filter_cases", {"file_number": "keinaktenzeichen 1/99"})
    ids = [r["id"] for r in (page or {}).get("results", [])]
    if not ids:
        fail("filter_cases found no decision to call the decision tools with")
    await call("search_decisions", {"query": "Geschäftsgeheimnis"})
    await call("search_decisions", {"query": "Urteil", "sort": "date", "page": 2, "limit": 5})
    await call("search_decisions", {"query": "Klage", "sort": "most_cited", "court": "BVerwG"})
    await call("search_decisions", {"query": "§ 3 IFG"})
    await call("search_decisions", {"query": "xyzzyqwertz"})
    cited = await call("get_cases_for_law", {"book": "IFG", "section": "3"})
    await call("get_cases_for_law", {"book": "VwGO", "section": "§ 113 Abs. 1", "sort": "most_cited", "limit": 3})
    await call("get_cases_for_law", {"book": "BGB", "section": "1"})
    leading = [r["id"] for r in (cited or {}).get("results", [])]
    for d in ids[: 6 * many] + leading[:3]:
        dec = await call("get_decision", {"id": d})
        await call("get_decision", {"id": d, "offset": 5, "length": 300})
        sections = (dec or {}).get("available_sections") or []
        if sections:
            await call("get_decision", {"id": d, "section": sections[-1]["name"]})
        await call("get_decision", {"id": d, "rn_from": 1, "rn_to": 3})
        await call("get_case_references", {"id": d})
        await call("get_citing_cases", {"id": d})
        await call("get_citation_graph", {"id": d, "direction": "both", "depth": 2})
        await call("get_citation_graph", {"id": d, "direction": "outgoing", "max_nodes": 2})
        await call("get_similar_cases", {"id": d, "limit": 3})
    if dec and dec.get("decision", {}).get("ecli"):
        await call("get_decision", {"id": dec["decision"]["ecli"]})
    rows = (page or {}).get("results", [])
    aktenzeichen = next((r["aktenzeichen"] for r in rows if r.get("aktenzeichen")), None)
    ecli = next((r["ecli"] for r in rows if r.get("ecli")), None)
    for arg, ident in (("file_number", aktenzeichen), ("ecli", ecli)):
        if ident:
            await call("search_decisions", {"query": ident})
            await call("filter_cases", {arg: ident})
            await call("get_case_statistics", {"query": ident})
            await call("cross_type_search", {"query": ident})
    await call("list_courts", {})
    await call("list_courts", {"branch": "verwaltung", "include_empty": True, "limit": 5})
    await call("get_court", {"court": "BVerwG"})
    for field in ("court_name", "court_branch", "document_type", "year", "cited_norms"):
        await call("list_facets", {"field": field, "limit": 5})
    await call("list_facets", {"field": "cited_norms", "norm": "§ 3 IFG"})
    await call("cross_type_search", {"query": "Informationszugang", "book": "IFG"})
    await call("cross_type_search", {"query": "xyzzyqwertz"})
    await call("corpus_coverage", {})
    await call("corpus_coverage", {"branch": "verwaltung"})
    await call("get_case_statistics", {})
    await call("get_case_statistics", {"court": "BVerwG", "query": "Klage"})
    await call("get_case_statistics", {"cited_norm": "§ 3 IFG"})
    for q in ("Notwehr", "Kündigung Mietvertrag", "Datenschutz", "Versammlung")[:many]:
        await call("cross_type_search", {"query": q, "limit": 10})
        await call("search_decisions", {"query": q, "limit": 20})
    text = (
        "Der Kläger stützt seinen Anspruch auf § 823 Abs. 1 BGB und § 3 Nr. 1 IFG. Das "
        "Bundesverwaltungsgericht hat mit Urteil vom 29.10.2009 - 7 C 22.08 - entschieden, dass "
        "Art. 20 Abs. 3 GG gilt; vgl. auch § 99999 BGB, § 12 KeinG und BGH, Urteil vom 08.04.2009 - "
        "VIII ZR 231/07 -. Ferner § 47 BauO LSA."
    )
    await call("check_citations", {"text": text, "reference_date": "2020-01-01"})
    for c in ("§ 823 Abs. 1 BGB", "Art. 20 GG", "7 C 22.08", "§ 99999 BGB", ids[0]):
        await call("validate_citation", {"citation": c})
    await call("assemble_datapackage", {"ids": ids[:3]})
    await call("assemble_datapackage", {"ids": ids[:10], "full_text": True, "max_chars": 3000})
    await call("assemble_datapackage", {"ids": ids[:2], "include_citations": False})
    if leading:
        await call("assemble_datapackage", {"ids": leading[:3]})


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
