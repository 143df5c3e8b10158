//! The names the sources are catalogued under, and the rii toc entry later stages read back
//! from a toc item's `extra` JSON.

use serde::{Deserialize, Serialize};

/// gesetze-im-internet.de: federal statutes.
pub const GII: &str = "gii";
/// rechtsprechung-im-internet.de: federal court decisions.
pub const RII: &str = "rii";
/// Open Legal Data case dumps.
pub const OLDP: &str = "oldp";

/// The per-decision metadata the rii toc gives (stored as the toc item's `extra` JSON).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiiTocEntry {
    pub gericht: String,
    pub entsch_datum: String,
    pub aktenzeichen: String,
    pub link: String,
    pub modified: String,
}
