//! `gen-corpus`: a synthetic decision corpus of any size, reproducible from a seed, for the
//! scale benchmark (`make bench-scale`) and the scale tests. It writes an Open Legal Data dump
//! (gzip JSON lines) of N decisions recombined from the shared real records:
//!
//! - each decision takes its court and the shape of its file number from a real record whose
//!   court the court table knows by a citation name (`BVerwG`, `VG Berlin`), gets a unique
//!   file number (serial 100000 + index), a date that grows with its index (2000–2024), an
//!   ECLI for every fifth one, and a text of 2–4 runs of paragraphs of real plain-text records;
//! - between the runs stand 4 case citations of earlier decisions of the corpus, printed as
//!   `{court}, Urteil vom {dd.mm.yyyy} - {file number} -`, which `resolve` binds (about 4
//!   resolvable citations per decision; the first few decisions cite fewer);
//! - `--change-fraction F` gives the same corpus with a deterministic fraction F of the
//!   decisions changed by one added sentence (the nightly "1% changed" input);
//!   `--nights K` applies K such nights one after the other (each changes its own fraction,
//!   the earlier nights' sentences stay), for a run of nightly generations.
//!
//! Streaming: every decision is a pure function of (seed, index) and the source records, so
//! memory does not grow with N. The PRNG is splitmix64, written here, so a seed gives the same
//! corpus with any version of any crate.

use std::io::{BufWriter, Read, Write};
use std::path::PathBuf;

use clap::Parser;
use serde_json::{Value, json};

#[derive(Parser)]
#[command(about = "Write a synthetic Open Legal Data dump of N decisions recombined from the shared real records")]
struct Args {
    /// Number of decisions.
    #[arg(long)]
    n: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output file (gzip JSON lines).
    #[arg(long)]
    out: PathBuf,
    /// The real records to recombine (default: ../shared/data/decisions/corpus.oldp.jsonl.gz).
    #[arg(long)]
    source: Option<PathBuf>,
    /// Change this fraction of the decisions (one added sentence each), the rest identical.
    #[arg(long, default_value_t = 0.0)]
    change_fraction: f64,
    /// How many nights of changes to apply, each to its own draw of decisions.
    #[arg(long, default_value_t = 1)]
    nights: u64,
}

/// splitmix64: one 64-bit state, one multiply-xorshift per draw.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A reproducible stream of draws for one (seed, index, purpose).
struct Draws(u64);

impl Draws {
    fn new(seed: u64, index: u64, purpose: u64) -> Draws {
        Draws(mix(mix(seed) ^ mix(index.wrapping_mul(0x2545_f491_4f6c_dd1d)) ^ purpose))
    }
    fn next(&mut self) -> u64 {
        self.0 = mix(self.0);
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A real record whose court and file-number shape a synthetic decision borrows.
struct Template {
    court: Value,
    citation_name: String,
    ecli_code: Option<String>,
    /// `7 C` of `7 C 12.14`, and the separator before the year (`.` or `/`).
    prefix: String,
    separator: char,
}

/// `7 C 12.14` → (`7 C`, `.`): a chamber, a Registerzeichen, a serial and a two-digit year.
fn file_number_shape(f: &str) -> Option<(String, char)> {
    let parts: Vec<&str> = f.split_whitespace().collect();
    let [chamber, register, last] = parts.as_slice() else { return None };
    let sep = last.chars().find(|c| *c == '.' || *c == '/')?;
    let (serial, year) = last.split_once(sep)?;
    let ok = chamber.chars().all(|c| c.is_ascii_alphanumeric())
        && register.chars().all(|c| c.is_alphabetic())
        && serial.chars().all(|c| c.is_ascii_digit())
        && year.len() == 2
        && year.chars().all(|c| c.is_ascii_digit());
    ok.then(|| (format!("{chamber} {register}"), sep))
}

/// Everything the generator holds: the source records' templates and text paragraphs.
struct Sources {
    templates: Vec<Template>,
    /// Paragraphs of the real plain-text records, per record.
    texts: Vec<Vec<String>>,
}

fn read_sources(path: &PathBuf) -> Sources {
    let f = std::fs::File::open(path).unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    let mut s = String::new();
    flate2::read::MultiGzDecoder::new(f).read_to_string(&mut s).expect("a gzip JSON-lines dump");
    let table = extract::courts::CourtTable::shipped();
    let (mut templates, mut texts) = (Vec::new(), Vec::new());
    for line in s.lines() {
        let Ok(r) = serde_json::from_str::<Value>(line) else { continue };
        let content = r["content"].as_str().unwrap_or("");
        if r["content_format"].as_str().is_some_and(|f| f.starts_with("text/plain")) && content.len() > 2_000 {
            let paras: Vec<String> = content
                .split("\n\n")
                .map(|p| p.trim().replace(|c: char| c.is_control() && c != '\n', " "))
                .filter(|p| p.len() > 40)
                .collect();
            if paras.len() >= 4 {
                texts.push(paras);
            }
        }
        let (Some(name), Some(fnum)) = (r["court"]["name"].as_str(), r["file_number"].as_str()) else { continue };
        let Some(court) = table.canonical(name).filter(|c| c.in_reference_table) else { continue };
        let (Some(citation_name), Some((prefix, separator))) = (court.citation_name.clone(), file_number_shape(fnum))
        else {
            continue;
        };
        templates.push(Template {
            court: r["court"].clone(),
            citation_name,
            ecli_code: court.ecli_code.clone(),
            prefix,
            separator,
        });
    }
    assert!(!templates.is_empty() && !texts.is_empty(), "no usable source records in {}", path.display());
    Sources { templates, texts }
}

/// What a decision is cited by: computed from (seed, index) alone.
struct Identity {
    template: usize,
    file_number: String,
    /// (year, month, day)
    date: (u32, u32, u32),
}

const DAYS: u64 = 24 * 365;

fn identity(src: &Sources, seed: u64, n: u64, i: u64) -> Identity {
    let mut d = Draws::new(seed, i, 1);
    let template = d.below(src.templates.len() as u64) as usize;
    // Dates grow with the index, so every citation of an earlier index cites an earlier (or
    // same-day) decision and is never withheld as a forward date.
    let day = i * DAYS / n.max(1);
    let (year, rest) = (2000 + (day / 365) as u32, (day % 365) as u32);
    let date = (year, rest / 31 + 1, (rest % 31).min(27) + 1);
    let t = &src.templates[template];
    // Unique: within one year's indices (fewer than 90,000 for N up to about 2 million) the
    // serial does not repeat. Five digits: the scanner reads no longer serials.
    let file_number = format!("{} {}{}{:02}", t.prefix, 10_000 + i % 90_000, t.separator, year % 100);
    Identity { template, file_number, date }
}

fn iso((y, m, d): (u32, u32, u32)) -> String {
    format!("{y:04}-{m:02}-{d:02}")
}

/// `changed`: the nights (1, 2, …) that changed this decision.
fn decision(src: &Sources, seed: u64, n: u64, i: u64, changed: &[u64]) -> Value {
    let me = identity(src, seed, n, i);
    let t = &src.templates[me.template];
    let mut d = Draws::new(seed, i, 2);
    let runs = 2 + d.below(3) as usize;
    let mut text = String::new();
    for run in 0..runs {
        let paras = &src.texts[d.below(src.texts.len() as u64) as usize];
        let start = d.below(paras.len() as u64 / 2) as usize;
        let mut taken = 0usize;
        for p in &paras[start..] {
            if taken > 9_000 {
                break;
            }
            text.push_str(p);
            text.push_str("\n\n");
            taken += p.len();
        }
        // Citations of earlier decisions between the runs: 4 in all.
        let per_run = if run + 1 == runs { 4 - (runs - 1) * (4 / runs) } else { 4 / runs };
        for _ in 0..per_run {
            if i == 0 {
                break;
            }
            let cited = identity(src, seed, n, d.below(i));
            let (y, m, day) = cited.date;
            text.push_str(&format!(
                "Vgl. {}, Urteil vom {day:02}.{m:02}.{y:04} - {} -.\n\n",
                src.templates[cited.template].citation_name, cited.file_number
            ));
        }
    }
    for &night in changed {
        if night == 1 {
            text.push_str("Ergänzend wird auf § 823 Abs. 1 BGB verwiesen.\n");
        } else {
            text.push_str(&format!("Nachtrag {night}: ergänzend wird auf § 839 BGB verwiesen.\n"));
        }
    }
    let (y, m, day) = me.date;
    let ecli = t.ecli_code.as_ref().filter(|_| i.is_multiple_of(5)).map(|code| {
        let fnum = me.file_number.replace([' ', '/'], ".");
        format!("ECLI:DE:{code}:{y:04}:{day:02}{m:02}{:02}U{fnum}.0", y % 100)
    });
    json!({
        "id": i + 1,
        "slug": format!("synthetic-{}", i + 1),
        "court": t.court,
        "file_number": me.file_number,
        "date": iso(me.date),
        "type": "Urteil",
        "ecli": ecli,
        "content": text.trim_end(),
        "content_format": "text/plain",
    })
}

fn main() {
    let a = Args::parse();
    let source =
        a.source.clone().unwrap_or_else(|| legal_tests::shared_dir().join("data/decisions/corpus.oldp.jsonl.gz"));
    let src = read_sources(&source);
    let file = std::fs::File::create(&a.out).unwrap_or_else(|e| panic!("cannot create {}: {e}", a.out.display()));
    let mut gz = flate2::write::GzEncoder::new(BufWriter::with_capacity(1 << 20, file), flate2::Compression::fast());
    let threshold = (a.change_fraction.clamp(0.0, 1.0) * 1e6) as u64;
    let mut changed = 0u64;
    for i in 0..a.n {
        // Night 1 draws from stream 3 (as before nights existed), night k from stream 2 + k.
        let nights: Vec<u64> =
            (1..=a.nights).filter(|k| Draws::new(a.seed, i, 2 + k).below(1_000_000) < threshold).collect();
        changed += u64::from(!nights.is_empty());
        serde_json::to_writer(&mut gz, &decision(&src, a.seed, a.n, i, &nights)).expect("write record");
        gz.write_all(b"\n").expect("write record");
    }
    gz.finish().and_then(|mut w| w.flush()).expect("finish the dump");
    eprintln!("gen-corpus: {} decisions (seed {}), {changed} changed, into {}", a.n, a.seed, a.out.display());
}
