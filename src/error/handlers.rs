//! Turns actix-web's own failures (bad JSON, bad path or query parameters, unknown
//! routes, wrong methods) into problem+json, so no client ever sees a bare body.

use actix_web::body::{BoxBody, EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError};
use actix_web::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{web, HttpRequest, HttpResponse, ResponseError};

use super::{ApiError, ErrorCode};

/// JSON bodies: syntax errors are 400 BAD_REQUEST, well-formed JSON of the wrong
/// shape is 422 VALIDATION_ERROR, a missing or wrong content type 415.
pub fn json_config() -> web::JsonConfig {
    web::JsonConfig::default().limit(4 * 1024 * 1024).error_handler(|err, _req| {
        let api_error = match &err {
            JsonPayloadError::ContentType => ApiError::new(
                ErrorCode::UnsupportedMediaType,
                "the request body must be sent with Content-Type: application/json",
            ),
            JsonPayloadError::Deserialize(e) => json_body_error(e),
            JsonPayloadError::OverflowKnownLength { .. } | JsonPayloadError::Overflow { .. } => {
                ApiError::new(ErrorCode::PayloadTooLarge, "the request body is too large")
            }
            other => ApiError::bad_request(format!("the request body could not be read: {other}")),
        };
        actix_web::Error::from(api_error)
    })
}

/// A JSON body that does not parse: 422 when it is JSON of the wrong shape,
/// 400 when it is not JSON. Handlers that read a body themselves (with their
/// own size limit) answer the same way.
pub fn json_body_error(e: &serde_json::Error) -> ApiError {
    json_error_at(e, ".")
}

/// [`json_body_error`] for a body read with the path of what failed
/// (`serde_path_to_error`): the field at fault (`tags`, `items[0].label`) is
/// named in the detail and in `errors[]`, where a client looks for the field
/// to fix.
pub fn json_field_error(e: &serde_path_to_error::Error<serde_json::Error>) -> ApiError {
    json_error_at(e.inner(), &e.path().to_string())
}

fn json_error_at(e: &serde_json::Error, path: &str) -> ApiError {
    if !e.is_data() {
        return ApiError::bad_request(format!("the request body is not valid JSON: {e}"));
    }
    let message = e.to_string();
    let message = shortened(&message, SHOWN_MESSAGE_CHARS);
    let at = |field: &str| match path {
        "." => field.to_string(),
        parent => format!("{parent}.{field}"),
    };
    // serde names a missing field in its message only, relative to the
    // object that lacks it; any other mismatch is at the path itself.
    let (field, code, why) = match message.strip_prefix("missing field `").and_then(|rest| rest.split_once('`')) {
        Some((missing, _)) => (at(missing), ErrorCode::ValidationRequiredField, "is required".to_string()),
        None => (path.to_string(), ErrorCode::ValidationInvalidFormat, message.to_string()),
    };
    let detail = match field.as_str() {
        "." => format!("the request body has the wrong shape: {message}"),
        field => format!("the request body has the wrong shape: {field}: {message}"),
    };
    let mut error = ApiError::new(ErrorCode::ValidationError, detail);
    if field != "." {
        error.errors.push(super::FieldError::new(field, code, why));
    }
    error
}

pub fn path_config() -> web::PathConfig {
    web::PathConfig::default().error_handler(|err: PathError, req| {
        let message = err.to_string();
        // The usual cause: a slug or a name where an id belongs. Name the
        // parameter and what it got rather than the parser's words alone.
        let not_ids: Vec<String> = match message.contains("UUID") {
            true => req
                .match_info()
                .iter()
                .filter(|(_, value)| uuid::Uuid::parse_str(value).is_err())
                .map(|(name, value)| format!("{name} '{}'", shortened(value, SHOWN_PATH_CHARS)))
                .collect(),
            false => Vec::new(),
        };
        let detail = match not_ids.is_empty() {
            true => format!("invalid path parameter: {}", shortened(&message, SHOWN_MESSAGE_CHARS)),
            false => format!(
                "invalid path parameter: {} must be an id (a UUID the API answered, e.g. a site's `id`, not its slug)",
                not_ids.join(", ")
            ),
        };
        ApiError::bad_request(detail).into()
    })
}

pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|err: QueryPayloadError, _req| {
        let message = err.to_string();
        ApiError::bad_request(format!("invalid query parameter: {}", shortened(&message, SHOWN_MESSAGE_CHARS))).into()
    })
}

/// The app's default service: any path no route matches.
pub async fn not_found_fallback(req: HttpRequest) -> HttpResponse {
    ApiError::new(ErrorCode::ResourceNotFound, format!("no resource at {}", shown_path(req.path()))).error_response()
}

/// The longest stretch of a request path a problem's `detail` repeats.
const SHOWN_PATH_CHARS: usize = 200;
/// The longest parser message (which quotes the offending value) a `detail` repeats.
const SHOWN_MESSAGE_CHARS: usize = 500;

pub fn shown_path(path: &str) -> std::borrow::Cow<'_, str> {
    shortened(path, SHOWN_PATH_CHARS)
}

/// `text` cut after `max_chars` characters: the path or the parser message a
/// problem repeats comes from the client, and a 60,000-character URL or query
/// value is not sent back (and logged) whole.
fn shortened(text: &str, max_chars: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]).into(),
        None => text.into(),
    }
}

/// Middleware: an error response actix produced itself (a 405 for a wrong method,
/// say) carries no problem body; give it one.
pub async fn rewrite_bare_errors(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody, BoxBody>>, actix_web::Error> {
    let res = next.call(req).await?;
    let status = res.status();
    let is_problem = res
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/problem+json"));
    if !status.is_client_error() && !status.is_server_error() || is_problem {
        return Ok(res.map_into_left_body());
    }
    let detail = match status {
        StatusCode::METHOD_NOT_ALLOWED => {
            format!("{} is not allowed on {}", res.request().method(), shown_path(res.request().path()))
        }
        StatusCode::NOT_FOUND => format!("no resource at {}", shown_path(res.request().path())),
        other => other.canonical_reason().unwrap_or("request failed").to_string(),
    };
    let mut problem = ApiError::from_status(status, detail).error_response();
    // Keep what the original answer said in its headers (`Allow` on a 405, CORS
    // headers for a browser client), but not the description of its old body.
    for (name, value) in res.headers() {
        if name != CONTENT_TYPE && name != CONTENT_LENGTH && !problem.headers().contains_key(name) {
            problem.headers_mut().append(name.clone(), value.clone());
        }
    }
    let (req, _) = res.into_parts();
    Ok(ServiceResponse::new(req, problem).map_into_right_body())
}
