//! `coverage-map`: check and print the coverage map (exit 1 if it does not parse).

fn main() {
    match coverage_map::parse(coverage_map::COVERAGE_JSON) {
        Ok(m) => {
            for b in &m.buckets {
                println!(
                    "{}\t{}\t{}..{}\texhaustive={}\t{}",
                    b.bucket,
                    b.court.as_deref().unwrap_or("-"),
                    b.from.as_deref().unwrap_or("open"),
                    b.until.as_deref().unwrap_or("open"),
                    b.exhaustive,
                    b.label
                );
            }
            println!("coverage-map: {} buckets, as of {}", m.buckets.len(), m.as_of);
        }
        Err(e) => {
            eprintln!("coverage-map: invalid: {e:#}");
            std::process::exit(1);
        }
    }
}
