//! The answer contract shared by every tool and both transports.
//!
//! - Every answer, success or refusal, carries the envelope: `api_version` (SemVer of this
//!   surface), `generation` (`id`, `built_at`) it was served from, and `ignored_parameters`
//!   when an argument the tool does not declare was sent (it was accepted and ignored).
//! - A refusal carries `error_code` from the closed set [`ErrorCode`], `message`, `retryable`
//!   and `hint` (what to do instead), plus details where useful.
//! - A null field means "not recorded here", never zero or "none".

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::contract::json_object::JsonObject;

/// SemVer of the MCP/REST surface; a minor bump can add fields, a major one change them.
pub const API_VERSION: &str = "0.4.0";

/// The closed set of refusal codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// An argument has the wrong type, is out of range or missing.
    InvalidArgument,
    /// No law is known under the book code given.
    BookNotFound,
    /// The book code names several laws.
    BookAmbiguous,
    /// The law has no section with that designation.
    SectionNotFound,
    /// The designation names several sections of the law.
    SectionAmbiguous,
    /// The section has no Absatz of that number; `absaetze_present` lists those it has.
    AbsatzNotFound,
    /// The section (or its Absatz) has no Nummer of that number; `nummern_present` lists those it has.
    NummerNotFound,
    /// `offset` lies beyond the end of the text.
    OffsetOutOfRange,
    /// No decision is held under that id, Aktenzeichen or ECLI.
    DecisionNotFound,
    /// The Aktenzeichen names several decisions; `candidates` lists them.
    DecisionAmbiguous,
    /// No court is known under that name.
    CourtNotFound,
    /// The decision has no section of that name; `available_sections` lists its sections.
    SectionNotInDecision,
    /// The text is longer than one call checks.
    TextTooLong,
    /// The text is shorter than a passage worth checking.
    TextTooShort,
    /// The text shows too few signs of German legal writing.
    NotGermanLegalText,
    /// No generation is loaded yet (the server is starting or none was published).
    NoGeneration,
    /// The handler ran out of time.
    Timeout,
    /// Over the caller's request budget; `retry_after_seconds` says when to retry.
    RateLimited,
    /// The bearer token sent is malformed, unknown, revoked or expired.
    InvalidToken,
    /// This deployment requires an API token for the tool; `required_ability` names its ability.
    TokenRequired,
    /// The token lacks the ability the tool needs (`required_ability`); nothing ran.
    TokenAbilityMissing,
    /// The OAuth issuer's keys could not be fetched to judge the access token; retry shortly.
    AuthUnavailable,
    /// A defect on our side; retrying may help.
    InternalError,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "invalid_argument",
            ErrorCode::BookNotFound => "book_not_found",
            ErrorCode::BookAmbiguous => "book_ambiguous",
            ErrorCode::SectionNotFound => "section_not_found",
            ErrorCode::SectionAmbiguous => "section_ambiguous",
            ErrorCode::AbsatzNotFound => "absatz_not_found",
            ErrorCode::NummerNotFound => "nummer_not_found",
            ErrorCode::OffsetOutOfRange => "offset_out_of_range",
            ErrorCode::DecisionNotFound => "decision_not_found",
            ErrorCode::DecisionAmbiguous => "decision_ambiguous",
            ErrorCode::CourtNotFound => "court_not_found",
            ErrorCode::SectionNotInDecision => "section_not_in_decision",
            ErrorCode::TextTooLong => "text_too_long",
            ErrorCode::TextTooShort => "text_too_short",
            ErrorCode::NotGermanLegalText => "not_german_legal_text",
            ErrorCode::NoGeneration => "no_generation",
            ErrorCode::Timeout => "timeout",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::InvalidToken => "invalid_token",
            ErrorCode::TokenRequired => "token_required",
            ErrorCode::TokenAbilityMissing => "token_ability_missing",
            ErrorCode::AuthUnavailable => "auth_unavailable",
            ErrorCode::InternalError => "internal_error",
        }
    }

    /// HTTP status of this refusal on the REST transport.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::InvalidArgument
            | ErrorCode::OffsetOutOfRange
            | ErrorCode::TextTooShort
            | ErrorCode::NotGermanLegalText => 400,
            ErrorCode::TextTooLong => 413,
            ErrorCode::BookNotFound
            | ErrorCode::SectionNotFound
            | ErrorCode::AbsatzNotFound
            | ErrorCode::NummerNotFound
            | ErrorCode::DecisionNotFound
            | ErrorCode::CourtNotFound
            | ErrorCode::SectionNotInDecision => 404,
            ErrorCode::BookAmbiguous | ErrorCode::SectionAmbiguous | ErrorCode::DecisionAmbiguous => 409,
            ErrorCode::NoGeneration | ErrorCode::AuthUnavailable => 503,
            ErrorCode::RateLimited => 429,
            ErrorCode::InvalidToken | ErrorCode::TokenRequired => 401,
            ErrorCode::TokenAbilityMissing => 403,
            ErrorCode::Timeout => 504,
            ErrorCode::InternalError => 500,
        }
    }

    pub fn retryable(self) -> bool {
        matches!(
            self,
            ErrorCode::NoGeneration
                | ErrorCode::Timeout
                | ErrorCode::InternalError
                | ErrorCode::RateLimited
                | ErrorCode::AuthUnavailable
        )
    }
}

/// A refusal: what went wrong and what to do instead.
#[derive(Debug, Clone)]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
    pub hint: String,
    /// Extra fields (candidates, total_length, suggestions …), merged into the payload.
    pub details: Box<Map<String, Value>>,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>, hint: impl Into<String>) -> Self {
        ToolError { code, message: message.into(), hint: hint.into(), details: Box::default() }
    }

    pub fn invalid(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArgument, message, hint)
    }

    pub fn internal(e: impl std::fmt::Display) -> Self {
        tracing::error!(error = %e, "internal error");
        Self::new(ErrorCode::InternalError, format!("internal error: {e}"), "Retry; if it persists, report it.")
    }

    pub fn with(mut self, key: &str, value: impl Serialize) -> Self {
        self.details.insert(key.to_string(), serde_json::to_value(value).unwrap_or(Value::Null));
        self
    }

    /// The refusal payload (without envelope).
    pub fn payload(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("error_code".into(), json!(self.code.as_str()));
        m.insert("message".into(), json!(self.message));
        m.insert("retryable".into(), json!(self.code.retryable()));
        m.insert("hint".into(), json!(self.hint));
        for (k, v) in self.details.iter() {
            m.insert(k.clone(), v.clone());
        }
        m
    }
}

impl From<anyhow::Error> for ToolError {
    fn from(e: anyhow::Error) -> Self {
        ToolError::internal(format!("{e:#}"))
    }
}

impl From<rusqlite::Error> for ToolError {
    fn from(e: rusqlite::Error) -> Self {
        ToolError::internal(e)
    }
}

impl From<tantivy::TantivyError> for ToolError {
    fn from(e: tantivy::TantivyError) -> Self {
        ToolError::internal(e)
    }
}

/// What the envelope says about the generation an answer came from.
#[derive(Debug, Clone)]
pub struct GenerationRef {
    pub id: String,
    pub built_at: String,
}

/// Puts the envelope fields ([`ENVELOPE_KEYS`]) first, then the payload, as text: the payload
/// must hold none of those keys (a test checks every tool's answer schema; a refusal's details
/// are named where it is made, and none is one of them).
pub fn with_envelope(payload: JsonObject, generation: Option<&GenerationRef>, ignored: &[String]) -> JsonObject {
    let mut m = Map::new();
    m.insert("api_version".into(), json!(API_VERSION));
    m.insert(
        "generation".into(),
        match generation {
            Some(g) => json!({"id": g.id, "built_at": g.built_at}),
            None => Value::Null,
        },
    );
    if !ignored.is_empty() {
        m.insert("ignored_parameters".into(), json!(ignored));
    }
    payload.after(JsonObject::from_map(&m))
}

/// The keys [`with_envelope`] puts before a payload.
pub const ENVELOPE_KEYS: &[&str] = &["api_version", "generation", "ignored_parameters"];
