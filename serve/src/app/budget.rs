//! The response budget: an answer larger than `--max-response-bytes` is shortened by dropping
//! rows from the end of the lists its tool names ([`crate::tools::Tool::shed`]), in that order,
//! until it fits, and says so (seed 002's `payload_truncated`).
//!
//! Invariants:
//! - Every answer of a tool with sheddable lists carries `payload_truncated` (false when
//!   nothing was cut), so its absence never has to be interpreted.
//! - Only whole rows go, from the end (lowest ranked, or last in the tool's order); counts,
//!   totals and other summaries still describe the whole result.
//! - A cut page stays pageable: where the list's object pages by `offset`/`next_offset`,
//!   `next_offset` points at the first row dropped, and `has_more` turns true.
//! - `truncation` says what went (`dropped` per list, sizes before and after) and `guidance`
//!   what to do instead. An answer that still does not fit with every list emptied says
//!   `fits_budget: false`; texts are never cut here (they page by offset/length).

use serde_json::{Map, Value, json};

use crate::contract::json_object::JsonObject;

/// Bytes kept free for the marks themselves (`truncation`, `guidance`), so a cut answer with
/// its marks still fits.
const MARKS_RESERVE: usize = 1_024;

/// Shortens `payload` (the answer of a tool whose sheddable lists are `shed`, as JSON
/// pointers) to at most `budget` bytes of serialised JSON, and marks it. An answer within the
/// budget is only marked, as text; one over it is read into a tree and cut ([`fit_tree`]).
pub fn fit(payload: &mut JsonObject, shed: &[&str], budget: usize) {
    if shed.is_empty() {
        return;
    }
    let not_cut = json!(false);
    if payload.len() + payload.push_len("payload_truncated", &not_cut) <= budget {
        payload.push("payload_truncated", &not_cut);
        return;
    }
    let mut tree = payload.to_map();
    fit_tree(&mut tree, shed, budget);
    *payload = JsonObject::from_map(&tree);
}

/// [`fit`] on the answer as a tree.
fn fit_tree(payload: &mut Map<String, Value>, shed: &[&str], budget: usize) {
    payload.insert("payload_truncated".into(), json!(false));
    let size_before = serialised_len(payload);
    if size_before <= budget {
        return;
    }
    let target = budget.saturating_sub(MARKS_RESERVE);
    let mut size = size_before;
    let mut dropped = Map::new();
    let mut root = Value::Object(std::mem::take(payload));
    for pointer in shed {
        if size <= target {
            break;
        }
        let Some(Value::Array(rows)) = root.pointer_mut(pointer) else { continue };
        let mut keep = rows.len();
        // Each dropped row takes its bytes and one separating comma.
        while keep > 0 && size > target {
            keep -= 1;
            size -= serialised_len(&rows[keep]) + usize::from(keep > 0);
        }
        let n = rows.len() - keep;
        if n == 0 {
            continue;
        }
        rows.truncate(keep);
        dropped.insert((*pointer).to_string(), json!(n));
        mark_parent_page(&mut root, pointer, keep);
    }
    *payload = match root {
        Value::Object(m) => m,
        _ => unreachable!("an answer is an object"),
    };
    if dropped.is_empty() {
        payload.insert(
            "truncation".into(),
            json!({"budget_bytes": budget, "size_before": size_before, "fits_budget": false}),
        );
        return;
    }
    let lists: Vec<&str> = dropped.keys().map(|k| k.trim_start_matches('/')).collect();
    payload.insert("payload_truncated".into(), json!(true));
    let size_after = serialised_len(payload);
    payload.insert(
        "truncation".into(),
        json!({
            "budget_bytes": budget,
            "size_before": size_before,
            "size_after": size_after,
            "fits_budget": size_after <= budget,
            "dropped": dropped,
            "order": "rows dropped from the end of each list, in the order listed",
        }),
    );
    payload.insert(
        "guidance".into(),
        json!(format!(
            "This answer was shortened to the server's response budget ({budget} bytes): rows were dropped from the end of {}. Lower `limit` and page, or narrow the request.",
            lists.join(", ")
        )),
    );
}

/// Bytes of `v` as JSON, counted while serialising, without building the text (this runs on
/// every answer of a tool with lists).
fn serialised_len<T: serde::Serialize + ?Sized>(v: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

/// After the list at `pointer` was cut to `kept` rows: the object holding it pages on from
/// the first dropped row, and says more rows exist.
fn mark_parent_page(root: &mut Value, pointer: &str, kept: usize) {
    let parent = pointer.rsplit_once('/').map(|(p, _)| p).unwrap_or("");
    let Some(Value::Object(o)) = root.pointer_mut(parent) else { return };
    if o.contains_key("has_more") {
        o.insert("has_more".into(), json!(true));
    }
    if let (Some(offset), true) = (o.get("offset").and_then(Value::as_u64), o.contains_key("next_offset")) {
        o.insert("next_offset".into(), json!(offset + kept as u64));
    }
    if o.contains_key("returned") {
        o.insert("returned".into(), json!(kept));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(n: usize) -> Map<String, Value> {
        let rows: Vec<Value> = (0..n).map(|i| json!({"id": format!("row-{i}"), "text": "x".repeat(100)})).collect();
        json!({"offset": 10, "next_offset": Value::Null, "has_more": false, "total": n + 10, "results": rows})
            .as_object()
            .cloned()
            .unwrap()
    }

    /// `payload` as the app layer fits it: as text, read back for the assertions.
    fn fitted(payload: &Map<String, Value>, budget: usize) -> Map<String, Value> {
        let mut o = JsonObject::from_map(payload);
        fit(&mut o, &["/results"], budget);
        o.to_map()
    }

    #[test]
    fn an_answer_within_budget_is_untouched_and_says_so() {
        let before = page(5);
        let mut p = fitted(&before, 1_000_000);
        assert_eq!(p["payload_truncated"], json!(false));
        p.remove("payload_truncated");
        assert_eq!(p, before);
    }

    #[test]
    fn an_answer_exactly_at_the_budget_with_its_mark_is_not_cut_and_one_byte_less_is() {
        let before = page(5);
        let mut marked = before.clone();
        marked.insert("payload_truncated".into(), json!(false));
        let exact = serialised_len(&marked);
        let p = fitted(&before, exact);
        assert_eq!((p["payload_truncated"].clone(), p["results"].as_array().unwrap().len()), (json!(false), 5));
        assert_eq!(serialised_len(&p), exact, "the mark counted as it is sent");
        let p = fitted(&before, exact - 1);
        assert_eq!(p["payload_truncated"], json!(true));
        assert!(p["results"].as_array().unwrap().len() < 5);
    }

    #[test]
    fn an_answer_over_budget_drops_tail_rows_and_pages_on_from_the_first_dropped() {
        let p = fitted(&page(50), 2_000);
        assert!(serialised_len(&page(50)) > 5_000, "the page was over budget");
        let kept = p["results"].as_array().unwrap().len();
        assert!(kept > 0 && kept < 50, "{kept}");
        assert_eq!(p["results"][0]["id"], "row-0", "rows go from the end");
        assert_eq!(p["payload_truncated"], json!(true));
        assert_eq!(p["truncation"]["dropped"]["/results"], json!(50 - kept));
        assert_eq!(p["next_offset"], json!(10 + kept), "the next page starts at the first dropped row");
        assert_eq!(p["has_more"], json!(true));
        assert_eq!(p["total"], json!(60), "totals still describe the whole result");
        assert!(serialised_len(&p) <= 2_000, "the answer with its marks fits");
        assert_eq!(p["truncation"]["fits_budget"], json!(true));
    }

    #[test]
    fn an_answer_that_cannot_fit_says_so() {
        let p = fitted(json!({"text": "x".repeat(5_000), "results": []}).as_object().unwrap(), 1_000);
        assert_eq!(p["payload_truncated"], json!(false));
        assert_eq!(p["truncation"]["fits_budget"], json!(false));
    }
}
