//! One zstd frame decompressed into a buffer of the size its header records, with one
//! decompression context per thread: extract's record cache and index's decision bodies
//! (`index::text_packs`) are read so, a frame at a time, hundreds of thousands of times a run.
//!
//! Why not `zstd::stream::decode_all`: it makes a context per call and grows its buffer as it
//! goes; a context cost more than decoding a decision body.

use anyhow::{Context, Result, bail};

thread_local! {
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// The bytes of `frame` (written by `zstd::bulk::compress`, which records the size). A frame
/// that records no size, or claims more than `max_bytes` (damage: refused before anything is
/// allocated), or does not decode is an error naming `what` it was.
pub fn decompress(frame: &[u8], max_bytes: usize, what: &str) -> Result<Vec<u8>> {
    let size = zstd::bulk::Decompressor::upper_bound(frame).with_context(|| format!("{what} frame records no size"))?;
    if size > max_bytes {
        bail!("{what} frame claims {size} bytes (damaged?)");
    }
    DECOMPRESSOR.with(|cell| {
        let mut cell = cell.borrow_mut();
        if cell.is_none() {
            *cell = Some(zstd::bulk::Decompressor::new()?);
        }
        let d = cell.as_mut().expect("set above");
        d.decompress(frame, size).with_context(|| format!("decompressing {what}"))
    })
}
