//! Browser clients on other origins (admin front ends): CORS from
//! `cors_origins` / `PLINTH_CORS_ORIGINS`.

use actix_cors::Cors;
use actix_web::http::header;
use actix_web::http::Method;

/// Headers a browser client must be able to read from responses.
const EXPOSED: [&str; 7] =
    ["etag", "ratelimit", "ratelimit-policy", "retry-after", "location", "x-request-id", "content-disposition"];

/// Request headers a client may send besides the CORS-safelisted ones.
const ALLOWED: [&str; 7] =
    ["authorization", "content-type", "x-api-key", "x-request-id", "x-site-domain", "if-none-match", "if-match"];

/// The CORS middleware for `origins`, or `None` when no origin is configured (then
/// no CORS header is ever sent and browsers keep their same-origin rule).
///
/// `*` allows every origin. Credentials (cookies) are never allowed: Plinth
/// authenticates with the `X-API-Key` and `Authorization` headers, which a
/// browser only sends when the page's script sets them.
pub fn middleware(origins: &[String]) -> Option<Cors> {
    if origins.is_empty() {
        return None;
    }
    let mut cors = Cors::default()
        .allowed_methods([Method::GET, Method::HEAD, Method::POST, Method::PUT, Method::PATCH, Method::DELETE])
        .allowed_headers(ALLOWED.map(header::HeaderName::from_static))
        .expose_headers(EXPOSED.map(header::HeaderName::from_static))
        .max_age(3600);
    if origins.iter().any(|o| o == "*") {
        cors = cors.allow_any_origin().send_wildcard();
    } else {
        for origin in origins {
            cors = cors.allowed_origin(origin.trim_end_matches('/'));
        }
    }
    Some(cors)
}
