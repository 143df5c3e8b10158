//! Values computed once per generation from its store (a prior, a column of every decision,
//! the court rows) and kept while that generation serves.

use crate::contract::answer::ToolError;
use index::Generation;
use std::sync::{Arc, Mutex};

/// One value per generation, kept for the two newest generations asked: during a swap, requests
/// on the old and the new one interleave and must not rebuild each other's value every time.
/// A value is built outside the lock, so a slow build blocks no other request.
pub(crate) struct PerGeneration<T> {
    kept: Mutex<Vec<(String, Arc<T>)>>,
}

impl<T> PerGeneration<T> {
    pub(crate) const fn new() -> PerGeneration<T> {
        PerGeneration { kept: Mutex::new(Vec::new()) }
    }

    /// The value of `g`, built by `load` on first use.
    pub(crate) fn get(
        &self,
        g: &Generation,
        load: impl FnOnce(&Generation) -> Result<T, ToolError>,
    ) -> Result<Arc<T>, ToolError> {
        if let Some((_, v)) = self.kept.lock().unwrap_or_else(|e| e.into_inner()).iter().find(|(id, _)| *id == g.id) {
            return Ok(v.clone());
        }
        let v = Arc::new(load(g)?);
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|(id, _)| *id != g.id);
        kept.push((g.id.clone(), v.clone()));
        if kept.len() > 2 {
            kept.remove(0);
        }
        Ok(v)
    }
}
