//! Who may call what, and how often: one budget per caller across MCP and REST.
//!
//! - Anonymous access is the default. Each client IP has its own budget, except the clients
//!   of configured ranges (a connector's egress IPs), which share one.
//! - An API token (`Authorization: Bearer ldt_…`, [`super::tokens`]) has its own budget (the
//!   deployment's token default, or its own) and abilities; a tool needs one ability
//!   ([`crate::tools::Tool::ability`]), and a deployment may require a token for some abilities.
//! - An OAuth access token of the configured issuer ([`super::oauth`]) has the token budget
//!   per subject (`sub`) and the abilities its scopes map to.
//! - The limiter is `governor` (GCRA): `limit` requests per hour, the whole of it usable at once
//!   and refilled evenly. Every HTTP request to `/mcp` or `/api/…` counts once, before anything
//!   runs; a refused request runs nothing and is not counted.

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};

use super::oauth::{KeysUnavailable, OAuth, OAuthConfig};
use super::tokens::{TokenRefusal, TokenStore};
use crate::contract::caller::{Ability, Caller, Credential, RateBucket, RateLimitReport, RateTier};

type Keyed<K> = RateLimiter<K, DefaultKeyedStateStore<K>, DefaultClock, StateInformationMiddleware>;
type Direct = RateLimiter<NotKeyed, InMemoryState, DefaultClock, StateInformationMiddleware>;

const WINDOW_SECONDS: u64 = 3_600;

/// The access policy of a deployment.
#[derive(Debug, Clone)]
pub struct AccessConfig {
    /// Requests per hour per anonymous client IP; 0 = no limit.
    pub anonymous_per_hour: u32,
    /// Client ranges (address, prefix length) whose anonymous clients share one budget.
    pub shared_ranges: Vec<(IpAddr, u8)>,
    /// Requests per hour of the shared budget; 0 = no limit.
    pub shared_per_hour: u32,
    /// Requests per hour of a token without its own limit; 0 = no limit.
    pub token_per_hour: u32,
    /// Abilities an anonymous caller may not use (a token is required).
    pub token_required_for: Vec<Ability>,
    /// The OAuth issuer whose access tokens are accepted; None = API tokens only.
    pub oauth: Option<OAuthConfig>,
}

impl Default for AccessConfig {
    fn default() -> AccessConfig {
        AccessConfig {
            anonymous_per_hour: 1_000,
            shared_ranges: Vec::new(),
            shared_per_hour: 5_000,
            token_per_hour: 5_000,
            token_required_for: Vec::new(),
            oauth: None,
        }
    }
}

/// Parses `10.0.0.0/8` or `2001:db8::/32` (a bare address is one host).
pub fn parse_range(s: &str) -> Option<(IpAddr, u8)> {
    let (addr, prefix) = match s.split_once('/') {
        Some((a, p)) => (a.parse::<IpAddr>().ok()?, p.parse::<u8>().ok()?),
        None => {
            let a = s.parse::<IpAddr>().ok()?;
            (a, if a.is_ipv4() { 32 } else { 128 })
        }
    };
    let max = if addr.is_ipv4() { 32 } else { 128 };
    (prefix <= max).then_some((addr, prefix))
}

fn in_range(ip: IpAddr, (net, prefix): (IpAddr, u8)) -> bool {
    let bits = |a: IpAddr| -> (u128, u32) {
        match a {
            IpAddr::V4(v) => (u128::from(u32::from(v)), 32),
            IpAddr::V6(v) => (u128::from(v), 128),
        }
    };
    let ((a, wa), (b, wb)) = (bits(ip.to_canonical()), bits(net));
    if wa != wb {
        return false;
    }
    let shift = wa - u32::from(prefix);
    shift >= wa || (a >> shift) == (b >> shift)
}

/// Why a request was not admitted.
#[derive(Debug)]
pub enum Denied {
    /// Over the caller's budget; nothing ran.
    RateLimited(RateLimitReport),
    /// A token was sent and is not valid.
    InvalidToken(TokenRefusal),
    /// An OAuth token was sent and the issuer's keys cannot be had to judge it.
    KeysUnavailable(KeysUnavailable),
}

pub struct Access {
    config: AccessConfig,
    anonymous: Option<Keyed<IpAddr>>,
    shared: Option<Direct>,
    tokens_default: Option<Keyed<i64>>,
    /// Tokens with their own limit: one limiter each, made on first use.
    tokens_own: Mutex<HashMap<i64, (u32, Arc<Direct>)>>,
    /// OAuth callers: the token budget per subject.
    subjects: Option<Keyed<String>>,
    store: TokenStore,
    oauth: Option<OAuth>,
}

fn quota(per_hour: u32) -> Option<Quota> {
    NonZeroU32::new(per_hour).map(Quota::per_hour)
}

/// What `outcome` (the limiter's answer to one request) says about a budget of `limit`.
fn report(
    tier: RateTier,
    bucket: RateBucket,
    limit: u32,
    outcome: Result<governor::middleware::StateSnapshot, governor::NotUntil<<DefaultClock as Clock>::Instant>>,
) -> Result<RateLimitReport, RateLimitReport> {
    match outcome {
        Ok(state) => {
            let remaining = state.remaining_burst_capacity();
            Ok(RateLimitReport {
                tier,
                bucket,
                limit: Some(limit),
                window_seconds: WINDOW_SECONDS,
                used: Some(limit - remaining.min(limit)),
                remaining: Some(remaining),
                retry_after_seconds: None,
            })
        }
        Err(not_until) => {
            let wait: Duration = not_until.wait_time_from(DefaultClock::default().now());
            Err(RateLimitReport {
                tier,
                bucket,
                limit: Some(limit),
                window_seconds: WINDOW_SECONDS,
                used: Some(limit),
                remaining: Some(0),
                retry_after_seconds: Some(wait.as_secs() + u64::from(wait.subsec_nanos() > 0)),
            })
        }
    }
}

fn unlimited(tier: RateTier, bucket: RateBucket) -> RateLimitReport {
    RateLimitReport {
        tier,
        bucket,
        limit: None,
        window_seconds: WINDOW_SECONDS,
        used: None,
        remaining: None,
        retry_after_seconds: None,
    }
}

impl Access {
    /// The access layer of a server whose canonical base URL is `public_url` (the OAuth
    /// resource identifier).
    pub fn new(config: AccessConfig, store: TokenStore, public_url: &str) -> anyhow::Result<Access> {
        let oauth = config.oauth.clone().map(|c| OAuth::new(c, public_url)).transpose()?;
        Ok(Access {
            anonymous: quota(config.anonymous_per_hour)
                .map(|q| RateLimiter::keyed(q).with_middleware::<StateInformationMiddleware>()),
            shared: quota(config.shared_per_hour)
                .map(|q| RateLimiter::direct(q).with_middleware::<StateInformationMiddleware>()),
            tokens_default: quota(config.token_per_hour)
                .map(|q| RateLimiter::keyed(q).with_middleware::<StateInformationMiddleware>()),
            tokens_own: Mutex::new(HashMap::new()),
            subjects: quota(config.token_per_hour)
                .map(|q| RateLimiter::keyed(q).with_middleware::<StateInformationMiddleware>()),
            config,
            store,
            oauth,
        })
    }

    pub fn config(&self) -> &AccessConfig {
        &self.config
    }

    /// The OAuth resource server, when this deployment has an issuer.
    pub fn oauth(&self) -> Option<&OAuth> {
        self.oauth.as_ref()
    }

    /// Whether an anonymous caller may use nothing at all (every ability needs a token): such
    /// a deployment answers 401 before any handler runs, so OAuth clients start their flow.
    pub fn requires_token_for_everything(&self) -> bool {
        Ability::ALL.iter().all(|a| self.config.token_required_for.contains(a))
    }

    fn caller(&self, credential: Option<Credential>, rate_limit: RateLimitReport) -> Caller {
        Caller {
            credential,
            rate_limit,
            token_per_hour: self.token_budget(),
            resource_metadata: self.oauth.as_ref().map(|o| o.resource_metadata_url(true)),
        }
    }

    fn token_budget(&self) -> Option<u32> {
        (self.config.token_per_hour > 0).then_some(self.config.token_per_hour)
    }

    /// Admits one request from `ip` with the bearer token it sent (if any): counts it against
    /// its caller's budget and says who the caller is, or why it is refused. An API token starts
    /// `ldt_`; any other token is an OAuth access token when an issuer is configured.
    pub async fn admit(&self, ip: IpAddr, bearer: Option<&str>) -> anyhow::Result<Result<Caller, Denied>> {
        let Some(token) = bearer else { return Ok(self.admit_anonymous(ip)) };
        if let Some(oauth) = self.oauth.as_ref().filter(|_| !token.starts_with("ldt_")) {
            return Ok(match oauth.verify(token).await {
                Err(unavailable) => Err(Denied::KeysUnavailable(unavailable)),
                Ok(Err(refusal)) => Err(Denied::InvalidToken(refusal)),
                Ok(Ok(identity)) => self.admit_subject(identity),
            });
        }
        let grant = match self.store.verify(token)? {
            Ok(g) => g,
            Err(refusal) => return Ok(Err(Denied::InvalidToken(refusal))),
        };
        let id = grant.identity.id;
        let outcome = match grant.per_hour {
            Some(own) if own > 0 => {
                let limiter = {
                    let mut map = self.tokens_own.lock().unwrap_or_else(|e| e.into_inner());
                    let entry = map.entry(id).or_insert_with(|| {
                        let q = quota(own).expect("non-zero");
                        (own, Arc::new(RateLimiter::direct(q).with_middleware::<StateInformationMiddleware>()))
                    });
                    entry.1.clone()
                };
                report(RateTier::Custom, RateBucket::Token, own, limiter.check())
            }
            _ => match &self.tokens_default {
                Some(l) => report(RateTier::Token, RateBucket::Token, self.config.token_per_hour, l.check_key(&id)),
                None => Ok(unlimited(RateTier::Token, RateBucket::Token)),
            },
        };
        Ok(match outcome {
            Ok(rate_limit) => Ok(self.caller(Some(Credential::ApiToken(grant.identity)), rate_limit)),
            Err(rate_limit) => Err(Denied::RateLimited(rate_limit)),
        })
    }

    fn admit_subject(&self, identity: crate::contract::caller::OAuthIdentity) -> Result<Caller, Denied> {
        let outcome = match &self.subjects {
            Some(l) => {
                report(RateTier::Token, RateBucket::Subject, self.config.token_per_hour, l.check_key(&identity.subject))
            }
            None => Ok(unlimited(RateTier::Token, RateBucket::Subject)),
        };
        match outcome {
            Ok(rate_limit) => Ok(self.caller(Some(Credential::OAuth(identity)), rate_limit)),
            Err(rate_limit) => Err(Denied::RateLimited(rate_limit)),
        }
    }

    fn admit_anonymous(&self, ip: IpAddr) -> Result<Caller, Denied> {
        let shared = self.config.shared_ranges.iter().any(|r| in_range(ip, *r));
        let outcome = if shared {
            match &self.shared {
                Some(l) => report(RateTier::Anonymous, RateBucket::Shared, self.config.shared_per_hour, l.check()),
                None => Ok(unlimited(RateTier::Anonymous, RateBucket::Shared)),
            }
        } else {
            match &self.anonymous {
                Some(l) => report(
                    RateTier::Anonymous,
                    RateBucket::Ip,
                    self.config.anonymous_per_hour,
                    l.check_key(&ip.to_canonical()),
                ),
                None => Ok(unlimited(RateTier::Anonymous, RateBucket::Ip)),
            }
        };
        match outcome {
            Ok(rate_limit) => Ok(self.caller(None, rate_limit)),
            Err(rate_limit) => Err(Denied::RateLimited(rate_limit)),
        }
    }

    /// Whether `caller` may use a tool needing `ability` (None: every caller may).
    pub fn permits(&self, caller: &Caller, ability: Option<Ability>) -> Result<(), Refusal> {
        let Some(ability) = ability else { return Ok(()) };
        match &caller.credential {
            Some(c) if c.abilities().contains(&ability) => Ok(()),
            Some(_) => Err(Refusal::AbilityMissing(ability)),
            None if self.config.token_required_for.contains(&ability) => Err(Refusal::TokenRequired(ability)),
            None => Ok(()),
        }
    }
}

/// Why an admitted caller may not use a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    AbilityMissing(Ability),
    TokenRequired(Ability),
}

impl Refusal {
    /// The ability the tool needs.
    pub fn ability(self) -> Ability {
        match self {
            Refusal::AbilityMissing(a) | Refusal::TokenRequired(a) => a,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_hold_their_addresses_and_no_others() {
        let r = parse_range("10.1.0.0/16").unwrap();
        assert!(in_range("10.1.200.3".parse().unwrap(), r));
        assert!(!in_range("10.2.0.1".parse().unwrap(), r));
        assert!(in_range("::ffff:10.1.0.9".parse().unwrap(), r), "an IPv4-mapped address is its IPv4 address");
        assert!(in_range("2001:db8::1".parse().unwrap(), parse_range("2001:db8::/32").unwrap()));
        assert!(in_range("1.2.3.4".parse().unwrap(), parse_range("0.0.0.0/0").unwrap()));
        assert!(parse_range("10.0.0.0/33").is_none() && parse_range("nonsense").is_none());
    }
}
