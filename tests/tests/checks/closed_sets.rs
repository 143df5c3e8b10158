//! Closed sets end to end, on the full-corpus generation that `law_citation_dates.rs` builds
//! (all 966 records of the shared decision corpus, the 20-law statute sample plus the EGAO, the
//! one real rii decision): every status, withheld reason, role, case kind and branch the
//! pipeline wrote is a value of its `model` enum, and every value of those enums was written at
//! least once (or is named as not reachable on this generation, with why). And `index` joins
//! resolve's citations to the decisions by id: reordered lines give the same generation content,
//! while a truncated or garbled file is refused with the file and line named and nothing is
//! published. Included with `#[path]` by the test that builds the generation (one build, not
//! two); [`check`] must run last there, since it rewrites resolve's citations and republishes.

use std::collections::BTreeMap;
use std::path::Path;

use legal_tests::current_id as current;
use legal_tests::procs::{run_stage, run_stage_ok};
use model::{Branch, CaseCitationStatus, CaseKind, CitationRole, ClosedSet, LawCitationStatus, WithheldReason};

fn store_of(data: &Path) -> rusqlite::Connection {
    let id = std::fs::read_to_string(data.join("CURRENT")).unwrap();
    index::citation_rows::open_store_with_citations(&data.join("generations").join(id.trim())).unwrap()
}

/// Counts per value of `T` of the distinct non-null values `sql` selects (value, count); a
/// value that is not in `T` fails the test with the set it missed.
fn counts_of<T: ClosedSet + Ord + std::fmt::Debug>(db: &rusqlite::Connection, sql: &str) -> BTreeMap<T, i64> {
    let mut st = db.prepare(sql).unwrap();
    let rows: Vec<(String, i64)> =
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().collect::<rusqlite::Result<_>>().unwrap();
    rows.into_iter()
        .map(|(v, n)| {
            let t = T::all().iter().copied().find(|t| t.as_str() == v);
            (t.unwrap_or_else(|| panic!("{sql}: `{v}` is not a {} (known: {:?})", T::SET_NAME, T::spellings())), n)
        })
        .collect()
}

/// Every value of `T` was written, except those in `unreachable` (value, why not on this
/// generation); each of those must indeed be absent, so the list cannot go stale.
fn every_value_written<T: ClosedSet + Ord + std::fmt::Debug>(seen: &BTreeMap<T, i64>, unreachable: &[(T, &str)]) {
    eprintln!("{}: {:?}", T::SET_NAME, seen.iter().map(|(k, n)| (k.as_str(), *n)).collect::<Vec<_>>());
    for v in T::all() {
        match unreachable.iter().find(|(u, _)| u == v) {
            Some((_, why)) => {
                assert!(
                    !seen.contains_key(v),
                    "{} `{}` is listed as unreachable ({why}) but was written",
                    T::SET_NAME,
                    v.as_str()
                )
            }
            None => {
                assert!(seen.contains_key(v), "{} `{}` is never written on the full corpus", T::SET_NAME, v.as_str())
            }
        }
    }
}

/// The generation's citation content, independent of row ids' meaning: every citation row
/// keyed by its decision's ext id, its target by ext id, the edges, norms and citing counts.
fn citation_content(data: &Path) -> Vec<String> {
    let db = store_of(data);
    let mut out = Vec::new();
    for sql in [
        "SELECT d.ext_id, c.kind, c.start, c.end, c.raw, c.canonical, c.case_kind, c.status, c.withheld, c.role,
                c.law_status, c.law_id, t.ext_id, c.candidates, c.note
         FROM decision_citations c JOIN decisions d ON d.id = c.decision_id LEFT JOIN decisions t ON t.id = c.target_id
         ORDER BY d.ext_id, c.kind, c.start, c.end, c.raw",
        "SELECT a.ext_id, b.ext_id, e.citations, e.role FROM citation_edges e
         JOIN decisions a ON a.id = e.citing_id JOIN decisions b ON b.id = e.cited_id ORDER BY a.ext_id, b.ext_id",
        "SELECT d.ext_id, n.norm, n.from_norm_field FROM decision_norms n JOIN decisions d ON d.id = n.decision_id
         ORDER BY d.ext_id, n.norm",
        "SELECT ext_id, citing_count FROM decisions ORDER BY ext_id",
    ] {
        let mut st = db.prepare(sql).unwrap();
        let cols = st.column_count();
        let rows = st
            .query_map([], |r| {
                let vals: Vec<String> =
                    (0..cols).map(|i| format!("{:?}", r.get::<_, rusqlite::types::Value>(i).unwrap())).collect();
                Ok(vals.join("\t"))
            })
            .unwrap();
        out.extend(rows.map(Result::unwrap));
    }
    out
}

/// `index build --force` on `data` is refused; its stderr names resolve's citations (the list or
/// a part) and `needle`,
/// and CURRENT still names the generation it named before.
fn index_refuses(data: &Path, needle: &str) {
    let before = current(data);
    let out = run_stage("index", &["--data-dir", data.to_str().unwrap(), "build", "--force"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "index accepted bad citations:\n{}", String::from_utf8_lossy(&out.stdout));
    assert!(stderr.contains("work/resolve/") && stderr.contains(needle), "unclear refusal: {stderr}");
    assert_eq!(current(data), before, "nothing is published from bad citations");
    eprintln!("refused as expected: {}", stderr.trim());
}

/// The checks on a data directory holding a published full-corpus generation and its work files.
pub fn check(d: &Path) {
    let t0 = std::time::Instant::now();
    // resolve's output reads back typed: an unknown spelling would fail here.
    let by_id = resolve::case_law::read_citations_by_id(d).unwrap().expect("citations written");
    assert!(by_id.len() >= 890, "one line per decision: {}", by_id.len());
    let raw = legal_tests::citation_lines(d).join("\n") + "\n";
    assert!(!raw.contains("\"filenumber\""), "one spelling of the file-number kind");

    let db = store_of(d);
    let kinds: BTreeMap<CaseKind, i64> =
        counts_of(&db, "SELECT case_kind, COUNT(*) FROM decision_citations WHERE kind = 'case' GROUP BY 1");
    let statuses: BTreeMap<CaseCitationStatus, i64> =
        counts_of(&db, "SELECT status, COUNT(*) FROM decision_citations WHERE kind = 'case' GROUP BY 1");
    let withheld: BTreeMap<WithheldReason, i64> = counts_of(
        &db,
        "SELECT withheld, COUNT(*) FROM decision_citations WHERE kind = 'case' AND withheld IS NOT NULL GROUP BY 1",
    );
    let roles: BTreeMap<CitationRole, i64> =
        counts_of(&db, "SELECT role, COUNT(*) FROM decision_citations WHERE kind = 'case' GROUP BY 1");
    let law: BTreeMap<LawCitationStatus, i64> =
        counts_of(&db, "SELECT law_status, COUNT(*) FROM decision_citations WHERE kind = 'law' GROUP BY 1");
    let edge_roles: BTreeMap<CitationRole, i64> =
        counts_of(&db, "SELECT role, COUNT(*) FROM citation_edges GROUP BY 1");
    let branches: BTreeMap<Branch, i64> =
        counts_of(&db, "SELECT branch, COUNT(*) FROM courts WHERE decision_count > 0 GROUP BY 1");
    let nulls: i64 = db
        .query_row(
            "SELECT COUNT(*) FROM decision_citations WHERE (kind = 'case' AND (status IS NULL OR role IS NULL OR case_kind IS NULL))
                OR (kind = 'law' AND law_status IS NULL)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(nulls, 0, "every citation row has its status, role and kind");

    every_value_written(&kinds, &[]);
    every_value_written(&statuses, &[]);
    every_value_written(&withheld, &[]);
    every_value_written(&roles, &[]);
    every_value_written(&edge_roles, &[]);
    every_value_written(
        &law,
        &[(
            LawCitationStatus::BookAmbiguous,
            "needs two held laws sharing one code at its best tier; the statute sample and the EGAO share none",
        )],
    );
    every_value_written(
        &branches,
        &[(
            Branch::Unbekannt,
            "every held court's name tells its branch on this corpus (European courts and Vergabekammern have their own)",
        )],
    );

    // Join by id: the same lines in another order give the same generation content.
    let before = citation_content(d);
    let lines: Vec<&str> = raw.lines().collect();
    let mut reversed = lines.clone();
    reversed.reverse();
    let layout = resolve::case_law::citations_layout(d);
    // Lines laid out by hand as resolve's parts (the last may lack its newline).
    let write = |text: &str| {
        extract::line_parts::write_lines(&layout, text.split_inclusive('\n').map(|l| l.as_bytes().to_vec())).unwrap()
    };
    write(&(reversed.join("\n") + "\n"));
    let out = run_stage_ok("index", &["--data-dir", d.to_str().unwrap(), "build", "--force"]);
    assert!(out.contains("published"), "{out}");
    eprintln!("rebuilt from reordered lines after {:?}", t0.elapsed());
    let after = citation_content(d);
    assert_eq!(before.len(), after.len(), "reordered citations: other row count");
    let first_diff = before.iter().zip(&after).position(|(a, b)| a != b);
    assert!(first_diff.is_none(), "reordered citations changed the generation at {:?}", first_diff.map(|i| &after[i]));

    // Cut inside the last line: refused, naming the part and the place.
    let cut = raw.len() - lines.last().unwrap().len() / 2 - 1;
    write(&raw[..raw.floor_char_boundary(cut)]);
    index_refuses(d, "is not a decision's citations");
    // Cut at a line boundary: every line parses, one decision has none.
    write(&(lines[..lines.len() - 1].join("\n") + "\n"));
    index_refuses(d, "has no line for decision");
    // A value no enum has (an old or foreign spelling): refused, naming the line.
    let at = lines.iter().position(|l| l.contains("\"role\":\"cited\"")).expect("a cited case citation");
    let garbled: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| if i == at { l.replacen("\"role\":\"cited\"", "\"role\":\"zitiert\"", 1) } else { l.to_string() })
        .collect();
    write(&(garbled.join("\n") + "\n"));
    index_refuses(d, &format!("line {} of", at + 1));
    // Missing altogether while decisions are held.
    std::fs::remove_file(&layout.list).unwrap();
    index_refuses(d, "run `resolve`");
    eprintln!("closed-set and citation-join checks took {:?}", t0.elapsed());
}
