#!/usr/bin/env python3
"""Regenerate serve/data/everyday-german.tsv from the PyPI package `wordfreq` (3.1.1).

Usage: python3 -m venv /tmp/wf && /tmp/wf/bin/pip install wordfreq==3.1.1 &&
       /tmp/wf/bin/python scripts/everyday-german.py
Keeps the alphabetic words of wordfreq's `large_de` list at Zipf 3.0 or above (about 39,000),
each with its Zipf frequency x 100, most frequent first. wordfreq's data is CC BY-SA 4.0, and
so is the file written.
"""
import math
import pathlib

from wordfreq import get_frequency_dict

HEADER = """# Everyday German word frequencies: each word (lower case) and its Zipf frequency x 100
# (log10 of its occurrences per billion words), for the words at Zipf 3.0 or above.
# Derived from wordfreq 3.1.1 (Robyn Speer; PyPI `wordfreq`, list `large_de`), whose data
# is licensed CC BY-SA 4.0 (https://creativecommons.org/licenses/by-sa/4.0/); this file is
# shared under the same licence. Regenerate: python3 scripts/everyday-german.py
# Read by serve/src/query/everyday.rs (compiled in).
"""

rows = []
for word, p in get_frequency_dict("de", "large").items():
    z = math.log10(p) + 9
    if z >= 3.0 and word.isalpha():
        rows.append((word, round(z * 100)))
rows.sort(key=lambda r: (-r[1], r[0]))
out = pathlib.Path(__file__).resolve().parent.parent / "serve/data/everyday-german.tsv"
out.write_text(HEADER + "".join(f"{w}\t{z}\n" for w, z in rows), encoding="utf-8")
print(f"{len(rows)} words -> {out}")
