//! OAuth 2.1 resource server (optional): accepts JWT access tokens of one configured issuer.
//!
//! The server never issues tokens; an operator points it at an existing authorization server
//! (Keycloak, Authentik, Zitadel, …). A token is accepted when:
//! - its signature verifies with a key of the issuer's JWKS (asymmetric algorithms only; the
//!   JWKS is discovered from the issuer's RFC 8414 / OpenID metadata unless configured, cached
//!   for at most `jwks_max_age` (so a key the issuer removed stops being trusted), and fetched
//!   again when a token names an unknown `kid`, at most every [`MIN_REFRESH`]);
//! - `iss` is the issuer, `aud` names this server (RFC 8707: the resource identifier
//!   `<public-url>/mcp` or `<public-url>`, or a configured audience), `exp` has not passed and
//!   `nbf` has (with [`LEEWAY_SECONDS`] of clock skew), and `sub` is present;
//! - its scopes (`scope`, space-separated, or `scp`) map to abilities: `<prefix><ability>`,
//!   e.g. `legal:search`.
//!
//! The protected-resource metadata (RFC 9728) that MCP clients discover from a 401 is built
//! here too ([`OAuth::resource_metadata`]).

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::{Deserialize, Serialize};

use super::tokens::TokenRefusal;
use crate::contract::caller::{Ability, OAuthIdentity};

/// The shortest time between two JWKS fetches triggered by unknown key ids: a stream of forged
/// `kid`s cannot make the server hammer the issuer.
pub const MIN_REFRESH: Duration = Duration::from_secs(30);
/// Clock skew allowed on `exp` and `nbf`.
pub const LEEWAY_SECONDS: u64 = 30;
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
/// Asymmetric algorithms only: a shared-secret (HS*) token could be forged by anyone who
/// holds a public JWK.
const ACCEPTED: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The OAuth settings of a deployment.
#[derive(Debug, Clone)]
pub struct OAuthConfig {
    /// The issuer identifier, exactly as its tokens' `iss` spell it.
    pub issuer: String,
    /// The JWKS URL; None = discovered from the issuer's metadata.
    pub jwks_url: Option<String>,
    /// Accepted `aud` values; empty = this server's resource identifiers.
    pub audiences: Vec<String>,
    /// What a scope is an ability under: `legal:` makes `legal:search` the scope of `search`.
    pub scope_prefix: String,
    /// How long fetched keys are trusted before they are fetched again (a key the issuer
    /// rotated out or revoked is refused from then on).
    pub jwks_max_age: Duration,
}

/// Why the issuer's keys could not be had (the request is answered 503, retryable).
#[derive(Debug)]
pub struct KeysUnavailable(pub String);

/// RFC 9728 protected-resource metadata.
#[derive(Debug, Clone, Serialize)]
pub struct ProtectedResourceMetadata {
    pub resource: String,
    pub authorization_servers: Vec<String>,
    pub scopes_supported: Vec<String>,
    pub bearer_methods_supported: Vec<&'static str>,
    pub resource_name: &'static str,
    pub resource_documentation: String,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Scopes {
    Spaced(String),
    List(Vec<String>),
}

#[derive(Debug, Deserialize)]
struct Claims {
    sub: String,
    exp: i64,
    #[serde(default)]
    scope: Option<Scopes>,
    #[serde(default)]
    scp: Option<Scopes>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    azp: Option<String>,
}

#[derive(Default)]
struct Keys {
    set: Option<Arc<JwkSet>>,
    /// When the last fetch was tried (successful or not).
    tried_at: Option<Instant>,
    /// When `set` was fetched.
    fetched_at: Option<Instant>,
    /// The JWKS URL, once discovered.
    jwks_url: Option<String>,
}

pub struct OAuth {
    config: OAuthConfig,
    /// This server's canonical base URL (`--public-url`, else `http://<bound address>`).
    public_url: String,
    /// The accepted `aud` values, fixed at start (checked on every token).
    audiences: Vec<String>,
    http: reqwest::Client,
    keys: RwLock<Keys>,
    /// One fetch at a time; the others wait for it and use its keys.
    fetching: tokio::sync::Mutex<()>,
}

#[derive(Deserialize)]
struct IssuerMetadata {
    issuer: Option<String>,
    jwks_uri: Option<String>,
}

impl OAuth {
    pub fn new(config: OAuthConfig, public_url: &str) -> anyhow::Result<OAuth> {
        // The issuer's keys are fetched over HTTPS.
        catalog::cli::install_tls_provider();
        let http = reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .user_agent(concat!("legal-data-serve/", env!("CARGO_PKG_VERSION")))
            .build()?;
        let public_url = public_url.trim_end_matches('/').to_string();
        let audiences = if config.audiences.is_empty() {
            let (mcp, base) = (format!("{public_url}/mcp"), public_url.clone());
            vec![format!("{mcp}/"), mcp, format!("{base}/"), base]
        } else {
            config.audiences.clone()
        };
        Ok(OAuth {
            config,
            public_url,
            audiences,
            http,
            keys: RwLock::new(Keys::default()),
            fetching: tokio::sync::Mutex::new(()),
        })
    }

    pub fn issuer(&self) -> &str {
        &self.config.issuer
    }

    /// The resource identifier of the MCP endpoint or of the whole server.
    pub fn resource(&self, mcp: bool) -> String {
        if mcp { format!("{}/mcp", self.public_url) } else { self.public_url.clone() }
    }

    /// Where the metadata of the MCP endpoint or of the whole server is served (RFC 9728 §3.1:
    /// the well-known segment goes before the resource's path).
    pub fn resource_metadata_url(&self, mcp: bool) -> String {
        let path = if mcp { "/mcp" } else { "" };
        format!("{}/.well-known/oauth-protected-resource{path}", self.public_url)
    }

    pub fn scope_of(&self, ability: Ability) -> String {
        format!("{}{}", self.config.scope_prefix, ability.as_str())
    }

    pub fn resource_metadata(&self, mcp: bool) -> ProtectedResourceMetadata {
        ProtectedResourceMetadata {
            resource: self.resource(mcp),
            authorization_servers: vec![self.config.issuer.clone()],
            scopes_supported: Ability::ALL.iter().map(|a| self.scope_of(*a)).collect(),
            bearer_methods_supported: vec!["header"],
            resource_name: "German federal statutes and court decisions (legal-data)",
            resource_documentation: format!("{}/api/openapi.json", self.public_url),
        }
    }

    fn audiences(&self) -> &[String] {
        &self.audiences
    }

    /// Verifies an access token: its identity, or why it is refused (Err: the keys could not
    /// be fetched, so nothing can be said about the token).
    pub async fn verify(&self, token: &str) -> Result<Result<OAuthIdentity, TokenRefusal>, KeysUnavailable> {
        let Ok(header) = jsonwebtoken::decode_header(token) else { return Ok(Err(TokenRefusal::Malformed)) };
        if !ACCEPTED.contains(&header.alg) {
            return Ok(Err(TokenRefusal::Malformed));
        }
        if self.stale() {
            self.refresh().await?;
        }
        let jwk = match self.key(header.kid.as_deref()) {
            Some(k) => k,
            None => {
                self.refresh().await?;
                match self.key(header.kid.as_deref()) {
                    Some(k) => k,
                    None => return Ok(Err(TokenRefusal::BadSignature)),
                }
            }
        };
        // A key published for one algorithm is not used with another (both enums spell RS256 …).
        if jwk.common.key_algorithm.is_some_and(|a| format!("{a:?}") != format!("{:?}", header.alg)) {
            return Ok(Err(TokenRefusal::BadSignature));
        }
        let Ok(key) = DecodingKey::from_jwk(&jwk) else { return Ok(Err(TokenRefusal::BadSignature)) };
        let mut validation = Validation::new(header.alg);
        // `https://id.example/realms/x` and `…/x/` name one issuer; tokens spell it one way.
        let bare = self.config.issuer.trim_end_matches('/');
        validation.set_issuer(&[bare.to_string(), format!("{bare}/")]);
        validation.set_audience(self.audiences());
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.validate_nbf = true;
        validation.leeway = LEEWAY_SECONDS;
        let claims = match jsonwebtoken::decode::<Claims>(token, &key, &validation) {
            Ok(data) => data.claims,
            Err(e) => {
                return Ok(Err(match e.kind() {
                    ErrorKind::ExpiredSignature => TokenRefusal::Expired,
                    ErrorKind::InvalidAudience => TokenRefusal::WrongAudience,
                    ErrorKind::InvalidIssuer => TokenRefusal::WrongIssuer,
                    ErrorKind::ImmatureSignature => TokenRefusal::NotYetValid,
                    ErrorKind::InvalidSignature | ErrorKind::InvalidAlgorithm | ErrorKind::InvalidKeyFormat => {
                        TokenRefusal::BadSignature
                    }
                    _ => TokenRefusal::Malformed,
                }));
            }
        };
        let scopes: Vec<String> = [claims.scope, claims.scp]
            .into_iter()
            .flatten()
            .flat_map(|s| match s {
                Scopes::Spaced(s) => s.split_whitespace().map(str::to_string).collect::<Vec<_>>(),
                Scopes::List(v) => v,
            })
            .collect();
        let abilities =
            Ability::ALL.iter().copied().filter(|a| scopes.iter().any(|s| *s == self.scope_of(*a))).collect();
        Ok(Ok(OAuthIdentity {
            subject: claims.sub,
            client_id: claims.client_id.or(claims.azp),
            scopes,
            abilities,
            expires_at_unix: claims.exp,
        }))
    }

    /// Whether the held keys are older than `jwks_max_age` (or none are held).
    fn stale(&self) -> bool {
        let keys = self.keys.read().unwrap_or_else(|e| e.into_inner());
        keys.fetched_at.is_none_or(|t| t.elapsed() >= self.config.jwks_max_age)
    }

    /// The cached key named `kid`; a token without a `kid` may use the only key of a one-key set.
    fn key(&self, kid: Option<&str>) -> Option<Jwk> {
        let keys = self.keys.read().unwrap_or_else(|e| e.into_inner());
        let set = keys.set.as_ref()?;
        match kid {
            Some(kid) => set.find(kid).cloned(),
            None if set.keys.len() == 1 => set.keys.first().cloned(),
            None => None,
        }
    }

    /// Fetches the JWKS again unless a fetch was tried within [`MIN_REFRESH`] (or within
    /// `jwks_max_age`, when that is shorter). Keeps the held keys when the fetch fails; Err only
    /// when no keys are held at all.
    async fn refresh(&self) -> Result<(), KeysUnavailable> {
        let _one = self.fetching.lock().await;
        let pause = MIN_REFRESH.min(self.config.jwks_max_age);
        let (recent, have_keys) = {
            let keys = self.keys.read().unwrap_or_else(|e| e.into_inner());
            (keys.tried_at.is_some_and(|t| t.elapsed() < pause), keys.set.is_some())
        };
        if recent {
            return if have_keys {
                Ok(())
            } else {
                Err(KeysUnavailable("the issuer's keys were not reachable".into()))
            };
        }
        let fetched = self.fetch_keys().await;
        let mut keys = self.keys.write().unwrap_or_else(|e| e.into_inner());
        keys.tried_at = Some(Instant::now());
        match fetched {
            Ok((url, set)) => {
                keys.jwks_url = Some(url);
                keys.set = Some(Arc::new(set));
                keys.fetched_at = keys.tried_at;
                Ok(())
            }
            Err(e) => {
                tracing::warn!(issuer = %self.config.issuer, error = %e, "cannot fetch the issuer's JWKS");
                if keys.set.is_some() { Ok(()) } else { Err(KeysUnavailable(e)) }
            }
        }
    }

    async fn fetch_keys(&self) -> Result<(String, JwkSet), String> {
        let known = self.keys.read().unwrap_or_else(|e| e.into_inner()).jwks_url.clone();
        let url = match self.config.jwks_url.clone().or(known) {
            Some(u) => u,
            None => self.discover_jwks_url().await?,
        };
        let set: JwkSet = self.get_json(&url).await?;
        Ok((url, set))
    }

    /// The `jwks_uri` of the issuer's metadata: RFC 8414 (well-known segment before the
    /// issuer's path), then OpenID Connect discovery (appended). The metadata must name the
    /// configured issuer (RFC 8414 §3.3).
    async fn discover_jwks_url(&self) -> Result<String, String> {
        let issuer = self.config.issuer.trim_end_matches('/');
        let (origin, path) = match issuer.find("://").and_then(|i| issuer[i + 3..].find('/').map(|j| i + 3 + j)) {
            Some(cut) => (&issuer[..cut], &issuer[cut..]),
            None => (issuer, ""),
        };
        let candidates = [
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{issuer}/.well-known/openid-configuration"),
        ];
        let mut why = Vec::new();
        for url in &candidates {
            match self.get_json::<IssuerMetadata>(url).await {
                Ok(m) if m.issuer.as_deref().map(|i| i.trim_end_matches('/')) != Some(issuer) => {
                    why.push(format!("{url} names issuer {:?}", m.issuer))
                }
                Ok(IssuerMetadata { jwks_uri: Some(j), .. }) => return Ok(j),
                Ok(_) => why.push(format!("{url} has no jwks_uri")),
                Err(e) => why.push(e),
            }
        }
        Err(format!("no usable issuer metadata: {}", why.join("; ")))
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, String> {
        let response = self.http.get(url).send().await.map_err(|e| format!("{url}: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("{url}: HTTP {}", response.status()));
        }
        let body = response.bytes().await.map_err(|e| format!("{url}: {e}"))?;
        serde_json::from_slice(&body).map_err(|e| format!("{url}: not the JSON expected: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oauth(public_url: &str) -> OAuth {
        let config = OAuthConfig {
            issuer: "https://id.example/realms/legal".into(),
            jwks_url: None,
            audiences: Vec::new(),
            scope_prefix: "legal:".into(),
            jwks_max_age: Duration::from_secs(600),
        };
        OAuth::new(config, public_url).unwrap()
    }

    #[test]
    fn the_resource_metadata_names_the_issuer_and_one_scope_per_ability() {
        let o = oauth("https://legal.example/");
        let m = o.resource_metadata(true);
        assert_eq!(m.resource, "https://legal.example/mcp");
        assert_eq!(o.resource_metadata_url(true), "https://legal.example/.well-known/oauth-protected-resource/mcp");
        assert_eq!(o.resource_metadata_url(false), "https://legal.example/.well-known/oauth-protected-resource");
        assert_eq!(m.authorization_servers, vec!["https://id.example/realms/legal".to_string()]);
        assert_eq!(m.scopes_supported.len(), Ability::ALL.len());
        assert!(m.scopes_supported.contains(&"legal:citation-check".to_string()));
        assert!(o.audiences().contains(&"https://legal.example/mcp".to_string()));
    }

    #[tokio::test]
    async fn a_token_that_is_not_a_jwt_or_uses_a_shared_secret_is_malformed() {
        let o = oauth("http://127.0.0.1:1");
        assert_eq!(o.verify("not-a-jwt").await.unwrap().unwrap_err(), TokenRefusal::Malformed);
        // {"alg":"HS256","typ":"JWT"} . {} . x: refused before any key is looked up (no fetch).
        let hs = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.e30.eA";
        assert_eq!(o.verify(hs).await.unwrap().unwrap_err(), TokenRefusal::Malformed);
    }
}
