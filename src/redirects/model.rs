//! The request and response shapes of redirects.

use chrono::{DateTime, Utc};
use plinth_entities::redirect;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RedirectResponse {
    pub id: Uuid,
    /// The site it belongs to.
    pub site_id: Uuid,
    /// The path it answers, without a trailing `/`.
    pub source_path: String,
    /// Where it points: a path on the site or an http(s) URL.
    pub destination: String,
    /// The same as `destination`, under the name the origin service's admin
    /// reads.
    pub destination_path: String,
    /// 301, 302, 307 or 308.
    pub status_code: i32,
    /// Whether it is applied.
    pub is_active: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&redirect::Model> for RedirectResponse {
    fn from(m: &redirect::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            source_path: m.source_path.clone(),
            destination: m.destination.clone(),
            destination_path: m.destination.clone(),
            status_code: m.status_code,
            is_active: m.is_active,
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateRedirect {
    /// A path on the site, e.g. `/old-page`: starts with `/`, no whitespace, at most 500 characters.
    #[schema(max_length = 500, pattern = "<path>")]
    pub source_path: String,
    /// Where the redirect points, trimmed: a path on the site (starts with `/`,
    /// no whitespace, at most 500 characters, a trailing `/` dropped) or an
    /// absolute http(s) URL with a host (no length limit). Must differ from
    /// `source_path` (REDIRECT_SAME_PATH) and not close a loop of active
    /// redirects (409 CONFLICT). `destination_path` is accepted too.
    #[serde(alias = "destination_path")]
    #[schema(pattern = "<redirect destination>")]
    pub destination: String,
    /// 301 (default), 302, 307 or 308.
    #[schema(schema_with = redirect_statuses)]
    pub status_code: Option<i32>,
    /// Whether it is applied (default true).
    pub is_active: Option<bool>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateRedirect {
    /// A path on the site: starts with `/`, no whitespace, at most 500 characters.
    #[schema(max_length = 500, pattern = "<path>")]
    pub source_path: Option<String>,
    /// As on create: a path on the site (at most 500 characters) or an
    /// absolute http(s) URL.
    #[serde(alias = "destination_path")]
    #[schema(pattern = "<redirect destination>")]
    pub destination: Option<String>,
    /// 301, 302, 307 or 308.
    #[schema(schema_with = redirect_statuses)]
    pub status_code: Option<i32>,
    /// Whether it is applied.
    pub is_active: Option<bool>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ResolveQuery {
    /// A path on the site: starts with `/`, no whitespace, at most 500 characters.
    #[param(max_length = 500, pattern = "<path>")]
    pub path: String,
}

#[derive(Serialize, ToSchema)]
pub struct ResolvedRedirect {
    /// The path asked for, normalized.
    pub path: String,
    /// Where the chain of active redirects ends.
    pub destination: String,
    /// The status of the first hop.
    pub status_code: i32,
    /// How many redirects were followed (at most 20).
    pub hops: usize,
}

/// 301, 302, 307 or 308; `null` as when left out.
fn redirect_statuses() -> utoipa::openapi::Object {
    use utoipa::openapi::{schema::SchemaType, Type};
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Integer, Type::Null]))
        .enum_values(Some([Some(301), Some(302), Some(307), Some(308), None]))
        .description(Some(
            "The HTTP status the redirect answers with: 301, 302, 307 or 308; a new redirect without one gets 301",
        ))
        .build()
}
