//! One error type for the whole API, rendered as RFC 7807 problem+json in exactly
//! one place ([`ApiError::error_response`]).

mod catalog;
mod handlers;

pub use catalog::ErrorCode;
pub use handlers::{
    json_body_error, json_config, json_field_error, not_found_fallback, path_config, query_config, rewrite_bare_errors,
    shown_path,
};

use std::sync::OnceLock;

use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use sea_orm::{DbErr, RuntimeErr, SqlErr};
use serde::Serialize;
use utoipa::ToSchema;

/// Base of the `type` URI of every problem. Set once at start from configuration.
static ERROR_TYPE_BASE: OnceLock<String> = OnceLock::new();

pub fn set_error_type_base(base: &str) {
    let _ = ERROR_TYPE_BASE.set(base.trim_end_matches('/').to_string());
}

fn error_type_base() -> &'static str {
    ERROR_TYPE_BASE.get().map(String::as_str).unwrap_or("https://plinth.dev/problems")
}

/// One field-level validation failure.
#[derive(Clone, Debug, Serialize, ToSchema, PartialEq, Eq)]
pub struct FieldError {
    /// The request field, as a JSON path (`locales[1].is_default`).
    pub field: String,
    /// A machine code: `VALIDATION_REQUIRED_FIELD`, `VALIDATION_INVALID_FORMAT`, …
    pub code: String,
    /// What is wrong with the field, for people.
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, code: ErrorCode, message: impl Into<String>) -> Self {
        Self { field: field.into(), code: code.as_str().to_string(), message: message.into() }
    }
}

/// The RFC 7807 body every failure answers with.
#[derive(Serialize, ToSchema)]
pub struct Problem {
    /// `{error_type_base}/<code lowercased>`
    #[serde(rename = "type")]
    pub type_uri: String,
    /// The HTTP status name.
    pub title: String,
    /// The HTTP status code.
    pub status: u16,
    /// What went wrong, for people.
    pub detail: String,
    /// `<DOMAIN>_<CAUSE>`, stable once shipped.
    pub code: String,
    /// Only for ENTITY_* codes: the domain of the entity (`site`, `blog`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity_type: Option<String>,
    /// Only for field validation failures.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldError>,
    /// Only for a refused delete of referenced media: how many references.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage_count: Option<u32>,
    /// Only for PRECONDITION_FAILED: the item's tag now, to save with once
    /// the change is applied to the item as it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_etag: Option<String>,
    /// Only for PRECONDITION_FAILED: the fields changed since the version
    /// `If-Match` named (absent when that version is too old to tell).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_fields: Option<Vec<String>>,
    /// Only for LEASE_HELD: the lease another caller holds (who, since when,
    /// until when).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub lease: Option<serde_json::Value>,
}

#[derive(Clone, Debug)]
pub struct ApiError {
    code: ErrorCode,
    status: StatusCode,
    detail: String,
    entity_type: Option<String>,
    errors: Vec<FieldError>,
    /// Members only a few problems carry, boxed: most errors have none, and
    /// every `Result` of the app is as large as its error.
    members: Option<Box<RareMembers>>,
    headers: Vec<(HeaderName, HeaderValue)>,
    /// The problem body, rendered ahead for errors answered in bulk (429s).
    rendered: Option<std::sync::Arc<actix_web::web::Bytes>>,
}

pub type ApiResult<T> = Result<T, ApiError>;

/// The problem members of [`Problem`] that only one code each fills.
#[derive(Clone, Debug, Default)]
struct RareMembers {
    usage_count: Option<u32>,
    current_etag: Option<String>,
    changed_fields: Option<Vec<String>>,
    lease: Option<serde_json::Value>,
}

impl ApiError {
    pub fn new(code: ErrorCode, detail: impl Into<String>) -> Self {
        Self {
            code,
            status: code.status(),
            detail: detail.into(),
            entity_type: None,
            errors: Vec::new(),
            members: None,
            headers: Vec::new(),
            rendered: None,
        }
    }

    /// Adds the `usage_count` member (a refused delete of referenced media).
    pub fn with_usage_count(mut self, count: u32) -> Self {
        self.members.get_or_insert_default().usage_count = Some(count);
        self
    }

    /// Adds PRECONDITION_FAILED's `current_etag` and `changed_fields` members.
    pub fn with_precondition(mut self, current_etag: String, changed_fields: Option<Vec<String>>) -> Self {
        let members = self.members.get_or_insert_default();
        members.current_etag = Some(current_etag);
        members.changed_fields = changed_fields;
        self
    }

    /// Adds LEASE_HELD's `lease` member: who holds it, since and until when.
    pub fn with_lease(mut self, lease: serde_json::Value) -> Self {
        self.members.get_or_insert_default().lease = Some(lease);
        self
    }

    /// Renders the problem body now, so every clone answers without rendering
    /// it again: for errors kept and answered many times over.
    pub fn prerendered(mut self) -> Self {
        self.rendered = serde_json::to_vec(&self.problem()).ok().map(|body| std::sync::Arc::new(body.into()));
        self
    }

    pub fn code(&self) -> ErrorCode {
        self.code
    }

    pub fn detail(&self) -> &str {
        &self.detail
    }

    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }

    pub fn with_headers(mut self, headers: impl IntoIterator<Item = (HeaderName, HeaderValue)>) -> Self {
        self.headers.extend(headers);
        self
    }

    /// ENTITY_NOT_FOUND naming the entity domain.
    pub fn not_found(entity_type: &str, id: impl std::fmt::Display) -> Self {
        let mut e = Self::new(ErrorCode::EntityNotFound, format!("{entity_type} {id} does not exist"));
        e.entity_type = Some(entity_type.to_string());
        e
    }

    /// ENTITY_SLUG_TAKEN naming the entity domain.
    pub fn slug_taken(entity_type: &str, slug: &str) -> Self {
        let mut e = Self::new(
            ErrorCode::EntitySlugTaken,
            format!("the slug '{slug}' is already used by another {entity_type}"),
        );
        e.entity_type = Some(entity_type.to_string());
        e
    }

    /// Any ENTITY_* code with its entity domain.
    pub fn entity(code: ErrorCode, entity_type: &str, detail: impl Into<String>) -> Self {
        let mut e = Self::new(code, detail);
        e.entity_type = Some(entity_type.to_string());
        e
    }

    /// 422 VALIDATION_ERROR carrying field errors.
    pub fn validation(errors: Vec<FieldError>) -> Self {
        let detail = match errors.as_slice() {
            [one] => format!("{}: {}", one.field, one.message),
            many => format!("{} fields are invalid", many.len()),
        };
        let mut e = Self::new(ErrorCode::ValidationError, detail);
        e.errors = errors;
        e
    }

    /// `code` (a domain's own validation code) carrying field errors.
    pub fn with_field_errors(code: ErrorCode, errors: Vec<FieldError>) -> Self {
        let mut e = Self::validation(errors);
        e.code = code;
        e.status = code.status();
        e
    }

    pub fn bad_request(detail: impl Into<String>) -> Self {
        Self::new(ErrorCode::BadRequest, detail)
    }

    pub fn internal(detail: impl std::fmt::Display) -> Self {
        tracing::error!(error = %detail, "internal error");
        Self::new(ErrorCode::InternalError, "an unexpected error occurred")
    }

    /// A generic problem for a status no specific code was set for.
    pub fn from_status(status: StatusCode, detail: impl Into<String>) -> Self {
        let code = match status.as_u16() {
            400 => ErrorCode::BadRequest,
            401 => ErrorCode::Unauthorized,
            403 => ErrorCode::Forbidden,
            404 => ErrorCode::ResourceNotFound,
            405 => ErrorCode::MethodNotAllowed,
            408 => ErrorCode::RequestTimeout,
            409 => ErrorCode::Conflict,
            412 => ErrorCode::PreconditionFailed,
            423 => ErrorCode::LeaseHeld,
            413 => ErrorCode::PayloadTooLarge,
            415 => ErrorCode::UnsupportedMediaType,
            416 => ErrorCode::RangeNotSatisfiable,
            422 => ErrorCode::ValidationError,
            429 => ErrorCode::RateLimitExceeded,
            431 => ErrorCode::RequestHeaderFieldsTooLarge,
            503 => ErrorCode::ServiceUnavailable,
            _ => ErrorCode::InternalError,
        };
        let mut e = Self::new(code, detail);
        e.status = status;
        e
    }

    /// The problem+json body, serialized (for answers written below actix-web).
    pub fn problem_body(&self) -> Vec<u8> {
        serde_json::to_vec(&self.problem()).unwrap_or_default()
    }

    fn problem(&self) -> Problem {
        Problem {
            type_uri: format!("{}/{}", error_type_base(), self.code.as_str().to_lowercase()),
            title: self.status.canonical_reason().unwrap_or("Error").to_string(),
            status: self.status.as_u16(),
            detail: self.detail.clone(),
            code: self.code.as_str().to_string(),
            entity_type: self.entity_type.clone(),
            errors: self.errors.clone(),
            usage_count: self.members.as_ref().and_then(|m| m.usage_count),
            current_etag: self.members.as_ref().and_then(|m| m.current_etag.clone()),
            changed_fields: self.members.as_ref().and_then(|m| m.changed_fields.clone()),
            lease: self.members.as_ref().and_then(|m| m.lease.clone()),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.code.as_str(), self.status.as_u16(), self.detail)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        const PROBLEM_JSON: HeaderValue = HeaderValue::from_static("application/problem+json");
        let body = match &self.rendered {
            Some(body) => actix_web::web::Bytes::clone(body),
            None => serde_json::to_vec(&self.problem()).unwrap_or_default().into(),
        };
        let mut response = HttpResponse::with_body(self.status, body).map_into_boxed_body();
        let headers = response.headers_mut();
        headers.insert(actix_web::http::header::CONTENT_TYPE, PROBLEM_JSON);
        for (name, value) in &self.headers {
            headers.insert(name.clone(), value.clone());
        }
        response
    }
}

/// Database errors: unique and foreign-key violations become 409 CONFLICT unless a
/// caller maps them more precisely with [`on_constraint`]; the rest are 500.
impl From<DbErr> for ApiError {
    fn from(err: DbErr) -> Self {
        // Every pooled connection busy for the whole acquire wait: an overload,
        // not a fault. Shed it at once so the client backs off and retries.
        if matches!(err, DbErr::ConnectionAcquire(_)) {
            crate::observability::pool_exhausted();
            return Self::new(ErrorCode::ServiceUnavailable, "the database is busy; retry after Retry-After seconds")
                .with_header(
                    actix_web::http::header::RETRY_AFTER,
                    actix_web::http::header::HeaderValue::from_static("1"),
                );
        }
        // PostgreSQL gave up one of two transactions that waited on each other
        // (deadlock_detected, serialization_failure): nothing was written, and
        // the same request succeeds when sent again.
        // SQLite's lock stayed taken for the whole busy timeout (SQLITE_BUSY,
        // SQLITE_LOCKED and their extended codes): the same.
        if matches!(database_code(&err).as_deref(), Some("40P01" | "40001" | "5" | "6" | "261" | "262" | "517")) {
            return Self::new(
                ErrorCode::ServiceUnavailable,
                "the change collided with a concurrent one; send it again",
            )
            .with_header(actix_web::http::header::RETRY_AFTER, actix_web::http::header::HeaderValue::from_static("1"));
        }
        match broken_constraint(&err) {
            Some(Constraint::Unique) => Self::new(ErrorCode::Conflict, "the change conflicts with an existing record"),
            Some(Constraint::ForeignKey) => {
                Self::new(ErrorCode::Conflict, "the change refers to or is referred to by another record")
            }
            None => {
                tracing::error!(error = %err, "database error");
                Self::new(ErrorCode::DatabaseError, "a database error occurred")
            }
        }
    }
}

/// Which kind of constraint a database error broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Constraint {
    Unique,
    ForeignKey,
}

/// Which constraint a database error broke, if any. Beyond what sea-orm
/// recognises: a RESTRICT foreign key, which SQLite enforces from an internal
/// trigger (extended code 1811, "FOREIGN KEY constraint failed") and
/// PostgreSQL reports as restrict_violation (23001).
fn broken_constraint(err: &DbErr) -> Option<Constraint> {
    match err.sql_err() {
        Some(SqlErr::UniqueConstraintViolation(_)) => return Some(Constraint::Unique),
        Some(SqlErr::ForeignKeyConstraintViolation(_)) => return Some(Constraint::ForeignKey),
        _ => {}
    }
    let db = database_error(err)?;
    let restrict = match db.code().as_deref() {
        Some("23001") => true,
        Some("1811") => db.message().contains("FOREIGN KEY constraint failed"),
        _ => false,
    };
    restrict.then_some(Constraint::ForeignKey)
}

/// The error the database itself sent, if this is one.
fn database_error(err: &DbErr) -> Option<&dyn sea_orm::sqlx::error::DatabaseError> {
    let (DbErr::Exec(RuntimeErr::SqlxError(e)) | DbErr::Query(RuntimeErr::SqlxError(e))) = err else {
        return None;
    };
    match &**e {
        sea_orm::sqlx::Error::Database(db) => Some(&**db),
        _ => None,
    }
}

/// The database's own error code (SQLSTATE on PostgreSQL), if it sent one.
fn database_code(err: &DbErr) -> Option<String> {
    database_error(err)?.code().map(|c| c.into_owned())
}

/// Maps a constraint violation to a precise error, passing other errors through:
/// `insert(..).await.map_err(on_constraint(Constraint::Unique, || ApiError::slug_taken(..)))`.
pub fn on_constraint(kind: Constraint, to_error: impl FnOnce() -> ApiError) -> impl FnOnce(DbErr) -> ApiError {
    move |err| {
        if broken_constraint(&err) == Some(kind) {
            to_error()
        } else {
            ApiError::from(err)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_upper_snake_and_unique() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            let s = code.as_str();
            assert!(s.chars().all(|c| c.is_ascii_uppercase() || c == '_'), "{s}");
            assert!(seen.insert(s), "duplicate {s}");
            assert!(code.status().as_u16() >= 400, "{s}");
        }
        assert!(seen.contains("ACCOUNT_BANNED"));
        assert_eq!(ErrorCode::SiteRestoreExpired.status().as_u16(), 410);
    }

    #[test]
    fn entity_codes_carry_entity_type_and_validation_carries_errors() {
        let p = ApiError::not_found("site", "x").problem();
        assert_eq!(p.code, "ENTITY_NOT_FOUND");
        assert_eq!(p.entity_type.as_deref(), Some("site"));
        assert!(p.type_uri.ends_with("/entity_not_found"));
        let v = ApiError::validation(vec![FieldError::new("name", ErrorCode::ValidationRequiredField, "required")])
            .problem();
        assert_eq!(v.status, 422);
        assert_eq!(v.errors.len(), 1);
        assert!(v.entity_type.is_none());
    }

    /// A write that waited out SQLite's busy timeout behind another writer is
    /// an overload: 503 with Retry-After, not a 500.
    #[tokio::test]
    async fn a_lock_held_past_the_busy_timeout_is_service_unavailable() {
        use sea_orm::{ConnectOptions, ConnectionTrait, Database};
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("busy.db").display());
        let connect = || {
            let mut options = ConnectOptions::new(url.clone());
            options
                .max_connections(1)
                .sqlx_logging(false)
                .map_sqlx_sqlite_opts(|o| o.busy_timeout(std::time::Duration::ZERO));
            Database::connect(options)
        };
        let (holder, waiter) = (connect().await.unwrap(), connect().await.unwrap());
        holder.execute_unprepared("CREATE TABLE t (x INTEGER)").await.unwrap();
        holder.execute_unprepared("BEGIN IMMEDIATE").await.unwrap();
        let refused = waiter.execute_unprepared("INSERT INTO t VALUES (1)").await.unwrap_err();
        let error = ApiError::from(refused);
        assert_eq!(error.code(), ErrorCode::ServiceUnavailable);
        assert_eq!(error.error_response().headers().get("retry-after").unwrap(), "1");
        holder.execute_unprepared("ROLLBACK").await.unwrap();
    }
}
