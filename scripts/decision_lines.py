"""The decisions extract wrote last, line by line, for the scripts beside this file.

extract writes each decision as one JSON line in content-addressed parts,
`work/extract/decisions/parts/<aa>/<sha256>.jsonl`, listed in order by
`work/extract/decisions/decisions.parts` (`<sha256> <chunk_key> <lines> <bytes>` per part).
"""

import os


def decision_lines(data_dir):
    """Yields every decision's JSON line (a str, newline included), in extract's order."""
    base = os.path.join(data_dir, "work/extract/decisions")
    with open(os.path.join(base, "decisions.parts")) as parts:
        for entry in parts:
            name = entry.split(" ", 1)[0]
            with open(os.path.join(base, "parts", name[:2], name + ".jsonl"), encoding="utf-8") as f:
                yield from f
