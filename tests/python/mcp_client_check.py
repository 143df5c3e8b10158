"""Real-client check: the Python `mcp` SDK (1.x or 2.x, whichever this venv has) against a
running `serve`. Exits non-zero with a message on the first failed expectation.

    python mcp_client_check.py http://127.0.0.1:PORT/mcp [MODE]

MODE (SDK 2.x only): `auto` (default: probes `server/discover`, so a dual-era server is spoken
to in 2026-07-28), `legacy` (the `initialize` handshake) or a modern version (`2026-07-28`,
adopted without a probe). The negotiated version must be the one the mode implies.
"""

import asyncio
import json
import sys
from importlib.metadata import version

SDK_MAJOR = int(version("mcp").split(".")[0])


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}", file=sys.stderr)
        sys.exit(1)


def fields(result):
    """(is_error, structured) for a CallToolResult of either SDK."""
    is_error = getattr(result, "is_error", None)
    if is_error is None:
        is_error = getattr(result, "isError", False)
    sc = getattr(result, "structured_content", None)
    if sc is None:
        sc = getattr(result, "structuredContent", None)
    text = result.content[0].text
    check(json.loads(text) == sc, "content[0].text carries the same JSON as structuredContent")
    return bool(is_error), sc


async def scenario(call, list_tools_page, protocol_version, expected_version):
    check(protocol_version == expected_version, f"negotiated {expected_version}, got {protocol_version}")

    # tools/list, following cursors.
    tools, cursor = [], None
    while True:
        page, cursor = await list_tools_page(cursor)
        tools.extend(page)
        if not cursor:
            break
    names = {t.name for t in tools}
    for n in ("search_laws", "get_law_section", "get_law", "list_law_books", "get_platform_info", "search_decisions", "get_decision", "filter_cases", "list_courts", "get_court", "list_facets", "cross_type_search", "get_similar_cases", "get_case_references", "get_citing_cases", "get_citation_graph", "get_cases_for_law", "corpus_coverage", "check_citations", "validate_citation", "assemble_datapackage", "get_case_statistics"):
        check(n in names, f"tools/list has {n}")
    for t in tools:
        check(t.title, f"{t.name} has a title")
        ann = t.annotations
        ro = getattr(ann, "read_only_hint", None)
        if ro is None:
            ro = getattr(ann, "readOnlyHint", None)
        check(ro is True, f"{t.name} is readOnlyHint")

    def envelope(sc, what):
        check(sc.get("api_version"), f"{what}: api_version in envelope")
        check(sc.get("generation") and sc["generation"].get("id"), f"{what}: generation id in envelope")

    # § headings are searchable: Notwehr → § 32 StGB.
    err, sc = fields(await call("search_laws", {"query": "Notwehr", "book": "StGB"}))
    check(not err, "search_laws ok")
    envelope(sc, "search_laws")
    first = sc["results"][0]
    check(first["label"] == "§ 32" and first["law"]["code"] == "StGB", f"Notwehr finds § 32 StGB first, got {first['label']} {first['law']['code']}")
    check(first["heading"] == "Notwehr", "§ 32 StGB heading is Notwehr")
    check(all(r["law"]["code"] == "StGB" for r in sc["results"]), "book filter keeps StGB only")

    # Without a filter, still laws only, and Notwehr is found.
    err, sc = fields(await call("search_laws", {"query": "Notwehr"}))
    check(not err and any(r["label"] == "§ 32" for r in sc["results"]), "unfiltered search finds § 32")

    err, sc = fields(await call("get_law_section", {"book": "BGB", "section": "§ 823"}))
    check(not err, "get_law_section BGB § 823 ok")
    envelope(sc, "get_law_section")
    check(sc["section"]["label"] == "§ 823", f"exactly § 823, got {sc['section']['label']}")
    check("Schadensersatzpflicht" in (sc["section"]["heading"] or ""), "§ 823 heading is Schadensersatzpflicht")
    check(sc["content"].startswith("(1) Wer vorsätzlich oder fahrlässig"), "§ 823 text")
    for spelling in ("823", "§823"):
        err, sc2 = fields(await call("get_law_section", {"book": "BGB", "section": spelling}))
        check(not err and sc2["section"]["label"] == "§ 823", f"{spelling!r} is § 823")

    for spelling in ("Art. 20", "Art 20", "Artikel 20", "20"):
        err, sc = fields(await call("get_law_section", {"book": "GG", "section": spelling}))
        check(not err, f"GG {spelling} ok")
        check("demokratischer und sozialer Bundesstaat" in sc["content"], f"Art. 20 GG text via {spelling!r}")

    err, sc = fields(await call("get_law_section", {"book": "AO", "section": "§ 1"}))
    check(not err and "Abgabenordnung" in sc["law"]["title"], "AO § 1 is in the Abgabenordnung")
    for code, slug in (("UStG", "ustg_1980"), ("BauGB", "bbaug"), ("AsylG", "asylvfg_1992"), ("WEG", "woeigg"), ("EGBGB", "bgbeg"), ("SGB X", "sgb_10"), ("SGB 10", "sgb_10")):
        err, sc = fields(await call("get_law", {"book": code, "include": ["meta"]}))
        check(not err and sc["law"]["slug"] == slug, f"{code} finds {slug}")

    # Snippet walk over a long section reassembles exactly the full text.
    err, full = fields(await call("get_law_section", {"book": "AO", "section": "139b"}))
    check(not err and len(full["content"]) > 5000, "AO § 139b is long")
    parts, offset, steps = [], 0, 0
    while True:
        err, sc = fields(await call("get_law_section", {"book": "AO", "section": "139b", "offset": offset, "length": 997}))
        check(not err, "snippet call ok")
        snip = sc["snippet"]
        check("content" not in sc, "snippet mode omits content")
        check(snip["total_length"] == full["total_length"], "total_length stable")
        parts.append(snip["text"])
        steps += 1
        if not snip["has_more"]:
            check(snip["next_offset"] is None, "next_offset null at the end")
            break
        offset = snip["next_offset"]
    check("".join(parts) == full["content"], "snippet walk reassembles the full text")
    check(steps == -(-full["total_length"] // 997), "walk took ceil(total/length) calls")

    # Bad arguments are isError results with the refusal fields.
    for args, code in (
        ({"book": "BGB", "section": "§ 99999"}, "section_not_found"),
        ({"book": "NOSUCHLAWG", "section": "1"}, "book_not_found"),
        ({"book": "BGB", "section": "823", "offset": -1}, "invalid_argument"),
        ({"book": "BGB", "section": "823", "offset": 10**7, "length": 5}, "offset_out_of_range"),
        ({"book": "BGB"}, "invalid_argument"),
    ):
        err, sc = fields(await call("get_law_section", args))
        check(err, f"{args} is an error")
        check(sc["error_code"] == code, f"{args}: error_code {code}, got {sc.get('error_code')}")
        for k in ("message", "retryable", "hint"):
            check(k in sc, f"{args}: refusal has {k}")
        envelope(sc, f"refusal {code}")
    err, sc = fields(await call("get_law_section", {"book": "BGB", "section": "§ 99999"}))
    check("§ 1" in sc["hint"], "section miss hint shows how BGB labels its sections")
    err, sc = fields(await call("search_laws", {"query": "Notwehr", "limit": "many"}))
    check(err and sc["error_code"] == "invalid_argument", "limit=many refused")
    err, sc = fields(await call("search_laws", {"query": "Notwehr", "bogus": 1}))
    check(not err and sc.get("ignored_parameters") == ["bogus"], "undeclared argument is named in ignored_parameters")

    err, sc = fields(await call("get_platform_info", {}))
    check(not err and sc["statutes"]["laws"] >= 20, "platform info counts laws")
    check(sc["decisions"]["decisions"] > 0, "platform info counts decisions")

    await decisions(call, envelope)
    await citation_guard(call)
    print(f"OK mcp {version('mcp')}: {len(tools)} tools, snippet walk {steps} steps")


async def citation_guard(call):
    """check_citations over one paragraph: verdicts in order, offsets into the exact input."""
    text = (
        "Der Senat verweist auf BGH, Beschluss vom 09.04.2018 - VI ZR 194/17 - und auf "
        "BGH, Beschluss vom 09.04.2018 - VI ZR 195/17. Der Anspruch folgt aus § 823 Abs. 1 BGB, "
        "nicht aus § 823 Abs. 9 BGB; § 47 BauO LSA ist hier ohne Belang."
    )
    err, sc = fields(await call("check_citations", {"text": text}))
    check(not err, f"check_citations ok: {sc.get('error_code')} {sc.get('message')}")
    got = [(f["raw_text"], f["verdict"]) for f in sc["findings"]]
    verdicts = [v for _, v in got]
    check(len(verdicts) == 5, f"five findings: {got}")
    check(verdicts[0] == "verified_corpus", f"the real BGH citation verifies: {got[0]}")
    # Not held: not_found only inside a window measured exhaustive, out_of_coverage (saying why) elsewhere.
    check(verdicts[1] in ("not_found", "discrepancy", "out_of_coverage"), f"a wrong file number is not verified: {got[1]}")
    if verdicts[1] == "out_of_coverage":
        check(sc["findings"][1].get("coverage_boundary"), f"out_of_coverage says why: {sc['findings'][1]}")
    check(verdicts[2] == "verified_corpus", f"§ 823 Abs. 1 BGB verifies: {got[2]}")
    check(verdicts[3] == "discrepancy" and sc["findings"][3]["reason"] == "absatz_absent_in_current_text", f"§ 823 Abs. 9 BGB: Absatz absent: {got[3]}")
    last = sc["findings"][4]
    check(last["verdict"] == "not_found" and last["coverage"]["status"] == "out_of_scope" and last["coverage"]["scope"] == "no_state_law", f"Land law is out of scope: {last}")
    for f in sc["findings"]:
        check(text[f["start"]:f["end"]] == f["raw_text"], f"offsets are code points of the input: {f['raw_text']!r}")
    check(sum(sc["verdict_counts"].values()) == 5, "verdict_counts count the findings")
    # Refusals: too short, too long, not legal text.
    for t, code in (("§ 823 BGB", "text_too_short"), ("x" * 20001, "text_too_long"), ("Heute scheint die Sonne über den Feldern, und die Vögel singen im Garten.", "not_german_legal_text")):
        err, sc = fields(await call("check_citations", {"text": t}))
        check(err and sc["error_code"] == code, f"{code} refused, got {sc.get('error_code')}")
    err, sc = fields(await call("validate_citation", {"citation": "§ 823 BGB"}))
    check(not err and sc["found"] is True, "validate_citation § 823 BGB")
    err, sc = fields(await call("validate_citation", {"citation": "§ 32 StGB"}))
    check(not err and sc["found"] is True and sc["finding"]["citation_key"].startswith("§ 32 "), "validate_citation § 32 StGB is § 32, never § 132")
    err, sc = fields(await call("validate_citation", {"citation": "VI ZR 194/17"}))
    check(not err and sc["found"] is True, "validate_citation finds an Aktenzeichen")
    err, sc = fields(await call("validate_citation", {"citation": "%%% no citation %%%"}))
    check(not err and sc["found"] is False, "garbage is answered found: false")


async def decisions(call, envelope):
    """Court decisions: the joined BVerfG proceeding, shared Aktenzeichen, IFG search, sections."""
    bverfg = "ECLI:DE:BVerfG:2018:qs20180822.2bvq005318"
    ids = set()
    for ident in ("2 BvQ 53/18", "2 BvQ 61/18", bverfg):
        err, sc = fields(await call("get_decision", {"id": ident}))
        check(not err, f"get_decision {ident} ok: {sc.get('error_code')}")
        envelope(sc, "get_decision")
        d = sc["decision"]
        check(len(d["file_numbers"]) == 17 and "2 BvQ 70/18" in d["file_numbers"], f"{ident}: all 17 file numbers")
        check(d["court"]["name"] == "Bundesverfassungsgericht", f"{ident}: court is the BVerfG")
        ids.add(d["id"])
    check(len(ids) == 1, f"all three identifiers name one decision, got {ids}")
    did = ids.pop()
    names = [s["name"] for s in sc["available_sections"]]
    check("Tenor" in names and "Gründe" in names, f"available_sections lists Tenor and Gründe, got {names}")
    full = sc["content"]
    err, sc = fields(await call("get_decision", {"id": did, "section": "Tenor"}))
    check(not err and "Anträge auf Erlass einstweiliger Anordnungen werden abgelehnt" in sc["section"]["text"], "Tenor text")
    err, sc = fields(await call("search_decisions", {"query": "2 BvQ 53/18"}))
    check(not err and sc["mode"] == "exact_file_number" and sc["results"][0]["id"] == did, "search_decisions finds it by Aktenzeichen, exactly")
    err, sc = fields(await call("search_decisions", {"query": "Wählbarkeit CSU Wahlprüfungsbeschwerde"}))
    check(not err and any(r["id"] == did for r in sc["results"]), "search_decisions finds it by words")
    # Snippet walk over the decision reassembles exactly the full text.
    parts, offset = [], 0
    while True:
        err, sc = fields(await call("get_decision", {"id": did, "offset": offset, "length": 1500}))
        check(not err, "decision snippet ok")
        parts.append(sc["snippet"]["text"])
        if not sc["snippet"]["has_more"]:
            break
        offset = sc["snippet"]["next_offset"]
    check("".join(parts) == full, "decision snippet walk reassembles the full text")

    # One Aktenzeichen, two BVerwG decisions of different dates.
    err, sc = fields(await call("get_decision", {"id": "20 F 1.10"}))
    check(err and sc["error_code"] == "decision_ambiguous", "20 F 1.10 is ambiguous")
    dates = sorted(c["date"] for c in sc["candidates"])
    check(len(dates) == 2 and dates[0] != dates[1], f"two candidates with different dates: {dates}")
    err, sc = fields(await call("get_decision", {"id": "20 F 1.10", "date": dates[1]}))
    check(not err and sc["decision"]["date"] == dates[1], "a date picks one")

    err, sc = fields(await call("search_decisions", {"query": "Informationsfreiheitsgesetz Betriebs- und Geschäftsgeheimnis", "court": "BVerwG"}))
    check(not err and sc["total"] > 0, "IFG search under BVerwG finds decisions")
    check(all(r["court"]["name"] == "Bundesverwaltungsgericht" for r in sc["results"]), "court filter keeps BVerwG only")
    check(sc["filters_applied"]["court"]["given"] == "BVerwG", "filters_applied echoes the court")
    check(any(r["snippets"] and r["snippets"][0]["randnummer"] for r in sc["results"]), "snippets carry their Randnummer")

    err, sc = fields(await call("search_decisions", {"query": "§ 6 IFG", "court": "BVerwG"}))
    check(not err and sc["mode"] == "exact_citation" and sc["total"] > 0, f"a § citation runs in exact citation mode: {sc.get('mode')} {sc.get('total')}")

    err, sc = fields(await call("search_laws", {"query": "Geschäftsgeheimnis Informationsfreiheitsgesetz"}))
    check(not err and all("law" in r for r in sc["results"]), "search_laws returns laws only")
    err, sc = fields(await call("cross_type_search", {"query": "Informationsfreiheit", "court": "BVerwG"}))
    check(not err and sc["laws"]["results"] and sc["decisions"]["results"], "cross_type_search returns both sections")

    err, sc = fields(await call("search_decisions", {"query": "Geheimnis", "court": "Amtsgericht Nirgendwo"}))
    check(not err and sc["total"] == 0 and sc["filter_vocabulary"]["court"]["status"] == "unmatched", "an unknown court is reported in filter_vocabulary")
    for args, code in (({"id": "99 ZZ 1/99"}, "decision_not_found"), ({"id": did, "section": "Nachwort"}, "section_not_in_decision"), ({"id": did, "offset": 10**8, "length": 3}, "offset_out_of_range")):
        err, sc = fields(await call("get_decision", args))
        check(err and sc["error_code"] == code, f"{args}: {code}, got {sc.get('error_code')}")
    err, sc = fields(await call("search_decisions", {"query": "Recht", "page": 11}))
    check(err and sc["error_code"] == "invalid_argument", "page 11 is refused")
    err, sc = fields(await call("list_courts", {"branch": "verwaltung"}))
    check(not err and any(c["name"] == "Bundesverwaltungsgericht" and c["decisions_held"] > 0 for c in sc["results"]), "list_courts counts BVerwG decisions")
    err, sc = fields(await call("list_facets", {"field": "document_type"}))
    check(not err and sc["values"], "list_facets document_type")
    err, sc = fields(await call("get_similar_cases", {"id": "7 C 12.13"}))
    check(not err and sc["results"], "get_similar_cases returns decisions")

    # Citations: references with statuses, the graph, decisions for a law, coverage.
    err, sc = fields(await call("get_case_references", {"id": "7 C 12.13"}))
    check(not err and sc["laws"] and sc["cases"], "get_case_references lists laws and cases")
    check(any(l["canonical"].endswith(" IFG") and l["status"] == "bound" for l in sc["laws"]), "an IFG citation is bound to the law")
    for c in sc["cases"]:
        check(c["status"] in ("resolved", "unresolved_ambiguous", "unresolved_no_match", "unresolved_out_of_coverage", "unresolved_pending"), f"closed status set: {c['status']}")
        check((c["status"] == "resolved") == (c["target_id"] is not None), "a target exactly when resolved")
    root = sc["decision"]["id"]
    err, sc = fields(await call("get_citation_graph", {"id": root, "direction": "both", "depth": 2, "max_nodes": 5}))
    check(not err and sc["returned_nodes"] <= 5 and sc["total_nodes"] >= sc["returned_nodes"], "graph respects the node cap and keeps the total")
    check(sc["capped"] == (sc["total_nodes"] > 5), "capped says whether the cap was hit")
    check(len({n["id"] for n in sc["nodes"]}) == len(sc["nodes"]) and all(n["id"] != root for n in sc["nodes"]), "one node per distinct decision, root excluded")
    err, sc = fields(await call("get_cases_for_law", {"book": "IFG", "section": "6", "sort": "most_cited"}))
    check(not err and sc["total"] > 0, "decisions cite § 6 IFG")
    counts = [r["citing_cases_count"] for r in sc["results"]]
    check(counts == sorted(counts, reverse=True), "most_cited sorts by citing_cases_count")
    err, fam = fields(await call("list_facets", {"field": "cited_norms", "norm": "§ 6 IFG"}))
    check(not err and fam["values"] and all(v["value"].startswith("§ 6") and v["value"].endswith(" IFG") for v in fam["values"]), "the family of § 6 IFG")
    err, whole = fields(await call("search_decisions", {"query": "Informationszugang"}))
    err2, narrowed = fields(await call("search_decisions", {"query": "Informationszugang", "cited_norm": "§6 IFG"}))
    check(not err and not err2 and 0 < narrowed["total"] <= whole["total"], "cited_norm narrows the search")
    check(narrowed["filters_applied"]["cited_norm"]["canonical"] == "§ 6 IFG", "cited_norm is canonicalised")
    err, sc = fields(await call("corpus_coverage", {}))
    check(not err and any(b["bucket"] == "statutes-federal" for b in sc["buckets"]) and sc["held_by_court"], "corpus_coverage: buckets and holdings")
    err, sc = fields(await call("cross_type_search", {"query": "Informationszugang Geschäftsgeheimnis"}))
    check(not err and "frequently_cited_by_results" in sc and sc["norms_cited_by_decision_results"], "cross_type_search says what the results cite")
    await statistics_and_packages(call, envelope, did, bverfg)


async def statistics_and_packages(call, envelope, did, bverfg):
    """get_case_statistics (counts add up, filters narrow, same matching as search_decisions) and
    assemble_datapackage (excerpts, edges, the fixed shed order under a tiny budget, refusals)."""
    err, st = fields(await call("get_case_statistics", {}))
    check(not err, f"get_case_statistics ok: {st.get('error_code')}")
    envelope(st, "get_case_statistics")
    total = st["total"]
    check(total > 0 and st["total_basis"] == "decisions_held_matching_every_filter", f"statistics total is labelled: {st.get('total_basis')}")
    for k in ("by_court", "by_year", "by_branch", "by_document_type"):
        check(sum(r["decisions"] for r in st[k]) == total, f"{k} sums to the total {total}")
    undated = sum(r["decisions"] for r in st["by_year"] if r["year"] is None)
    check(st["unrecorded"]["year"] == undated, "undated decisions are counted under year null and said so")
    err, nar = fields(await call("get_case_statistics", {"court": "BVerwG"}))
    check(not err and 0 < nar["total"] < total, f"a court filter narrows: {nar.get('total')} of {total}")
    check([r["court"] for r in nar["by_court"]] == ["Bundesverwaltungsgericht"], "the court filter keeps BVerwG only")
    check(nar["filters_applied"]["court"]["given"] == "BVerwG", "filters_applied echoes the court")
    args = {"query": "Informationsfreiheitsgesetz", "court": "BVerwG", "date_from": "2010"}
    err, q = fields(await call("get_case_statistics", args))
    err2, s = fields(await call("search_decisions", args))
    check(not err and not err2 and q["total"] == s["total"] > 0 and q["total_basis"] == s["total_basis"], f"statistics match search_decisions: {q.get('total')} vs {s.get('total')}")
    check(all(r["year"] is not None and r["year"] >= "2010" for r in q["by_year"]), "date_from applies to the counts")
    err, sc = fields(await call("get_case_statistics", {"branch": "kosmisch"}))
    check(err and sc["error_code"] == "invalid_argument", "an unknown branch is refused")

    # A package: duplicates collapse, one text key per decision, edges accounted for.
    err, dp = fields(await call("assemble_datapackage", {"ids": ["7 C 12.13", did, bverfg]}))
    check(not err, f"assemble_datapackage ok: {dp.get('error_code')} {dp.get('message')}")
    envelope(dp, "assemble_datapackage")
    check((dp["requested"], dp["deduped"], dp["included"]) == (3, 1, 2), f"requested/deduped/included: {dp['requested']} {dp['deduped']} {dp['included']}")
    check(dp["payload_truncated"] is False and dp["truncation"] is None, "the default budget holds two excerpts")
    ifg = dp["decisions"][0]["id"]
    for d in dp["decisions"]:
        keys = [k for k in ("excerpt", "full_text", "full_text_excerpt") if k in d]
        check(keys == ["excerpt"], f"exactly one text key: {keys}")
        ex = d["excerpt"]
        check(ex["total_length"] == d["text_length"] and ex["has_more"] == (ex["offset"] + ex["length"] < d["text_length"]), "excerpt says total_length and has_more")
        check(d["fortgeltung_checked"] is False and d["excerpt_span"], "fortgeltung_checked false; excerpt_span named")
        err, gd = fields(await call("get_decision", {"id": d["id"], "offset": ex["offset"], "length": ex["length"]}))
        check(not err and gd["snippet"]["text"] == ex["text"], "the excerpt is get_decision's text at its offsets")
    ea = dp["edge_accounting"]
    check(ea["total"] == ea["included"] + ea["dropped"] and ea["included"] == len(dp["citation_edges"]), f"edge_accounting adds up: {ea['total']} {ea['included']} {ea['dropped']}")
    check(dp["citation_edges"] and all(e["in_corpus"] == (e["target_id"] is not None) for e in dp["citation_edges"]), "edges: a target exactly when in the corpus")
    for row in ea["per_source"]:
        check(row["edges_total"] == row["edges_resolved_total"] + row["edges_unresolved_total"] and sum(row["unresolved_by_status"].values()) == row["edges_unresolved_total"], "per-source edge counts add up")

    # A tiny budget sheds in the fixed order and names what it dropped.
    err, amb = fields(await call("get_decision", {"id": "20 F 1.10"}))
    other = amb["candidates"][0]["id"]
    err, tp = fields(await call("assemble_datapackage", {"ids": [ifg, did, other], "max_chars": 500}))
    check(not err and tp["payload_truncated"] is True and tp["truncated"] is True, "a 500-character budget truncates the package")
    t = tp["truncation"]
    check(t["shed_order"] == ["text_shortened", "edges_capped", "decisions_dropped"], f"shed order: {t['shed_order']}")
    check(t["steps_applied"] == [x for x in t["shed_order"] if x in t["steps_applied"]] and t["steps_applied"][0] == "text_shortened" and t["steps_applied"][-1] == "decisions_dropped", f"steps in the fixed order: {t['steps_applied']}")
    check(tp["included"] == 1 and tp["decisions"][0]["id"] == ifg and t["dropped_seed_ids"] == [did, other], f"decisions dropped from the end: {t['dropped_seed_ids']}")
    check(tp["requested"] - tp["deduped"] - tp["included"] == len(t["dropped_seed_ids"]), "requested - deduped - included = dropped")
    check(t["excerpt_chars_applied"] == 300 and tp["decisions"][0]["truncated_reason"] == "budget_shedding", "text shortened to the 300-character floor, and says so")
    check(tp["truncation_notice"], "a German truncation notice")
    ea = tp["edge_accounting"]
    check(ea["total"] == ea["included"] + ea["dropped"] and ea["included"] <= 1, "edge_accounting after shedding")

    # Refusals.
    for args, code in (
        ({"ids": []}, "invalid_argument"),
        ({"ids": [did] * 11}, "invalid_argument"),
        ({"ids": [did, "99 ZZ 1/99"]}, "decision_not_found"),
        ({"ids": ["20 F 1.10"]}, "decision_ambiguous"),
        ({"ids": [did], "max_chars": 10}, "invalid_argument"),
    ):
        err, sc = fields(await call("assemble_datapackage", args))
        check(err and sc["error_code"] == code, f"assemble_datapackage {args}: {code}, got {sc.get('error_code')}")
    err, sc = fields(await call("assemble_datapackage", {"ids": [did, "99 ZZ 1/99"]}))
    check([u["id"] for u in sc["unresolved_ids"]] == ["99 ZZ 1/99"], "unresolved_ids names the bad id")


async def main_v1(url):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write, _):
        async with ClientSession(read, write) as s:
            init = await s.initialize()

            async def page(cursor):
                r = await s.list_tools(cursor=cursor) if cursor else await s.list_tools()
                return r.tools, r.nextCursor

            async def call(name, args):
                return await s.call_tool(name, args)

            await scenario(call, page, init.protocolVersion, "2025-11-25")


async def main_v2(url, mode):
    from mcp import Client

    expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
    async with Client(url, mode=mode) as c:
        async def page(cursor):
            r = await c.list_tools(cursor=cursor) if cursor else await c.list_tools()
            return r.tools, getattr(r, "next_cursor", None)

        async def call(name, args):
            return await c.call_tool(name, args)

        await scenario(call, page, c.protocol_version, expected)


if __name__ == "__main__":
    url = sys.argv[1]
    mode = sys.argv[2] if len(sys.argv) > 2 else "auto"
    asyncio.run(main_v2(url, mode) if SDK_MAJOR >= 2 else main_v1(url))
