//! `whoami`: the caller, as the access layer admitted this call, and its budget.

use index::Generation;

use crate::contract::answer::ToolError;
use crate::contract::answers::{Upgrade, UpgradeAction, WhoamiAnswer};
use crate::contract::args::NoArgs;
use crate::contract::caller::{AuthMethod, RateBucket, RateLimitReport, RateTier};

/// `whoami()`.
pub fn whoami(_g: &Generation, _a: NoArgs) -> Result<WhoamiAnswer, ToolError> {
    // Outside a transport (a unit test) nobody was admitted: an anonymous caller without limits.
    let caller = crate::contract::caller::current();
    let rate_limit = caller.as_ref().map(|c| c.rate_limit.clone()).unwrap_or(RateLimitReport {
        tier: RateTier::Anonymous,
        bucket: RateBucket::Ip,
        limit: None,
        window_seconds: 3_600,
        used: None,
        remaining: None,
        retry_after_seconds: None,
    });
    let token = caller.as_ref().and_then(|c| c.token.clone());
    let token_per_hour = caller.as_ref().and_then(|c| c.token_per_hour);
    let upgrade = token.is_none().then(|| Upgrade {
        action: UpgradeAction::RequestToken,
        limit_per_hour: token_per_hour,
        message: format!(
            "You are not sending an API token. {} Ask the operator of this server for a token (serve token create) and send it as Authorization: Bearer <token> to get your own budget{}, shared by MCP and REST.",
            match rate_limit.bucket {
                RateBucket::Shared => "Anonymous requests from your network share one budget with all other clients of it.",
                _ => "Anonymous requests are counted per IP address.",
            },
            token_per_hour.map(|n| format!(" of {n} requests/hour")).unwrap_or_default()
        ),
    });
    Ok(WhoamiAnswer {
        authenticated: token.is_some(),
        auth_method: token.as_ref().map(|_| AuthMethod::ApiToken),
        token,
        rate_limit,
        upgrade,
    })
}
