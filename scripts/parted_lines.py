"""The lines extract and resolve wrote last, in order, for the scripts beside this file.

Both keep a big JSON Lines file as content-addressed parts, `<dir>/parts/<aa>/<sha256>.jsonl`,
listed in order by a list file (`<sha256> <chunk_key> <lines> <bytes>` per part): extract's
decisions (`work/extract/decisions/decisions.parts`, one decision per line) and resolve's
citations (`work/resolve/citations.parts`, one decision's citations per line).
"""

import os


def parted_lines(base, list_name):
    """Yields every line (a str, newline included) of the parts `base/list_name` lists."""
    with open(os.path.join(base, list_name)) as parts:
        for entry in parts:
            name = entry.split(" ", 1)[0]
            with open(os.path.join(base, "parts", name[:2], name + ".jsonl"), encoding="utf-8") as f:
                yield from f


def decision_lines(data_dir):
    """extract's decisions, one JSON line each."""
    return parted_lines(os.path.join(data_dir, "work/extract/decisions"), "decisions.parts")


def citation_lines(data_dir):
    """resolve's citations, one JSON line per decision."""
    return parted_lines(os.path.join(data_dir, "work/resolve"), "citations.parts")
