//! `whoami`: the caller, as the access layer admitted this call, and its budget.

use index::Generation;

use crate::contract::answer::ToolError;
use crate::contract::answers::{Upgrade, UpgradeAction, WhoamiAnswer};
use crate::contract::args::NoArgs;
use crate::contract::caller::{Credential, RateBucket, RateLimitReport, RateTier};

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
    let credential = caller.as_ref().and_then(|c| c.credential.clone());
    let token_per_hour = caller.as_ref().and_then(|c| c.token_per_hour);
    let resource_metadata = caller.as_ref().and_then(|c| c.resource_metadata.clone());
    let upgrade = credential.is_none().then(|| {
        let counted = match rate_limit.bucket {
            RateBucket::Shared => "Anonymous requests from your network share one budget with all other clients of it.",
            _ => "Anonymous requests are counted per IP address.",
        };
        let budget = token_per_hour.map(|n| format!(" of {n} requests/hour")).unwrap_or_default();
        match &resource_metadata {
            Some(url) => Upgrade {
                action: UpgradeAction::Authorize,
                limit_per_hour: token_per_hour,
                message: format!(
                    "You are not sending an access token. {counted} Sign in through this server's OAuth issuer (named by the protected-resource metadata at {url}; an MCP client finds it by itself) and send the access token as Authorization: Bearer <token> to get your own budget{budget}, shared by MCP and REST. The operator can also issue an API token (serve token create)."
                ),
                resource_metadata: Some(url.clone()),
            },
            None => Upgrade {
                action: UpgradeAction::RequestToken,
                limit_per_hour: token_per_hour,
                message: format!(
                    "You are not sending an API token. {counted} Ask the operator of this server for a token (serve token create) and send it as Authorization: Bearer <token> to get your own budget{budget}, shared by MCP and REST."
                ),
                resource_metadata: None,
            },
        }
    });
    let (token, oauth) = match credential.clone() {
        Some(Credential::ApiToken(t)) => (Some(t), None),
        Some(Credential::OAuth(o)) => (None, Some(o)),
        None => (None, None),
    };
    Ok(WhoamiAnswer {
        authenticated: credential.is_some(),
        auth_method: credential.as_ref().map(Credential::method),
        token,
        oauth,
        rate_limit,
        upgrade,
    })
}
