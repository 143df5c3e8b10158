//! Decision metadata: file numbers of joined proceedings, dates with a confidence, ECLI
//! agreement, document types. Values are kept as given and flagged, never invented; court
//! canonicalisation is not done here (the raw court fields are passed on).

use super::{DecisionMeta, OldpRecord};

/// Metadata found inside the content (gesetze-bayern XML) or rii XML fields.
#[derive(Debug, Default, Clone)]
pub(crate) struct Extra {
    pub chamber: Option<String>,
    pub norms: Option<String>,
    pub doktyp: Option<String>,
    pub court: Option<String>,
    pub date: Option<String>,
    pub file_number: Option<String>,
    pub ecli: Option<String>,
    pub title: Option<String>,
}

/// NBSP and runs of whitespace → one space; trimmed.
pub(crate) fn normal_spaces(s: &str) -> String {
    s.split(|c: char| c.is_whitespace()).filter(|t| !t.is_empty()).collect::<Vec<_>>().join(" ")
}

fn non_empty(s: Option<&str>) -> Option<String> {
    s.map(normal_spaces).filter(|s| !s.is_empty())
}

/// Splits a file-number field into all numbers of a joined proceeding (`2 BvQ 53/18, 2 BvQ
/// 54/18`, `C-39/05 P und C-52/05 P`). A parenthesised part that is itself a file number
/// (`I R 49/21 (I R 39/10)`, the old number) becomes a second number with a note; other
/// parentheses (`(B)`, `(2)`, `(Berichtigung)`) stay part of the number.
pub fn split_file_numbers(raw: &str) -> (Vec<String>, Vec<String>) {
    let s = normal_spaces(raw);
    let mut out: Vec<String> = Vec::new();
    let mut notes = Vec::new();
    let parts = s.split([',', ';']).flat_map(|p| p.split(" und ")).flat_map(|p| p.split(" u. "));
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        if let Some(open) = part.find('(')
            && part.ends_with(')')
        {
            let outer = part[..open].trim();
            let inner = part[open + 1..part.len() - 1].trim();
            if !outer.is_empty() && looks_like_file_number(inner) {
                out.push(outer.to_string());
                out.push(inner.to_string());
                notes.push(format!("file_number_in_parentheses_split: {inner}"));
                continue;
            }
        }
        out.push(part.to_string());
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|x| seen.insert(x.clone()));
    (out, notes)
}

/// `I R 39/10`, `7 C 2.11`: a register part, a space, and a number with `/` or `.`.
fn looks_like_file_number(s: &str) -> bool {
    s.contains(' ')
        && s.chars().any(|c| c.is_ascii_digit())
        && s.split_whitespace()
            .last()
            .is_some_and(|t| t.contains(['/', '.']) && t.starts_with(|c: char| c.is_ascii_digit()))
}

/// Normalised document type; unknown types are kept as given.
pub fn normalise_document_type(raw: &str) -> Option<String> {
    let t = normal_spaces(raw);
    if t.is_empty() {
        return None;
    }
    let l = t.to_lowercase();
    let l = l.trim_end_matches('.');
    let exact = match l {
        "bes" | "beschl" | "b" => Some("Beschluss"),
        "urt" | "u" | "endurteil" => Some("Urteil"),
        "gb" | "gerbes" => Some("Gerichtsbescheid"),
        _ => None,
    };
    if let Some(e) = exact {
        return Some(e.to_string());
    }
    for (prefix, canon) in [
        ("vorlagebeschluss", "Vorlagebeschluss"),
        ("hinweisbeschluss", "Hinweisbeschluss"),
        ("beweisbeschluss", "Beweisbeschluss"),
        ("nichtannahmebeschluss", "Nichtannahmebeschluss"),
        ("teilurteil", "Teilurteil"),
        ("versäumnisurteil", "Versäumnisurteil"),
        ("anerkenntnisurteil", "Anerkenntnisurteil"),
        ("schlussurteil", "Schlussurteil"),
        ("zwischenurteil", "Zwischenurteil"),
        ("endurteil", "Urteil"),
    ] {
        if l.starts_with(prefix) {
            return Some(canon.to_string());
        }
    }
    if l.contains("gerichtsbescheid") {
        return Some("Gerichtsbescheid".into());
    }
    if l.contains("beschluss") || l.contains("einstweilige anordnung") {
        // BVerfG's rii doktyp "Ablehnung einstweilige Anordnung" is a Beschluss.
        return Some("Beschluss".into());
    }
    if l.contains("urteil") {
        return Some("Urteil".into());
    }
    Some(t)
}

/// `YYYY-MM-DD…`, `YYYYMMDD` or `DD.MM.YYYY` → (year, month, day).
fn parse_date(raw: &str) -> Option<(i32, u32, u32)> {
    let s = raw.trim();
    let num = |t: &str| t.parse::<u32>().ok();
    if s.len() >= 10 && s.as_bytes()[4] == b'-' && s.as_bytes()[7] == b'-' {
        // `get`: a non-ASCII character after the day must not split a code point.
        return Some((s.get(..4)?.parse().ok()?, num(s.get(5..7)?)?, num(s.get(8..10)?)?));
    }
    if s.len() == 8 && s.bytes().all(|b| b.is_ascii_digit()) {
        return Some((s[..4].parse().ok()?, num(&s[4..6])?, num(&s[6..8])?));
    }
    let p: Vec<&str> = s.split('.').collect();
    if p.len() == 3 && p[2].len() == 4 {
        return Some((p[2].parse().ok()?, num(p[1])?, num(p[0])?));
    }
    None
}

fn days_in_month(y: i32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => 0,
    }
}

fn current_year() -> i32 {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    1970 + (secs / 31_556_952) as i32
}

/// (ISO date, confidence, notes). Implausible dates are kept and flagged.
fn check_date(raw: Option<&str>, quirks: &[String]) -> (Option<String>, String, Vec<String>) {
    let Some(raw) = raw.map(str::trim).filter(|s| !s.is_empty()) else {
        return (None, "missing".into(), vec![]);
    };
    let Some((y, m, d)) = parse_date(raw) else {
        return (None, "suspicious".into(), vec![format!("date_unparseable: {raw}")]);
    };
    let iso = format!("{y:04}-{m:02}-{d:02}");
    let mut notes = Vec::new();
    if m == 0 || m > 12 || d == 0 || d > days_in_month(y, m) {
        notes.push("date_suspicious: not a calendar date".to_string());
    } else if y < 1900 || y > current_year() {
        notes.push(format!("date_suspicious: year {y} out of range"));
    } else if (m, d) == (1, 1) || (m == 12 && (d == 25 || d == 26)) {
        notes.push("date_suspicious: a public holiday (placeholder?)".to_string());
    }
    if let Some(q) = quirks.iter().find(|q| q.starts_with("date_suspicious")) {
        notes.push(format!("date_suspicious: source says {q}"));
    }
    let conf = if notes.is_empty() { "exact" } else { "suspicious" };
    (Some(iso), conf.into(), notes)
}

fn ecli_year(ecli: &str) -> Option<i32> {
    let y = ecli.split(':').nth(3)?;
    (y.len() == 4).then(|| y.parse().ok()).flatten()
}

fn build(
    mut m: DecisionMeta,
    date_raw: Option<&str>,
    file_number_raw: Option<&str>,
    doc_type_raw: Option<&str>,
    quirks: &[String],
) -> DecisionMeta {
    let (date, conf, notes) = check_date(date_raw, quirks);
    m.date_raw = non_empty(date_raw);
    m.date = date;
    m.date_confidence = conf;
    m.notes.extend(notes);
    m.file_number_raw = file_number_raw.map(str::to_string).filter(|s| !s.trim().is_empty());
    if let Some(raw) = &m.file_number_raw {
        let (nums, notes) = split_file_numbers(raw);
        m.file_numbers = nums;
        m.notes.extend(notes);
    }
    m.document_type_raw = non_empty(doc_type_raw);
    m.document_type = m.document_type_raw.as_deref().and_then(normalise_document_type);
    m.ecli_date_agrees = match (m.ecli.as_deref().and_then(ecli_year), m.date.as_deref()) {
        (Some(ey), Some(d)) => d.get(..4).and_then(|y| y.parse::<i32>().ok()).map(|y| y == ey),
        _ => None,
    };
    if m.ecli_date_agrees == Some(false) {
        m.notes.push("ecli_date_disagrees_with_source".into());
    }
    m
}

fn source_str(rec: &OldpRecord, key: &str) -> Option<String> {
    rec.source.as_ref()?.get(key)?.as_str().map(normal_spaces).filter(|s| !s.is_empty())
}

pub(crate) fn from_oldp(rec: &OldpRecord, _text: &str, format: &str, extra: Extra) -> DecisionMeta {
    let court = rec.court.clone().unwrap_or_default();
    // "unbekannt (…)" is the dump's placeholder, not a court: the content's own court wins.
    let given = non_empty(court.name.as_deref()).filter(|n| !n.to_lowercase().starts_with("unbekannt"));
    let mut notes = Vec::new();
    if given.is_none() && extra.court.is_some() {
        notes.push(format!("court_name_from_content (record: {})", court.name.as_deref().unwrap_or("none")));
    }
    let m = DecisionMeta {
        court_name_raw: given.or(extra.court).or_else(|| non_empty(court.name.as_deref())),
        notes,
        court_jurisdiction_raw: non_empty(court.jurisdiction.as_deref()),
        court_level_raw: non_empty(court.level_of_appeal.as_deref()),
        court_state_raw: non_empty(court.state.as_deref()),
        chamber: extra
            .chamber
            .or_else(|| source_str(rec, "court_chamber"))
            .or_else(|| source_str(rec, "spruchkoerper")),
        ecli: non_empty(rec.ecli.as_deref()).or(extra.ecli),
        title: non_empty(rec.title.as_deref()).or(extra.title),
        norms_raw: extra.norms.or_else(|| source_str(rec, "norm")),
        source_format: format.to_string(),
        ..Default::default()
    };
    let date = rec.date.as_deref().filter(|s| !s.trim().is_empty()).or(extra.date.as_deref());
    let fnum = rec.file_number.as_deref().filter(|s| !s.trim().is_empty()).or(extra.file_number.as_deref());
    let dtype = rec.type_.as_deref().filter(|s| !s.trim().is_empty()).or(extra.doktyp.as_deref());
    build(m, date, fnum, dtype, &rec.quirks)
}

pub(crate) fn from_rii(f: &Extra, _text: &str) -> DecisionMeta {
    let m = DecisionMeta {
        court_name_raw: f.court.clone(),
        chamber: f.chamber.clone(),
        ecli: f.ecli.clone(),
        title: f.title.clone(),
        norms_raw: f.norms.clone(),
        source_format: "rii-xml".into(),
        ..Default::default()
    };
    build(m, f.date.as_deref(), f.file_number.as_deref(), f.doktyp.as_deref(), &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_numbers_of_joined_proceedings() {
        assert_eq!(split_file_numbers("VI\u{a0}ZR\u{a0}194/17").0, ["VI ZR 194/17"]);
        let (n, notes) = split_file_numbers("I R 49/21 (I R 39/10)");
        assert_eq!(n, ["I R 49/21", "I R 39/10"]);
        assert_eq!(notes.len(), 1);
        assert_eq!(split_file_numbers("8 AZR 209/21 (B)").0, ["8 AZR 209/21 (B)"]);
        assert_eq!(split_file_numbers("15 P 4/06 (Berichtigung)").0, ["15 P 4/06 (Berichtigung)"]);
        assert_eq!(
            split_file_numbers("C-514/07 P, C-528/07 P und C-532/07 P").0,
            ["C-514/07 P", "C-528/07 P", "C-532/07 P"]
        );
    }

    #[test]
    fn document_types() {
        assert_eq!(normalise_document_type("Bes").as_deref(), Some("Beschluss"));
        assert_eq!(normalise_document_type("Endurteil").as_deref(), Some("Urteil"));
        assert_eq!(
            normalise_document_type("Vorlagebeschluss des Fachsenats (\"in-camera\"-Verfahren)").as_deref(),
            Some("Vorlagebeschluss")
        );
        assert_eq!(normalise_document_type("Ablehnung einstweilige Anordnung").as_deref(), Some("Beschluss"));
        assert_eq!(normalise_document_type(" ").as_deref(), None);
    }

    #[test]
    fn dates_are_kept_and_flagged() {
        assert_eq!(check_date(Some("2018-08-22"), &[]).1, "exact");
        assert_eq!(check_date(Some("20180822"), &[]).0.as_deref(), Some("2018-08-22"));
        let (d, c, _) = check_date(Some("2019-01-01"), &[]);
        assert_eq!((d.as_deref(), c.as_str()), (Some("2019-01-01"), "suspicious"));
        assert_eq!(check_date(Some("2019-02-30"), &[]).1, "suspicious");
        assert_eq!(check_date(Some("2019-01-0ä"), &[]).1, "suspicious");
        assert_eq!(check_date(None, &[]).1, "missing");
        assert_eq!(check_date(Some("2019-01-02"), &["date_suspicious_placeholder".into()]).1, "suspicious");
    }
}
