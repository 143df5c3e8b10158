//! How the server's tools sort, match and select: the values their arguments accept (the
//! input schemas' `enum` lists are generated from these) and the modes their answers report.

crate::closed_set! {
    /// `search_decisions` `sort`.
    pub enum DecisionSort {
        Relevance => "relevance",
        /// Newest first, undated last.
        Date => "date",
        /// By citing_cases_count.
        MostCited => "most_cited",
    }
}

crate::closed_set! {
    /// `get_cases_for_law` `sort`.
    pub enum CitingSort {
        /// Newest first.
        Date => "date",
        MostCited => "most_cited",
    }
}

crate::closed_set! {
    /// `get_citation_graph` `direction`.
    pub enum GraphDirection {
        /// What the decision cites.
        Outgoing => "outgoing",
        /// What cites the decision.
        Incoming => "incoming",
        Both => "both",
    }
}

crate::closed_set! {
    /// `list_facets` `field`.
    pub enum FacetField {
        CourtName => "court_name",
        CourtBranch => "court_branch",
        DocumentType => "document_type",
        /// The decision year (H4: one count per fact, issue 14 item 6).
        Year => "year",
        CitedNorms => "cited_norms",
    }
}

crate::closed_set! {
    /// `get_law` `include`: the parts of a law to return.
    pub enum LawPart {
        Meta => "meta",
        Toc => "toc",
        Text => "text",
    }
}

crate::closed_set! {
    /// How the words of a keyword query were combined (`match_mode` in search answers).
    pub enum MatchMode {
        /// `search_laws`: every word occurs in the section.
        AllTerms => "all_terms",
        /// `search_decisions`: every word occurs in one passage.
        AllTermsInOnePassage => "all_terms_in_one_passage",
        /// A § / Art. citation throughout: its words in order, at most 8 positions apart.
        CitationWordsInOrder => "citation_words_in_order_within_8_positions",
        /// Nothing held every word, so any word counts (the answer says so).
        AnyTerm => "any_term",
        /// `search_laws`, 2 words or more: sections holding every word and sections missing one
        /// of them, ranked together (a missing word lowers the score by its share of what the
        /// words weigh, rarer words weighing more); each row's `matched_by` says which.
        AllTermsButOne => "all_terms_but_one",
        /// `search_laws`: few sections held every word, so sections holding fewer rank beside
        /// them, each missing word lowering the score by its share of what the words weigh;
        /// each row's `matched_by` says which words it holds.
        RankedByWordsHeld => "ranked_by_words_held",
    }
}

crate::closed_set! {
    /// Whether the legal-register dictionary added terms to a search (`query_expansion.status`).
    pub enum ExpansionStatus {
        /// Terms were added (`added_terms`), never substituted.
        Applied => "applied",
        /// The dictionary read the query and added nothing.
        Abstained => "abstained",
        /// The dictionary did not run.
        Skipped => "skipped",
    }
}

crate::closed_set! {
    /// Why the dictionary added nothing (`query_expansion.reason`).
    pub enum ExpansionReason {
        /// No entry's words are all in the query.
        NoEntryMatched => "no_entry_matched",
        /// The entries that fired were for words the index holds often, and had only phrases
        /// of several words, which are held back for such a word (`phrases_held_back`).
        WordHeldOften => "word_held_often",
        /// The caller sent `expand_query: false`.
        CallerOptedOut => "caller_opted_out",
        /// The query is an identifier throughout (a § citation, an Aktenzeichen, an ECLI).
        PreciseIdentifier => "precise_identifier",
        /// No searchable words are left once the function words are dropped.
        EmptyQuery => "empty_query",
    }
}

crate::closed_set! {
    /// Which retrieval answered a search (`mode` in search answers).
    pub enum SearchMode {
        Keyword => "keyword",
        /// The query is a citation throughout and was matched exactly.
        ExactCitation => "exact_citation",
        /// `search_laws`: the cited section first, then keyword hits.
        ExactCitationThenKeyword => "exact_citation_then_keyword",
        /// The query is one ECLI, looked up exactly.
        ExactEcli => "exact_ecli",
        /// The query is one Aktenzeichen, looked up exactly.
        ExactFileNumber => "exact_file_number",
        /// `get_case_statistics` without a query: the filters alone select.
        FiltersOnly => "filters_only",
    }
}
