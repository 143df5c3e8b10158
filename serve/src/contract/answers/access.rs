//! Answer of `whoami`.

use schemars::JsonSchema;
use serde::Serialize;

use crate::contract::caller::{AuthMethod, RateLimitReport, TokenIdentity};

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UpgradeAction {
    /// Ask the operator for an API token.
    RequestToken,
}

/// How to get a larger budget; null when there is nothing to offer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Upgrade {
    pub action: UpgradeAction,
    /// Requests per hour a token gets; null = no limit.
    pub limit_per_hour: Option<u32>,
    pub message: String,
}

/// `whoami`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WhoamiAnswer {
    pub authenticated: bool,
    /// null for an anonymous caller.
    pub auth_method: Option<AuthMethod>,
    /// The token's id, name and abilities; null for an anonymous caller.
    pub token: Option<TokenIdentity>,
    pub rate_limit: RateLimitReport,
    pub upgrade: Option<Upgrade>,
}
