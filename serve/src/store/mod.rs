//! The store layer: typed rows of a generation's `store.sqlite` (decisions, laws and sections,
//! courts, citation edges) and the look-ups that read them. It imports only the contract.

pub mod courts;
pub mod decisions;
pub(crate) mod kept;
pub mod laws;

/// A column holding a closed set's spelling (null = not recorded). A spelling the set does not
/// know is a defect of the build, refused with the column named rather than passed on.
pub(crate) fn closed_column<T: model::ClosedSet>(r: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<Option<T>> {
    let Some(s) = r.get::<_, Option<String>>(index)? else { return Ok(None) };
    match T::all().iter().find(|v| v.as_str() == s) {
        Some(v) => Ok(Some(*v)),
        None => Err(rusqlite::Error::FromSqlConversionFailure(
            index,
            rusqlite::types::Type::Text,
            format!("{s:?} is not a {} spelling", T::SET_NAME).into(),
        )),
    }
}
