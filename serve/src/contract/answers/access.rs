//! Answer of `whoami`.

use schemars::JsonSchema;
use serde::Serialize;

pub use model::UpgradeAction;

use crate::contract::caller::{AuthMethod, OAuthIdentity, RateLimitReport, TokenIdentity};

/// How to get a larger budget; null when there is nothing to offer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Upgrade {
    pub action: UpgradeAction,
    /// Requests per hour a token gets; null = no limit.
    pub limit_per_hour: Option<u32>,
    pub message: String,
    /// The RFC 9728 protected-resource metadata URL naming the OAuth issuer; null when this
    /// deployment has no OAuth issuer.
    pub resource_metadata: Option<String>,
}

/// `whoami`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WhoamiAnswer {
    pub authenticated: bool,
    /// null for an anonymous caller.
    pub auth_method: Option<AuthMethod>,
    /// The API token's id, name and abilities; null unless `auth_method` is `api_token`.
    pub token: Option<TokenIdentity>,
    /// The OAuth access token's subject, client, scopes and abilities; null unless
    /// `auth_method` is `oauth`.
    pub oauth: Option<OAuthIdentity>,
    pub rate_limit: RateLimitReport,
    pub upgrade: Option<Upgrade>,
}
