//! Text of a table of contents (gii, rii), decoded so that one odd entity cannot stop a crawl.
//!
//! quick-xml knows only XML's five entities and refuses any other, so a single `&nbsp;` in one
//! toc title used to fail the whole toc. Here a reference is resolved in this order: character
//! references (`&#228;`, `&#xE4;`), XML's five, entities the toc declares in its DOCTYPE's
//! internal subset, then the HTML entities the sites' editors use. One that is none of these
//! stays in the text exactly as written and is reported, so the item is kept and the oddity is
//! recorded.

use std::collections::HashMap;

/// Entities of a toc: the ones its DOCTYPE declares (`<!ENTITY name "value">`).
#[derive(Debug, Default, Clone)]
pub struct TocEntities {
    declared: HashMap<String, String>,
}

impl TocEntities {
    /// Reads the entity declarations of a DOCTYPE's text (what follows `<!DOCTYPE`).
    pub fn from_doctype(doctype: &str) -> TocEntities {
        let mut declared = HashMap::new();
        let mut rest = doctype;
        while let Some(i) = rest.find("<!ENTITY") {
            rest = &rest[i + "<!ENTITY".len()..];
            let decl = rest.trim_start();
            let name: String = decl.chars().take_while(|c| !c.is_whitespace()).collect();
            // Parameter entities (`<!ENTITY % x …>`) never appear in text; skip them.
            if name.is_empty() || name == "%" {
                continue;
            }
            let after = decl[name.len()..].trim_start();
            let Some(quote) = after.chars().next().filter(|c| *c == '"' || *c == '\'') else {
                continue; // an external entity (SYSTEM/PUBLIC): its text is not here
            };
            if let Some(end) = after[1..].find(quote) {
                let raw = &after[1..1 + end];
                // A declared value may itself use character references (`"&#160;"`).
                let (value, _) = TocEntities::default().decode(raw);
                declared.insert(name, value);
            }
        }
        TocEntities { declared }
    }

    /// Decodes the entity and character references of raw toc text. Returns the text and the
    /// references that could not be resolved (they stay in the text as written).
    pub fn decode(&self, raw: &str) -> (String, Vec<String>) {
        let mut out = String::with_capacity(raw.len());
        let mut unknown = Vec::new();
        let mut rest = raw;
        while let Some(amp) = rest.find('&') {
            out.push_str(&rest[..amp]);
            let after = &rest[amp + 1..];
            let end = after.find(';').filter(|&e| e > 0 && e <= 32 && !after[..e].contains(['&', '<', ' ']));
            let Some(end) = end else {
                // A bare `&`: not a reference; kept and reported.
                unknown.push("&".to_string());
                out.push('&');
                rest = after;
                continue;
            };
            let name = &after[..end];
            match self.resolve(name) {
                Some(text) => out.push_str(&text),
                None => {
                    unknown.push(format!("&{name};"));
                    out.push('&');
                    out.push_str(name);
                    out.push(';');
                }
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        (out, unknown)
    }

    fn resolve(&self, name: &str) -> Option<String> {
        if let Some(num) = name.strip_prefix('#') {
            let code = match num.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => num.parse().ok()?,
            };
            return char::from_u32(code).filter(|c| *c != '\0').map(String::from);
        }
        if let Some(v) = self.declared.get(name) {
            return Some(v.clone());
        }
        html_entity(name).map(String::from)
    }
}

/// XML's five and the HTML named entities found in German legal texts and their tables of contents.
fn html_entity(name: &str) -> Option<&'static str> {
    Some(match name {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        "nbsp" => "\u{a0}",
        "shy" => "\u{ad}",
        "ensp" => "\u{2002}",
        "emsp" => "\u{2003}",
        "thinsp" => "\u{2009}",
        "zwnj" => "\u{200c}",
        "zwj" => "\u{200d}",
        "lrm" => "\u{200e}",
        "rlm" => "\u{200f}",
        "auml" => "ä",
        "ouml" => "ö",
        "uuml" => "ü",
        "Auml" => "Ä",
        "Ouml" => "Ö",
        "Uuml" => "Ü",
        "szlig" => "ß",
        "aacute" => "á",
        "agrave" => "à",
        "acirc" => "â",
        "eacute" => "é",
        "egrave" => "è",
        "ecirc" => "ê",
        "iacute" => "í",
        "oacute" => "ó",
        "ocirc" => "ô",
        "uacute" => "ú",
        "ccedil" => "ç",
        "ntilde" => "ñ",
        "Eacute" => "É",
        "sect" => "§",
        "para" => "¶",
        "ndash" => "–",
        "mdash" => "—",
        "hellip" => "…",
        "bdquo" => "„",
        "ldquo" => "“",
        "rdquo" => "”",
        "sbquo" => "‚",
        "lsquo" => "‘",
        "rsquo" => "’",
        "laquo" => "«",
        "raquo" => "»",
        "lsaquo" => "‹",
        "rsaquo" => "›",
        "euro" => "€",
        "cent" => "¢",
        "pound" => "£",
        "yen" => "¥",
        "copy" => "©",
        "reg" => "®",
        "trade" => "™",
        "deg" => "°",
        "middot" => "·",
        "bull" => "•",
        "times" => "×",
        "divide" => "÷",
        "plusmn" => "±",
        "frac12" => "½",
        "frac14" => "¼",
        "frac34" => "¾",
        "sup1" => "¹",
        "sup2" => "²",
        "sup3" => "³",
        "micro" => "µ",
        "ordf" => "ª",
        "ordm" => "º",
        "permil" => "‰",
        "dagger" => "†",
        "Dagger" => "‡",
        "prime" => "′",
        "Prime" => "″",
        "larr" => "←",
        "rarr" => "→",
        "harr" => "↔",
        "iexcl" => "¡",
        "iquest" => "¿",
        "acute" => "´",
        "uml" => "¨",
        "macr" => "¯",
        "cedil" => "¸",
        "not" => "¬",
        "brvbar" => "¦",
        "curren" => "¤",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_resolve_in_order_and_unknown_ones_stay_as_written() {
        let e = TocEntities::from_doctype(
            r#"items SYSTEM "gii-toc.dtd" [ <!ENTITY gii "Gesetze&#160;im Internet"> <!ENTITY % p "x"> ]"#,
        );
        let (t, unknown) = e.decode("A&nbsp;B &#228;&#xFC; &quot;&gii;&quot; &sect; 5 &foo; R&D");
        assert_eq!(t, "A\u{a0}B äü \"Gesetze\u{a0}im Internet\" § 5 &foo; R&D");
        assert_eq!(unknown, ["&foo;", "&"]);
        assert_eq!(TocEntities::default().decode("&#0;").0, "&#0;");
    }
}
