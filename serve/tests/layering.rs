//! The serve crate's layering rule, checked on its sources: each layer uses only the layers
//! below it (transports → app → tools → query → store), and every layer may use `contract`.
//! A tool family never uses another family: what two tools share lives in `query` or `store`.
//! Comment lines (doc links) are not code and are not checked.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The `crate::<layer>::<module>` paths a file's code names.
fn used_paths(text: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            let tail = &rest[at + "crate::".len()..];
            let mut parts =
                tail.split("::").map(|p| p.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or(""));
            let layer = parts.next().unwrap_or("").to_string();
            let module = parts.next().map(str::to_string).filter(|m| !m.is_empty());
            out.push((layer, module));
            rest = tail;
        }
    }
    out
}

#[test]
fn each_layer_uses_only_the_layers_below_it_and_no_tool_family_uses_another() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let allowed = |layer: &str| -> &'static [&'static str] {
        match layer {
            "contract" => &["contract"],
            "store" => &["contract", "store"],
            "query" => &["contract", "store", "query"],
            "tools" => &["contract", "store", "query", "tools"],
            "app" => &["contract", "tools", "app"],
            "transports" => &["contract", "tools", "app", "transports"],
            _ => &["contract", "store", "query", "tools", "app", "transports"],
        }
    };
    let mut checked = 0;
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap();
        let layer = rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
        let family = rel.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(f).unwrap();
        for (used, module) in used_paths(&text) {
            assert!(
                allowed(&layer).contains(&used.as_str()),
                "{}: the {layer} layer uses crate::{used}",
                rel.display()
            );
            // Tool families: only the registry (mod.rs) and output_schema name other tools.
            if layer == "tools" && used == "tools" && family != "mod" && family != "output_schema" {
                assert!(
                    module.as_deref().is_none_or(|m| m == family),
                    "{}: the tool family {family} uses crate::tools::{}",
                    rel.display(),
                    module.unwrap_or_default()
                );
            }
            checked += 1;
        }
    }
    assert!(files.len() > 20 && checked > 50, "{} files, {checked} paths", files.len());
}
