//! The legal-register dictionary's provenance check: each entry names the § whose heading or
//! text carries its legal terms (`serve/data/legal-register.tsv`), and a running server must
//! show that § holding them.

use serde_json::{Value, json};

use crate::http::Client;

/// What [`check_register_sources`] found.
#[derive(Debug, Default)]
pub struct RegisterCheck {
    /// Entries whose § the server holds (and so were checked).
    pub checked: usize,
    /// Entries naming a law the server does not hold (`book_not_found`): not checked.
    pub law_not_held: Vec<String>,
    /// `source: term (entry)` for each legal term the named § does not hold.
    pub terms_missing: Vec<String>,
}

/// Checks every entry of the shipped dictionary against the server at `base_url`: the named §
/// must exist and hold each word (4 letters or more) of the entry's legal terms, as its stem-like
/// head (all but the last three letters, at least four; lower case, umlauts folded) in its
/// heading, breadcrumb or text.
pub fn check_register_sources(base_url: &str) -> RegisterCheck {
    let tsv = std::fs::read_to_string(crate::workspace_root().join("serve/data/legal-register.tsv"))
        .expect("serve/data/legal-register.tsv");
    let c = Client::new();
    let mut out = RegisterCheck::default();
    for line in tsv.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (legal, source) = (cols[1], cols[2]);
        let (section, book) = source
            .split_once(' ')
            .and_then(|(_, rest)| rest.split_once(' '))
            .unwrap_or_else(|| panic!("source {source:?} is not `§ N CODE` or `Art. N CODE`"));
        let unit = if source.starts_with("Art.") { format!("Art. {section}") } else { section.to_string() };
        let url = format!("{base_url}/api/tools/get_law_section");
        let (status, body) = c.post(&url, "application/json", json!({"book": book, "section": unit}).to_string());
        let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{source}: not JSON ({e}): {body}"));
        if status != 200 {
            assert_eq!(v["error_code"], json!("book_not_found"), "{source}: {v}");
            out.law_not_held.push(source.to_string());
            continue;
        }
        out.checked += 1;
        let s = &v["section"];
        let hay = extract::courts::fold(&format!("{} {} {}", s["heading"], s["breadcrumb"], v["content"]));
        for word in legal.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() >= 4) {
            let w = extract::courts::fold(word);
            let n = w.chars().count().saturating_sub(3).max(4);
            let head: String = w.chars().take(n).collect();
            if !hay.contains(&head) {
                out.terms_missing.push(format!("{source}: {word:?} (entry {:?})", cols[0]));
            }
        }
    }
    out
}
