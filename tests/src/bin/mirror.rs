//! `mirror`: serve directories as a loopback copy of a source site (e.g. `../shared/data/gii`
//! as gesetze-im-internet.de), with ETag/Last-Modified and 304s like the real site.

use std::path::PathBuf;

use clap::Parser;

#[derive(Parser)]
struct Args {
    /// Document roots; the first holding a path wins.
    #[arg(long = "root", required = true)]
    roots: Vec<PathBuf>,
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: std::net::SocketAddr,
    /// Write the base URL to this file once listening.
    #[arg(long)]
    url_file: Option<PathBuf>,
}

fn main() {
    let args = Args::parse();
    assert!(args.addr.ip().is_loopback(), "the mirror binds to loopback addresses only");
    let mirror = legal_tests::Mirror::start_on(args.roots, args.addr);
    let url = mirror.base_url();
    if let Some(f) = &args.url_file {
        std::fs::write(f, &url).expect("write url file");
    }
    println!("mirror: serving on {url}");
    loop {
        std::thread::park();
    }
}
