#!/usr/bin/env python3
"""Candidates for the legal-register dictionary, from what the corpus shows (issue 17, item 2).

    python3 scripts/dictionary-candidates.py DATA_DIR [--window 240] [--min-decisions 3] [--top 200]

Courts write about a case in their own and the parties' words, then cite the §. A word that
decisions use just before a bound citation of a § -- in several decisions -- and that the §
itself does not use is a candidate way to ask for that §. For each (word, §) pair it counts the
distinct decisions, and how specific the word is to that § (the share of the word's citation
windows that cite it). It reads the last run's decisions (`work/extract/decisions/decisions.parts` and its parts),
resolve's citations (`work/resolve/citations.parts`) and the current generation's `store.sqlite` (the §'s own words).

It prints TSV in the dictionary's format, with the evidence in the note column, to stdout. Nothing
is added by itself: an operator reviews a line, keeps it (lay word -> the legal terms of the §'s
heading), and adds it to serve/data/legal-register.tsv as the README says.
"""

import argparse
import collections
import json
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parted_lines import citation_lines, decision_lines  # noqa: E402

WORD = re.compile(r"[A-Za-zÄÖÜäöüß]{5,}")
# Words of court writing that say nothing about a case's subject.
STOP = set("""
aber absatz allerdings also anders andere anderen anderer anspruch antrag antrags auch aufgrund
auszugehen bereits besteht beklagte beklagten beschluss beschwerde betreffend bezug bisher dabei
daher damit danach dagegen darauf daran darüber dass dessen deren derzeit diese diesem diesen dieser
dieses durch eines einem einen einer entsprechend erforderlich ergibt erst etwa falle fälle fall
folgt gemäß gegen gericht gerichts gesetzes gleichwohl gründe grundsätzlich hinaus hinsichtlich
insoweit insbesondere jedenfalls jedoch juris kläger klägerin klägers kommt lediglich maßgeblich
nach nicht nummer ohne rechtsprechung revision satz sache schon sein seine seiner senat sich sind
soweit sowie streitgegenständlichen ständige über unter urteil verfahren vgl vorliegend vorliegenden
wegen weil weiter weitere welche wenn werden wird worden zudem zwar zwischen
""".split())


def fold(w):
    return w.lower().replace("ä", "ae").replace("ö", "oe").replace("ü", "ue").replace("ß", "ss")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir")
    ap.add_argument("--window", type=int, default=240, help="characters before a citation read")
    ap.add_argument("--min-decisions", type=int, default=3)
    ap.add_argument("--top", type=int, default=200)
    a = ap.parse_args()

    texts = {}
    for line in decision_lines(a.data_dir):
        d = json.loads(line)
        texts[d["id"]] = (d.get("doc") or {}).get("text") or ""
    gen = open(os.path.join(a.data_dir, "CURRENT")).read().strip()
    db = sqlite3.connect(f"file:{os.path.join(a.data_dir, 'generations', gen, 'store.sqlite')}?mode=ro&immutable=1", uri=True)
    book_of = {}
    for code, lid in db.execute("SELECT code, id FROM laws"):
        book_of.setdefault(code, lid)

    pair = collections.defaultdict(set)  # (word, book, section) -> decisions
    word_windows = collections.Counter()  # word -> citation windows holding it
    for line in citation_lines(a.data_dir):
        c = json.loads(line)
        text = texts.get(c["id"], "")
        for cit in c.get("laws") or []:
            if not (cit.get("book") and cit.get("section")) or cit["book"] not in book_of:
                continue
            window = text[max(0, cit["start"] - a.window): cit["start"]]
            # Only this sentence: stop at the previous citation or sentence end.
            window = re.split(r"(?:§|Art\.|\.\s)", window)[-1]
            words = {fold(w) for w in WORD.findall(window) if fold(w) not in STOP}
            for w in words:
                pair[(w, cit["book"], cit["section"])].add(c["id"])
                word_windows[w] += 1

    section_text = {}

    def holds(book, section, w):
        key = (book, section)
        if key not in section_text:
            row = db.execute(
                "SELECT s.heading, s.text FROM sections s WHERE s.law_id = ? AND (s.toc_key = ? OR s.toc_key = ?)",
                (book_of[book], section, section.lower()),
            ).fetchone()
            section_text[key] = (row[0] or "", fold((row[0] or "") + " " + row[1])) if row else None
        got = section_text[key]
        # A stem-ish prefix: the § already says it if it holds the word's first 6 letters.
        return got is not None and w[:6] in got[1]

    rows = []
    for (w, book, section), ids in pair.items():
        if len(ids) < a.min_decisions or section_text.get((book, section), 1) is None:
            continue
        if holds(book, section, w):
            continue
        got = section_text.get((book, section))
        if got is None:
            continue
        specificity = len(ids) / max(1, word_windows[w])
        rows.append((len(ids) * specificity, w, book, section, len(ids), word_windows[w], got[0]))
    rows.sort(reverse=True)
    print("# candidates: lay word <TAB> the §'s heading (review: keep the legal terms) <TAB> source <TAB> evidence")
    for score, w, book, section, n, total, heading in rows[: a.top]:
        prefix = "Art." if section[:1].isdigit() and book in ("GG",) else "§"
        print(f"{w}\t{heading}\t{prefix} {section} {book}\tcandidate: {n} decisions use the word before citing it; {n}/{total} of the word's citation windows")
    print(f"# {len(rows)} candidate pairs with >= {a.min_decisions} decisions; {len(texts)} decisions read", file=sys.stderr)


if __name__ == "__main__":
    main()
