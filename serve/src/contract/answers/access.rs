//! Answer of `whoami`.

use schemars::JsonSchema;
use serde::Serialize;

use crate::contract::caller::{AuthMethod, OAuthIdentity, RateLimitReport, TokenIdentity};

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UpgradeAction {
    /// Ask the operator for an API token.
    RequestToken,
    /// Sign in through the deployment's OAuth issuer (an MCP client finds it from the
    /// protected-resource metadata, `resource_metadata`).
    Authorize,
}

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
