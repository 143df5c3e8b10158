//! Branches of jurisdiction (`courts.branch`, the decisions index, the `branch` filters).
//! European courts and Vergabekammern have branches of their own (H4, issue 14 item 6).

crate::closed_set! {
    /// The branch a court belongs to.
    pub enum Branch {
        Ordentlich => "ordentlich",
        Verwaltung => "verwaltung",
        Sozial => "sozial",
        Arbeit => "arbeit",
        Finanz => "finanz",
        Verfassung => "verfassung",
        Patent => "patent",
        /// European courts (EuGH, EuG, EGMR): no German Gerichtsbarkeit.
        Europaeisch => "europaeisch",
        /// Vergabekammern: review bodies of the administration, not courts.
        Vergabe => "vergabe",
        /// A court we hold whose name tells no branch (a decision without a court has
        /// branch null, not this).
        Unbekannt => "unbekannt",
    }
}
