//! Every value of every closed set has one spelling, snake_case, unique in its set, and
//! round-trips through serde, `Display` and `FromStr`; unknown spellings are refused.

use super::*;

fn check_set<T>()
where
    T: ClosedSet + std::fmt::Debug + PartialEq + serde::Serialize + serde::de::DeserializeOwned + std::str::FromStr,
{
    let name = T::SET_NAME;
    assert!(!T::all().is_empty(), "{name} is empty");
    assert_eq!(T::all().len(), T::spellings().len(), "{name}: ALL and SPELLINGS differ in length");
    let mut seen = std::collections::BTreeSet::new();
    for (v, s) in T::all().iter().zip(T::spellings()) {
        assert_eq!(v.as_str(), *s, "{name}: SPELLINGS is not ALL mapped through as_str");
        assert!(seen.insert(*s), "{name}: spelling {s} twice");
        assert!(
            !s.is_empty()
                && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                && !s.starts_with('_')
                && !s.ends_with('_')
                && !s.contains("__"),
            "{name}: {s} is not snake_case"
        );
        let json = serde_json::to_string(v).unwrap();
        assert_eq!(json, format!("\"{s}\""), "{name}: serde writes another spelling");
        let back: T = serde_json::from_str(&json).unwrap();
        assert_eq!(&back, v, "{name}: {s} does not round-trip through serde");
        // Owned strings (a reader, not a borrowed slice) take the same path.
        let owned: T = serde_json::from_reader(json.as_bytes()).unwrap();
        assert_eq!(&owned, v);
        assert!(s.parse::<T>().ok().as_ref() == Some(v), "{name}: {s} does not round-trip through FromStr");
    }
    let err = serde_json::from_str::<T>("\"no_such_value\"").unwrap_err().to_string();
    assert!(
        err.contains("no_such_value") && err.contains(T::spellings()[0]),
        "{name}: refusal names the value and the set: {err}"
    );
    assert!("no_such_value".parse::<T>().is_err());
    // A spelling differing only by case or separators is another value: refused.
    let upper = T::spellings()[0].to_uppercase();
    assert!(serde_json::from_str::<T>(&format!("\"{upper}\"")).is_err(), "{name}: {upper} accepted");
}

#[test]
fn every_closed_set_has_one_snake_case_spelling_per_value_and_round_trips() {
    check_set::<RateTier>();
    check_set::<RateBucket>();
    check_set::<AuthMethod>();
    check_set::<TokenRefusal>();
    check_set::<AccessOutcome>();
    check_set::<UpgradeAction>();
    check_set::<LawCitationStatus>();
    check_set::<CaseKind>();
    check_set::<CaseCitationStatus>();
    check_set::<WithheldReason>();
    check_set::<CitationRole>();
    check_set::<Verdict>();
    check_set::<NormDropReason>();
    check_set::<Branch>();
    check_set::<DecisionSort>();
    check_set::<CitingSort>();
    check_set::<GraphDirection>();
    check_set::<FacetField>();
    check_set::<LawPart>();
    check_set::<MatchMode>();
    check_set::<SearchMode>();
    check_set::<SourceProblem>();
}

#[test]
fn the_file_number_kind_has_one_spelling() {
    // Resolve once wrote `filenumber` (the Debug name lower-cased) while the scanner wrote
    // `file_number`: only the latter exists now.
    assert_eq!(CaseKind::FileNumber.as_str(), "file_number");
    assert_eq!(CaseKind::parse("filenumber"), None);
}

#[test]
fn abilities_round_trip_in_the_spelling_operators_type() {
    for (a, s) in Ability::ALL.iter().zip(Ability::SPELLINGS) {
        assert_eq!(serde_json::to_string(a).unwrap(), format!("\"{s}\""));
        assert_eq!(s.parse::<Ability>().ok(), Some(*a));
    }
    assert_eq!(Ability::parse("citation-check"), Some(Ability::CitationCheck));
    assert_eq!(Ability::parse("citation_check"), None, "one spelling only");
}
