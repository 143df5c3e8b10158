//! Who may call the server and how often: abilities, rate-limit tiers and buckets, how a caller
//! authenticated, why a token was refused, and what the access layer did with a request.

crate::closed_set! {
    /// What a token may do; each tool names the one it needs. The issue that introduced them
    /// spells one with a hyphen (`citation-check`), as operators type them.
    pub enum Ability {
        /// Searches and listings (search_laws, search_decisions, filter_cases, statistics …).
        Search => "search",
        /// Reading one thing (a law, a section, a decision, a court, coverage, platform info).
        Read => "read",
        /// The citation graph (references, citing cases, graph, cases for a law).
        Graph => "graph",
        /// assemble_datapackage.
        Datapackage => "datapackage",
        /// check_citations and validate_citation.
        CitationCheck => "citation-check",
    }
}

crate::closed_set! {
    /// Which budget a request is counted against (also the metrics' `tier` label).
    pub enum RateTier {
        /// No token: the caller's IP address or the shared bucket of configured client ranges.
        Anonymous => "anonymous",
        /// An API token with the default token budget, or an OAuth subject.
        Token => "token",
        /// An API token with its own budget, set when it was created.
        Custom => "custom",
    }
}

crate::closed_set! {
    /// The budget within a tier.
    pub enum RateBucket {
        /// One budget per client IP address.
        Ip => "ip",
        /// One budget shared by every anonymous client of the configured ranges (a connector's IPs).
        Shared => "shared",
        /// The token's own budget, shared by MCP and REST.
        Token => "token",
        /// One budget per OAuth subject (the access token's `sub`), whichever of its tokens it sends.
        Subject => "subject",
    }
}

crate::closed_set! {
    /// How a caller proved who it is.
    pub enum AuthMethod {
        /// `Authorization: Bearer ldt_…`, created with `serve token create`.
        ApiToken => "api_token",
        /// `Authorization: Bearer <JWT>`, an access token of the configured OAuth issuer.
        Oauth => "oauth",
    }
}

crate::closed_set! {
    /// Why a presented bearer token (an API token, or an OAuth access token) was not accepted.
    pub enum TokenRefusal {
        /// Not a token of either kind, or a JWT without the claims a token needs.
        Malformed => "malformed",
        /// No such API token, or a wrong secret.
        Unknown => "unknown",
        Revoked => "revoked",
        Expired => "expired",
        /// A JWT signed by none of the issuer's keys (a wrong key, or an unknown `kid`).
        BadSignature => "bad_signature",
        /// A JWT whose `aud` does not name this server (RFC 8707).
        WrongAudience => "wrong_audience",
        /// A JWT from another issuer than the configured one.
        WrongIssuer => "wrong_issuer",
        /// A JWT whose `nbf` lies in the future.
        NotYetValid => "not_yet_valid",
    }
}

crate::closed_set! {
    /// What the access layer did with one request (the metrics' `outcome` label).
    pub enum AccessOutcome {
        Allowed => "allowed",
        RateLimited => "rate_limited",
        InvalidToken => "invalid_token",
        /// The token lacks the tool's ability; nothing ran.
        AbilityMissing => "ability_missing",
        /// The deployment requires a token for the tool (or for everything); none was sent.
        TokenRequired => "token_required",
        /// The OAuth issuer's keys could not be fetched to judge a token.
        AuthUnavailable => "auth_unavailable",
    }
}

crate::closed_set! {
    /// `whoami` `upgrade.action`: how an anonymous caller gets a larger budget.
    pub enum UpgradeAction {
        /// Ask the operator for an API token.
        RequestToken => "request_token",
        /// Sign in through the deployment's OAuth issuer (an MCP client finds it from the
        /// protected-resource metadata, `resource_metadata`).
        Authorize => "authorize",
    }
}
