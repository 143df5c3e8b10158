#!/usr/bin/env python3
"""Citation recommendation from the project's own graph (issue 17, item 6).

    citation-recommend.py DATA_DIR BASE_URL [--n 200] [--json]

For a deterministic sample of bound statute citations in held decisions (one per decision and
cited section, every k-th bound citation in decision and text order), the words of the passage before the
citation (the citation itself and every other citation-like token removed) are sent to
`search_laws`; the cited § is the answer. Prints recall@1, recall@10 and MRR@10 with the words
alone (`expand_query: false`) and with the legal-register dictionary (the default).

The decisions are listed from the served generation's store (read-only):
DATA_DIR/generations/$(cat CURRENT); their citations through the served `get_case_references`,
the text before each through the served `get_decision`.
"""

import json
import re
import sqlite3
import sys
import urllib.request
from pathlib import Path

CONTEXT_CHARS = 400
QUERY_WORDS = 25


def text_before(base, ext_id, start):
    """The CONTEXT_CHARS code points of the decision's text before `start`, read through the
    served `get_decision` (bodies live in the generation's text packs, not in the store)."""
    offset = max(0, start - CONTEXT_CHARS)
    if start <= offset:
        return ""
    return post(base, "get_decision", {"id": ext_id, "offset": offset, "length": start - offset})["snippet"]["text"]


def post(base, tool, args):
    req = urllib.request.Request(
        f"{base}/api/tools/{tool}", json.dumps(args).encode(), {"content-type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def bound_citations(store, base):
    """(decision row id, ext id, start, book, section) of every bound § citation, in decision
    and text order, read through the served `get_case_references`."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    out = []
    for did, ext_id in db.execute("SELECT id, ext_id FROM decisions ORDER BY id").fetchall():
        refs = post(base, "get_case_references", {"id": ext_id, "limit": 5000})
        if refs.get("truncated"):
            sys.exit(f"{ext_id} has more than 5000 law citations: raise the limit")
        for law in refs["laws"]:
            if law["status"] == "bound" and law.get("section") is not None:
                out.append((did, ext_id, law["start"], law["book"], law["section"]))
    out.sort(key=lambda r: (r[0], r[2]))
    return out


def sample(store, base, n):
    rows = bound_citations(store, base)
    total = len(rows)
    step = max(1, total // (n * 3))
    seen, out = set(), []
    for i, (did, ext_id, start, book, section) in enumerate(rows):
        if i % step or (did, book, section) in seen:
            continue
        words = [
            w
            for w in re.split(r"\s+", text_before(base, ext_id, start))
            if w and not re.search(r"[\d§]", w) and not re.fullmatch(r"(Abs|Art|Nr|Satz|S|lit|i\.?V\.?m)\.?", w)
        ]
        query = " ".join(words[-QUERY_WORDS:])[:500].strip(" ,;:(")
        if len(query.split()) < 5:
            continue
        seen.add((did, book, section))
        out.append((query, book, section))
        if len(out) >= n:
            break
    return out


def rank(base, query, book, section, expand):
    body = json.dumps({"query": query, "limit": 10, "expand_query": expand}).encode()
    req = urllib.request.Request(f"{base}/api/tools/search_laws", body, {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            rows = json.load(r).get("results", [])
    except urllib.error.HTTPError:
        return None
    for i, row in enumerate(rows):
        if row["law"]["code"] == book and row["section"] == section:
            return i + 1
    return None


def score(ranks):
    n = len(ranks)
    return {
        "questions": n,
        "recall@1": round(100 * sum(1 for r in ranks if r == 1) / n, 1),
        "recall@10": round(100 * sum(1 for r in ranks if r) / n, 1),
        "mrr@10": round(sum(1 / r for r in ranks if r) / n, 3),
    }


def main():
    args = sys.argv[1:]
    n = int(args[args.index("--n") + 1]) if "--n" in args else 200
    data, base = Path(args[0]), args[1].rstrip("/")
    store = data / "generations" / (data / "CURRENT").read_text().strip() / "store.sqlite"
    cases = sample(store, base, n)
    result = {}
    for label, expand in (("words_only", False), ("with_dictionary", True)):
        result[label] = score([rank(base, q, b, s, expand) for q, b, s in cases])
    print(json.dumps(result) if "--json" in args else json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
