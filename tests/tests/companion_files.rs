//! The companion files `decisions.lines` (extract) and `citations.lines` (resolve) let later
//! stages skip reading gigabytes: read through them, a stage sees exactly what reading the
//! described file itself gives (every decision's head and place; every citations line's
//! place, scan key and sha256), and once the described file is not the one they were written
//! for, they are not used.

use std::collections::HashMap;

use extract::decision_lines::{LocatedHead, read_heads};
use extract::decision_stage::{open_decisions, parts_layout};
use extract::line_parts::PartedLines;
use legal_tests::sample_data_dir;
use resolve::case_law::{citations_layout, read_summary};
use resolve::citation_lines::{CitationLine, read_citation_lines};
use sha2::Digest;

/// Moves a file's modification time one second on: same bytes, another file on disk.
fn touch(p: &std::path::Path) {
    let f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
    let m = f.metadata().unwrap().modified().unwrap();
    f.set_modified(m + std::time::Duration::from_secs(1)).unwrap();
}

fn heads(d: &std::path::Path) -> Vec<LocatedHead> {
    read_heads(d).unwrap().collect::<anyhow::Result<Vec<_>>>().unwrap()
}

#[test]
fn decision_heads_read_from_decisions_lines_equal_those_read_from_the_file_and_a_changed_file_is_read_itself() {
    let data = sample_data_dir();
    let d = data.path();
    let described = heads(d);
    assert!(described.len() >= 5, "{}", described.len());
    assert!(described.iter().all(|h| h.line_key.as_ref().is_some_and(|k| k.len() == 64)), "keys from decisions.lines");
    assert!(
        described.iter().any(|h| h.head.ecli.is_some()) && described.iter().any(|h| !h.head.file_numbers.is_empty())
    );

    touch(&parts_layout(d).list);
    let read = heads(d);
    assert!(read.iter().all(|h| h.line_key.is_none()), "decisions.lines was trusted for a changed list of parts");
    assert_eq!(read.len(), described.len());
    for (a, b) in described.iter().zip(&read) {
        assert_eq!((a.span, &a.head), (b.span, &b.head));
    }
    // Each place is the decision's whole line.
    let parts = open_decisions(d).unwrap();
    for h in &read {
        let line = parts.read_line(h.span).unwrap();
        assert!(line.ends_with(b"\n"));
        let v: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v["id"], h.head.id.as_str());
    }
}

#[test]
fn citations_lines_describe_each_citations_line_and_are_not_used_once_the_list_changes() {
    let data = sample_data_dir();
    let d = data.path();
    let sha = read_summary(d).unwrap().expect("resolve ran").sha256;
    let described = read_citation_lines(d, &sha).expect("citations.lines describes citations.parts");

    let mut read = Vec::new();
    for l in PartedLines::open(citations_layout(d)).unwrap().lines() {
        let (span, line) = l.unwrap();
        let v: serde_json::Value = serde_json::from_slice(&line).unwrap();
        read.push(CitationLine {
            id: v["id"].as_str().unwrap().to_string(),
            span,
            scan_key: v["scan_key"].as_str().unwrap_or_default().to_string(),
            sha256: sha2::Sha256::digest(&line).into(),
        });
    }
    assert!(read.len() >= 5);
    assert_eq!(described, read);
    let ids: HashMap<&str, usize> = read.iter().enumerate().map(|(i, l)| (l.id.as_str(), i)).collect();
    assert_eq!(ids.len(), read.len(), "one line per decision");

    // Another sha256 than the summary's, or the same bytes as another file: not used.
    assert!(read_citation_lines(d, &"0".repeat(64)).is_none());
    touch(&citations_layout(d).list);
    assert!(read_citation_lines(d, &sha).is_none(), "citations.lines was trusted for a changed list");
}

#[test]
fn a_citations_line_edited_in_place_behind_an_intact_companion_fails_the_build_naming_the_line() {
    let data = sample_data_dir();
    let d = data.path();
    let before = legal_tests::current_id(d);
    // The first line (in order, across the parts) holding a citation that starts at 1….
    let parts = PartedLines::open(citations_layout(d)).unwrap();
    let (mut lines_before, mut found) = (0, None);
    for part in 0..parts.parts().len() as u32 {
        let bytes = std::fs::read(parts.path(part)).unwrap();
        if let Some(at) = bytes.windows(9).position(|w| w == b"\"start\":1") {
            let line_no = lines_before + bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            found = Some((parts.path(part), at + 8, line_no));
            break;
        }
        lines_before += bytes.iter().filter(|&&b| b == b'\n').count();
    }
    let (p, at, line_no) = found.expect("a citation starting at 1…");
    // One digit of that offset changes: still JSON of the same shape and length, and the part
    // keeps its size, inode and mtime, so `citations.lines` still describes the list.
    let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
    let mtime = f.metadata().unwrap().modified().unwrap();
    std::os::unix::fs::FileExt::write_all_at(&f, b"2", at as u64).unwrap();
    f.set_modified(mtime).unwrap();
    drop(f);
    let sha = read_summary(d).unwrap().unwrap().sha256;
    assert!(read_citation_lines(d, &sha).is_some(), "the companion should still look valid");

    let out = legal_tests::procs::run_stage("index", &["--data-dir", d.to_str().unwrap(), "build", "--force"]);
    assert!(!out.status.success(), "index built from a line resolve did not write");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("citations.parts")
            && err.contains(&format!("line {line_no} of"))
            && err.contains("rerun `resolve`"),
        "{err}"
    );
    assert_eq!(legal_tests::current_id(d), before, "nothing is published");
}

#[test]
fn a_lost_part_of_the_decisions_is_written_again_by_the_next_extract_even_over_unchanged_input() {
    let data = sample_data_dir();
    let d = data.path();
    let before = legal_tests::decision_lines(d);
    let parts = open_decisions(d).unwrap();
    assert!(parts.parts().len() > 10, "{} parts", parts.parts().len());
    let lost = parts.path(parts.parts().len() as u32 / 2);
    std::fs::remove_file(&lost).unwrap();
    let out = legal_tests::procs::run_stage_ok("extract", &["--data-dir", d.to_str().unwrap()]);
    // Not "input unchanged": the list names a part that is gone. Every other part is kept,
    // every line copied (none normalised again), and the lost one written again as it was.
    assert!(out.contains(&format!("{} parts kept, 1 parts written", parts.parts().len() - 1)), "{out}");
    assert!(out.contains(" 0 normalised"), "{out}");
    assert!(lost.is_file(), "{} was not written again", lost.display());
    assert!(legal_tests::decision_lines(d) == before, "the decisions differ after the part was written again");
}
