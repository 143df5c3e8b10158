#!/usr/bin/env python3
"""Writes the heading questions `make bench` scores: a § asked for by its own heading, as a
user who knows the name of the offence or institution types it ("Üble Nachrede", "Raub").

Usage: scripts/heading-questions.py GENERATION_DIR [--n 150] [--seed 7] > tests/fixtures/heading-questions.jsonl

From the generation's laws.sqlite: sections of 37 major laws whose heading is 1-3 words, holds
no digit, is no repealed placeholder, heads a text of more than 200 characters, and is the
heading of no other section of any law (so exactly one § answers it); `--n` of them, drawn with
`--seed`. Each line is in lay-score.py's format.
"""
import argparse, collections, json, random, sqlite3, sys

LAWS = """bgb stgb zpo stpo hgb gg ao_1977 estg sgb_5 sgb_6 sgb_3 sgb_2 sgb_12 vwvfg vwgo inso gewo
aufenthg_2004 stvg stvo_2013 owig_1968 urhg arbzg kschg betrvg beeg burlg bdsg_2018 aktg gmbhg famfg
tiersg tierschg waffg_2002 btmg_1981 fev_2010 ustg_1980""".split()

ap = argparse.ArgumentParser()
ap.add_argument("generation"); ap.add_argument("--n", type=int, default=150); ap.add_argument("--seed", type=int, default=7)
a = ap.parse_args()
db = sqlite3.connect(f"file:{a.generation}/laws.sqlite?mode=ro", uri=True)
rows = db.execute(
    "SELECT l.slug, s.toc_key, s.heading FROM sections s JOIN laws l ON l.id = s.law_id "
    "WHERE s.heading IS NOT NULL AND s.text_length > 200 AND s.heading NOT LIKE '%weggefallen%' "
    "ORDER BY l.slug, s.ordinal").fetchall()
headings = collections.Counter(h.strip().lower() for _, _, h in rows)
candidates = [(slug, key, h.strip()) for slug, key, h in rows
              if slug in LAWS and headings[h.strip().lower()] == 1 and 1 <= len(h.split()) <= 3
              and not any(c.isdigit() for c in h)]
random.seed(a.seed)
random.shuffle(candidates)
for slug, key, h in candidates[: a.n]:
    print(json.dumps({"id": f"heading-{slug}-{key}", "query": h, "relevant": [{"slug": slug, "section": key}],
                      "primary": f"{slug} {key}"}, ensure_ascii=False))
print(f"{len(candidates)} candidates, {min(a.n, len(candidates))} written", file=sys.stderr)
