//! Closed sets: every value a status, reason, role, kind, verdict, branch or mode can take,
//! one file per family. Each set is declared with [`closed_set!`], which gives the enum
//!
//! - exactly one spelling per value (snake_case, except the abilities operators type, like
//!   `citation-check`; serde, `Display`, `FromStr` and SQLite all use it, so there is no second
//!   spelling to drift into),
//! - `ALL` / `SPELLINGS` in declaration order, from which the tools' input schemas take their
//!   `enum` lists,
//! - a deserializer that refuses an unknown spelling and names the known ones.
//!
//! Adding a value is adding one line here; every `match` over the set then tells where it
//! must be handled.

/// Declares a closed set: `enum Name { Variant => "spelling", … }` (attributes and doc
/// comments allowed on the enum and on each variant).
#[macro_export]
macro_rules! closed_set {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident => $spelling:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];
            /// Every spelling, in declaration order (`ALL` mapped through `as_str`).
            pub const SPELLINGS: &'static [&'static str] = &[$($spelling,)+];

            /// The one spelling of this value (JSON, SQLite, schemas).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $spelling,)+
                }
            }

            /// The value spelled `s`, if it is one of this set.
            pub fn parse(s: &str) -> Option<$name> {
                match s {
                    $($spelling => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl $crate::closed_sets::ClosedSet for $name {
            const SET_NAME: &'static str = stringify!($name);
            fn all() -> &'static [Self] {
                $name::ALL
            }
            fn spellings() -> &'static [&'static str] {
                $name::SPELLINGS
            }
            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::closed_sets::UnknownValue;
            fn from_str(s: &str) -> Result<$name, Self::Err> {
                $name::parse(s).ok_or_else(|| $crate::closed_sets::UnknownValue {
                    set: stringify!($name),
                    value: s.to_string(),
                    known: $name::SPELLINGS,
                })
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                struct Spelling;
                impl ::serde::de::Visitor<'_> for Spelling {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        write!(f, "one of {:?}", $name::SPELLINGS)
                    }
                    fn visit_str<E: ::serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        $name::parse(v).ok_or_else(|| E::unknown_variant(v, $name::SPELLINGS))
                    }
                }
                deserializer.deserialize_str(Spelling)
            }
        }
    };
}

/// The JSON Schema of every set: its spellings, inlined (no `$ref`), so a tool's input schema
/// lists exactly the values the deserializer accepts and its output schema exactly the values
/// an answer can carry.
#[cfg(feature = "schemars")]
mod argument_schemas {
    macro_rules! spellings_schema {
        ($($name:ident),+) => {$(
            impl ::schemars::JsonSchema for super::$name {
                fn schema_name() -> ::std::borrow::Cow<'static, str> {
                    stringify!($name).into()
                }
                fn inline_schema() -> bool {
                    true
                }
                fn json_schema(_: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                    ::schemars::json_schema!({"type": "string", "enum": super::$name::SPELLINGS})
                }
            }
        )+};
    }
    spellings_schema!(
        Ability,
        AuthMethod,
        RateBucket,
        RateTier,
        UpgradeAction,
        Branch,
        CaseCitationStatus,
        CaseKind,
        CitationRole,
        CitingSort,
        DecisionSort,
        ExpansionReason,
        ExpansionStatus,
        FacetField,
        GraphDirection,
        LawCitationStatus,
        LawPart,
        MatchMode,
        NormDropReason,
        SearchMode,
        SourceProblem,
        Verdict,
        WithheldReason
    );
}

mod access;
mod branch;
mod case_citation;
mod law_citation;
mod norm_account;
mod query_modes;
mod source_problem;
mod verdict;

pub use access::{Ability, AccessOutcome, AuthMethod, RateBucket, RateTier, TokenRefusal, UpgradeAction};
pub use branch::Branch;
pub use case_citation::{CaseCitationStatus, CaseKind, CitationRole, WithheldReason};
pub use law_citation::LawCitationStatus;
pub use norm_account::NormDropReason;
pub use query_modes::{
    CitingSort, DecisionSort, ExpansionReason, ExpansionStatus, FacetField, GraphDirection, LawPart, MatchMode,
    SearchMode,
};
pub use source_problem::SourceProblem;
pub use verdict::Verdict;

/// What every closed set offers, for code generic over the sets (schemas, tests).
pub trait ClosedSet: Copy + Sized + 'static {
    const SET_NAME: &'static str;
    fn all() -> &'static [Self];
    fn spellings() -> &'static [&'static str];
    fn as_str(self) -> &'static str;
}

/// A spelling that is not a value of the set (from a file, a store or an argument).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownValue {
    pub set: &'static str,
    pub value: String,
    pub known: &'static [&'static str],
}

impl std::fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` is not a {} (known: {})", self.value, self.set, self.known.join(", "))
    }
}

impl std::error::Error for UnknownValue {}

#[cfg(test)]
mod tests;
