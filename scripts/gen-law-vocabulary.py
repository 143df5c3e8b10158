#!/usr/bin/env python3
"""Regenerate the citation scanner's shipped vocabulary (extract/reference/).

Reads the statutes corpus (../shared/data/gii/<slug>/xml.zip: jurabk, amtabk, kurzue, langue of
each law), refex's law-book codes, law-aliases.tsv, reporters.tsv and registerzeichen.tsv, and writes

  extract/reference/law-vocabulary.tsv   form <TAB> canonical (empty = same as form) <TAB> kind
  extract/reference/reporters.tsv        byte copy of the shared table
  extract/reference/registerzeichen.tsv  byte copy of the shared table

kind: `abk` (an abbreviation: jurabk, amtabk, refex code; matched case-sensitively as a word),
`alias` (law-aliases.tsv rename/spelling), `replaced` (old code of a repealed law, its own canonical),
`title` (a spelled-out name, matched with German case endings).

Usage: python3 scripts/gen-law-vocabulary.py [--shared ../shared]   (run from the repo root)
Standard library only; deterministic output (sorted), so a regenerated file diffs cleanly.
"""
import argparse
import html
import os
import re
import shutil
import sys
import zipfile

ROMAN = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV"]
ORDINAL = ["", "Erstes", "Zweites", "Drittes", "Viertes", "Fünftes", "Sechstes", "Siebtes", "Achtes",
           "Neuntes", "Zehntes", "Elftes", "Zwölftes", "Dreizehntes", "Vierzehntes"]
META = re.compile(r"<metadaten>(.*?)</metadaten>", re.S)


def field(meta, name):
    m = re.search(r"<%s>(.*?)</%s>" % (name, name), meta, re.S)
    if not m:
        return ""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", m.group(1))).split())


def canonical_of(code):
    """The abbreviation used in canonical tokens: `SGB 5` -> `SGB V`, `AO 1977` -> `AO`."""
    m = re.fullmatch(r"SGB (\d+)", code)
    if m and 0 < int(m.group(1)) < len(ROMAN):
        return "SGB " + ROMAN[int(m.group(1))]
    return code


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--out", default="extract/reference")
    a = ap.parse_args()
    gii = os.path.join(a.shared, "data/gii")
    ref = os.path.join(a.shared, "data/reference")
    rows = {}  # form -> (canonical, kind); first writer wins by priority order below

    # Land codes and other fragments that some source lists carry as if they were laws.
    junk = re.compile(r"(NRW|NW|BY|BW|SH|Bln|BB|Bbg|LSA|MV|Nds|RP|SL|HH|HB|Hess|Bay|Sachs|Thür)\.?")

    def put(form, canon, kind, force=False):
        form = " ".join(form.split())
        if not form or len(form) > 90 or "\t" in form or junk.fullmatch(form):
            return
        if form in rows and not force:
            return
        rows[form] = (canon, kind)

    laws = []
    for slug in sorted(os.listdir(gii)):
        zp = os.path.join(gii, slug, "xml.zip")
        if not os.path.isfile(zp):
            continue
        with zipfile.ZipFile(zp) as z:
            name = z.namelist()[0]
            with z.open(name) as f:
                head = f.read(20000).decode("utf-8", "replace")
        m = META.search(head)
        if not m:
            continue
        meta = m.group(1)
        laws.append((field(meta, "jurabk"), field(meta, "amtabk"), field(meta, "kurzue"), field(meta, "langue")))

    # Abbreviations first: amtabk is what texts write; jurabk may carry a year (`AO 1977`).
    year = re.compile(r"^(.*\S) (19|20)\d\d$")
    for jur, amt, kurz, lang in laws:
        canon = canonical_of(amt or jur)
        if "§" in canon or len(canon) > 30:
            continue
        for code in (amt, jur):
            if code:
                put(code, canon, "abk")
    # year-less jurabk as a lower-priority code (does not override a real code of another law)
    for jur, amt, kurz, lang in laws:
        canon = canonical_of(amt or jur)
        m = year.match(jur)
        if m and "§" not in canon:
            put(m.group(1), canon, "abk")
    for n in range(1, len(ROMAN)):
        put("SGB " + ROMAN[n], "SGB " + ROMAN[n], "abk", force=True)
        put("SGB " + str(n), "SGB " + ROMAN[n], "abk", force=True)
        put(ORDINAL[n] + " Buch Sozialgesetzbuch", "SGB " + ROMAN[n], "title")
        put("Sozialgesetzbuch " + ORDINAL[n] + " Buch", "SGB " + ROMAN[n], "title")
        put("Sozialgesetzbuch (SGB) " + ORDINAL[n] + " Buch", "SGB " + ROMAN[n], "title")

    refex_words = []  # plain words of refex's list; titles of the corpus take precedence
    with open(os.path.join(ref, "refex/law-book-codes.txt"), encoding="utf-8") as f:
        for line in f:
            code = line.strip()
            if not code:
                continue
            # refex's list holds a few plain words (`Bayern`, `Haftung`); a plain word is kept
            # only when it reads like a law's name, and then as a title.
            if re.fullmatch(r"[A-ZÄÖÜ][a-zäöüß-]+", code):
                if re.search(r"(gesetz|gesetzes|gesetzbuch|gesetzbuches|ordnung|verordnung|vertrag)$", code):
                    refex_words.append(code)
                continue
            put(code, canonical_of(code), "abk")

    with open(os.path.join(ref, "law-aliases.tsv"), encoding="utf-8") as f:
        next(f)
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 5:
                continue
            old, new, kind = p[0], p[1], p[4]
            if kind == "replaced":
                put(old, old, "replaced")
            else:
                # a spelled-out variant (contains a lower-case word or is long) is a title
                # a spelled-out name (one capital, or lower-case words, or long) is a title and is
                # matched with case endings; an abbreviation (two capitals or a digit) exactly
                abbrev = sum(c.isupper() for c in old) >= 2 or any(c.isdigit() for c in old)
                k = "alias" if abbrev and len(old) <= 25 and not any(w[:1].islower() for w in old.split()[1:]) else "title"
                put(old, canonical_of(new), k)

    # Titles last: short title, and the long title when it is short enough to be written out.
    # A title that is one generic word (`Verordnung`, cut from `Verordnung (EG) …`) names nothing.
    generic = {"Verordnung", "Gesetz", "Bekanntmachung", "Anordnung", "Abkommen", "Übereinkommen", "Vertrag",
               "Satzung", "Erlass", "Richtlinie", "Vereinbarung", "Protokoll", "Beschluss", "Geschäftsordnung",
               "Zweite Verordnung", "Erste Verordnung", "Dritte Verordnung", "Verwaltungsvorschrift"}
    for jur, amt, kurz, lang in laws:
        canon = canonical_of(amt or jur)
        if "§" in canon or len(canon) > 30:
            continue
        for t in (kurz, lang):
            t = re.split(r" \(| - |, ", t)[0].strip()
            if 4 <= len(t) <= 90 and t[:1].isupper() and t not in generic and not re.fullmatch(r"\w+ (Verordnung|Gesetz)", t):
                put(t, canon, "title")
    for code in refex_words:
        put(code, code, "title")
    # Not in the federal corpus but cited everywhere.
    for form, canon, kind in [
        ("EMRK", "EMRK", "abk"), ("AEUV", "AEUV", "abk"), ("EUV", "EUV", "abk"), ("GRCh", "GRCh", "abk"),
        ("EU-GRCharta", "GRCh", "abk"), ("DSGVO", "DSGVO", "abk"), ("DS-GVO", "DSGVO", "abk"),
        ("EGV", "EGV", "abk"), ("EG", "EG", "abk"), ("GFK", "GFK", "abk"), ("RVO", "RVO", "abk"),
        ("Europäische Menschenrechtskonvention", "EMRK", "title"),
        ("Konvention zum Schutze der Menschenrechte und Grundfreiheiten", "EMRK", "title"),
        ("Charta der Grundrechte der Europäischen Union", "GRCh", "title"),
        ("Datenschutz-Grundverordnung", "DSGVO", "title"),
        ("Reichsversicherungsordnung", "RVO", "title"),
        ("Weimarer Reichsverfassung", "WRV", "title"), ("WRV", "WRV", "abk"),
        ("Grundgesetz", "GG", "title"), ("SGB", "SGB", "abk"),
        ("EG-Vertrag", "EGV", "abk"), ("EWG-Vertrag", "EWGV", "abk"), ("EU-Vertrag", "EUV", "abk"),
        ("AEU-Vertrag", "AEUV", "abk"), ("EGV", "EGV", "abk"),
        ("Allgemeines Gleichbehandlungsgesetz", "AGG", "title"),
    ]:
        put(form, canon, kind, force=kind == "title")

    os.makedirs(a.out, exist_ok=True)
    out = os.path.join(a.out, "law-vocabulary.tsv")
    with open(out, "w", encoding="utf-8") as f:
        f.write("# generated by scripts/gen-law-vocabulary.py from ../shared/data/gii and ../shared/data/reference; do not edit\n")
        f.write("# form\tcanonical (empty = form)\tkind (abk|alias|replaced|title)\n")
        for form in sorted(rows):
            canon, kind = rows[form]
            f.write("%s\t%s\t%s\n" % (form, "" if canon == form else canon, kind))
    for name in ("reporters.tsv", "registerzeichen.tsv"):
        shutil.copyfile(os.path.join(ref, name), os.path.join(a.out, name))
    print("%s: %d forms, %d bytes" % (out, len(rows), os.path.getsize(out)), file=sys.stderr)


if __name__ == "__main__":
    main()
