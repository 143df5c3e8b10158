//! Who is calling: the identity and rate-limit state the access layer admitted a request with
//! (`app::access`), as the tool call sees it.
//!
//! The transport admits each HTTP request (counting it against its caller's budget) and runs the
//! call under that caller; [`crate::app::run_tool`] sets it on the blocking thread ([`scope`]),
//! where `whoami` reads it ([`current`]). The rate-limit figures are the limiter's own state
//! right after this request was counted, so they are what the next request is judged against.

use std::cell::RefCell;

use schemars::JsonSchema;
use serde::Serialize;

pub use model::{Ability, AuthMethod, RateBucket, RateTier};

/// The budget a request was counted against, as the limiter holds it after counting it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RateLimitReport {
    pub tier: RateTier,
    pub bucket: RateBucket,
    /// Requests per window; null = this deployment sets no limit for the bucket.
    pub limit: Option<u32>,
    pub window_seconds: u64,
    /// Requests counted in the window, this one included; null without a limit.
    pub used: Option<u32>,
    /// Requests left before the limiter refuses; null without a limit.
    pub remaining: Option<u32>,
    /// Seconds until the next request is admitted; null while requests are left.
    pub retry_after_seconds: Option<u64>,
}

/// A token's identity (never its secret).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TokenIdentity {
    pub id: i64,
    pub name: String,
    pub abilities: Vec<Ability>,
}

/// The holder of an OAuth access token, as its verified claims say.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OAuthIdentity {
    /// The `sub` claim: who the issuer says the caller is.
    pub subject: String,
    /// The client the token was issued to (`client_id` or `azp`); null when the token names none.
    pub client_id: Option<String>,
    /// The token's scopes, as granted.
    pub scopes: Vec<String>,
    /// The abilities those scopes map to (`<prefix><ability>`, e.g. `legal:search`).
    pub abilities: Vec<Ability>,
    /// When the token expires (`exp`, Unix seconds).
    pub expires_at_unix: i64,
}

/// How a caller proved who it is.
#[derive(Debug, Clone)]
pub enum Credential {
    ApiToken(TokenIdentity),
    OAuth(OAuthIdentity),
}

impl Credential {
    pub fn abilities(&self) -> &[Ability] {
        match self {
            Credential::ApiToken(t) => &t.abilities,
            Credential::OAuth(o) => &o.abilities,
        }
    }

    pub fn method(&self) -> AuthMethod {
        match self {
            Credential::ApiToken(_) => AuthMethod::ApiToken,
            Credential::OAuth(_) => AuthMethod::Oauth,
        }
    }
}

/// The caller of one request.
#[derive(Debug, Clone)]
pub struct Caller {
    /// None for an anonymous caller.
    pub credential: Option<Credential>,
    pub rate_limit: RateLimitReport,
    /// Requests per hour a token gets here by default (None = no limit): what `whoami`
    /// offers an anonymous caller.
    pub token_per_hour: Option<u32>,
    /// The deployment's RFC 9728 protected-resource metadata URL; None without an OAuth issuer.
    pub resource_metadata: Option<String>,
}

thread_local! {
    static CALLER: RefCell<Option<Caller>> = const { RefCell::new(None) };
}

/// Runs `f` with `caller` as this thread's caller, and restores the previous one after.
pub fn scope<R>(caller: Option<Caller>, f: impl FnOnce() -> R) -> R {
    struct Reset(Option<Caller>);
    impl Drop for Reset {
        fn drop(&mut self) {
            CALLER.with(|c| *c.borrow_mut() = self.0.take());
        }
    }
    let _reset = Reset(CALLER.with(|c| c.replace(caller)));
    f()
}

/// This thread's caller; None outside a call made through a transport (unit tests).
pub fn current() -> Option<Caller> {
    CALLER.with(|c| c.borrow().clone())
}
