//! Documents of a site: links or uploaded files (inline base64), folders
//! (shared engine in `folders`), localizations, blog attachments, and private
//! documents encrypted at rest with password access. Every endpoint answers
//! MODULE_NOT_ENABLED (403) while `module_documents_enabled` is off, and the
//! anonymous ones (download, verify-access) answer 404.

pub mod attachments;
mod crypto;
mod download;
mod lease;
mod model;
mod privacy;
pub mod service;
mod stream;
pub mod trash;

pub use model::*;

use actix_web::web::{self};
use actix_web::{HttpRequest, HttpResponse};
use serde::de::DeserializeOwned;
use uuid::Uuid;

use crate::auth::{client_address, Capability, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::pagination::Paginated;
use crate::routes::Routes;
use crate::site_rows;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [
        list_documents, create_document, get_document, document_detail, update_document, delete_document,
        make_document_private, make_document_public, unlock_document,
        create_document_localization, update_document_localization, delete_document_localization,
        list_blog_documents, attach_blog_document, detach_blog_document,
    ]);
    crate::mount!(r, lease => [take_document_lease, release_document_lease]);
    crate::mount!(r, public: self => [download_document, verify_document_access]);
}

/// A JSON body of at most the size an inline file of `max_file` bytes needs
/// in base64 (plus room for the other fields): larger bodies are refused while
/// they stream in, before anything is decoded.
async fn read_body<T: DeserializeOwned>(payload: web::Payload, max_file: i64) -> ApiResult<T> {
    let limit = usize::try_from(max_file).unwrap_or(0) / 3 * 4 + 64 * 1024;
    let detail = format!("the body exceeds what a document of the site's maximum size ({max_file} bytes) needs");
    crate::body::read_json_capped(payload, limit, &detail).await
}

async fn documents_site(
    state: &AppState,
    principal: &Principal,
    site_id: Uuid,
    capability: Capability,
) -> ApiResult<i64> {
    principal.require(state, site_id, capability).await?;
    let site = state.site_state(site_id).await?;
    site.settings.require_documents()?;
    Ok(site.settings.max_document_file_size)
}

/// The document `id` once the caller has `capability` on its site and the
/// site has the documents module on.
async fn find_document(
    state: &AppState,
    principal: &Principal,
    id: Uuid,
    capability: Capability,
) -> ApiResult<plinth_entities::document::Model> {
    let doc: plinth_entities::document::Model = site_rows::find(state, principal, id, capability).await?;
    state.site_state(doc.site_id).await?.settings.require_documents()?;
    Ok(doc)
}

/// The sites of the live blog post `blog_id`, once the caller may read one of them.
async fn readable_blog_sites(state: &AppState, principal: &Principal, blog_id: Uuid) -> ApiResult<Vec<Uuid>> {
    let sites = attachments::blog_sites(state, blog_id).await?;
    let mut first_error = None;
    for site in &sites {
        match principal.require(state, *site, Capability::Read).await {
            Ok(_) => return Ok(sites),
            Err(e) => first_error = first_error.or(Some(e)),
        }
    }
    Err(first_error.unwrap_or_else(|| ApiError::new(ErrorCode::AuthSiteAccessDenied, "the post is on no site")))
}

/// List a site's documents
///
/// Read role or higher on the site. Errors: MODULE_NOT_ENABLED, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(get, path = "/sites/{site_id}/documents", tag = "Documents", params(("site_id" = Uuid, Path), DocumentListQuery),
    responses((status = 200, body = Paginated<DocumentResponse>)))]
pub async fn list_documents(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<DocumentListQuery>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    documents_site(&state, &principal, site_id, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(service::list(&state, site_id, query.into_inner()).await?))
}

/// Create a document
///
/// Author role or higher on the site. A `url` or an inline base64 file, checked against the site's maximum document
/// size. Errors: PAYLOAD_TOO_LARGE, DOCUMENT_NOT_UPLOADABLE, DOCUMENT_INVALID_TTL, MODULE_NOT_ENABLED,
/// VALIDATION_INVALID_FORMAT, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(post, path = "/sites/{site_id}/documents", tag = "Documents", params(("site_id" = Uuid, Path)),
    request_body = CreateDocument,
    responses(
        (status = 201, body = DocumentResponse),
        (status = 413, body = Problem, content_type = "application/problem+json", description = "The file exceeds max_document_file_size (checked before decoding)")
    ))]
pub async fn create_document(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    payload: web::Payload,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    let max = documents_site(&state, &principal, site_id, Capability::CreateContent).await?;
    let body: CreateDocument = read_body(payload, max).await?;
    let created = service::create(&state, &principal.actor(), site_id, body).await?;
    Ok(HttpResponse::Created().json(created))
}

/// Show a document
///
/// Read role or higher on the document's site; without localizations. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/documents/{id}", tag = "Documents", params(("id" = Uuid, Path)),
    responses((status = 200, body = DocumentResponse, description = "Without localizations")))]
pub async fn get_document(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let doc = find_document(&state, &principal, id.into_inner(), Capability::Read).await?;
    Ok(HttpResponse::Ok().json(service::response(&state, &doc, None)))
}

/// Show a document with its localizations
///
/// Read role or higher on the document's site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/documents/{id}/detail", tag = "Documents", params(("id" = Uuid, Path)),
    responses((status = 200, body = DocumentResponse, description = "With localizations")))]
pub async fn document_detail(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let doc = find_document(&state, &principal, id.into_inner(), Capability::Read).await?;
    let localizations = service::localizations_of(&state, doc.id).await?;
    Ok(HttpResponse::Ok().json(service::response(&state, &doc, Some(localizations))))
}

/// Change a document
///
/// Author role or higher on the document's site. Errors: ENTITY_NOT_FOUND, DOCUMENT_INVALID_TTL,
/// VALIDATION_INVALID_FORMAT, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(put, path = "/documents/{id}", tag = "Documents", params(("id" = Uuid, Path)), request_body = UpdateDocument,
    responses((status = 200, body = DocumentResponse)))]
pub async fn update_document(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    payload: web::Payload,
) -> ApiResult<HttpResponse> {
    let doc = find_document(&state, &principal, id.into_inner(), Capability::CreateContent).await?;
    let max = state.site_state(doc.site_id).await?.settings.max_document_file_size;
    let body: UpdateDocument = read_body(payload, max).await?;
    Ok(HttpResponse::Ok().json(service::update(&state, &principal.actor(), doc, body).await?))
}

/// Delete a document
///
/// Editor role or higher on the document's site. Soft delete. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(delete, path = "/documents/{id}", tag = "Documents", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Moved to the trash (Editor)")))]
pub async fn delete_document(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let doc = find_document(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    service::delete(&state, &principal.actor(), doc).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Download a document
///
/// Public. A private document needs the `token` from verify-access (else an HTML password page or
/// DOCUMENT_PASSWORD_REQUIRED). Errors: ENTITY_NOT_FOUND, DOCUMENT_PASSWORD_REQUIRED, DOCUMENT_EXPIRED,
/// DOCUMENT_LOCKED, RANGE_NOT_SATISFIABLE, STORAGE_ERROR.
#[utoipa::path(get, path = "/documents/{id}/download", tag = "Documents",
    params(
        ("id" = Uuid, Path),
        DownloadQuery,
        ("Range" = Option<String>, Header, description = "Public uploaded files: one byte range (`bytes=0-1023`, `bytes=1024-`, `bytes=-512`); other forms are ignored"),
        ("If-None-Match" = Option<String>, Header, description = "Public uploaded files: the ETag of a copy held; `304` while it matches"),
        ("Accept" = Option<String>, Header, description = "With `text/html`, a private document without a token answers a password page (200) instead of 401")
    ),
    responses(
        (status = 200, content_type = "*/*", body = Vec<u8>, description = "The file, as the type it was stored with (private ones decrypted as they stream; need `token`)"),
        (status = 206, content_type = "*/*", body = Vec<u8>, description = "A range of a public file"),
        (status = 302, description = "An outside document: its URL"),
        (status = 304, description = "The copy held is current"),
        (status = 401, body = Problem, content_type = "application/problem+json", description = "DOCUMENT_PASSWORD_REQUIRED (no or bad token); browsers (Accept: text/html) get a password page with 200 instead"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 410, body = Problem, content_type = "application/problem+json", description = "DOCUMENT_EXPIRED"),
        (status = 423, body = Problem, content_type = "application/problem+json", description = "DOCUMENT_LOCKED")
    ),
    security(()))]
pub async fn download_document(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<DownloadQuery>,
) -> ApiResult<HttpResponse> {
    download::download(&state, &request, id.into_inner(), query.token.as_deref()).await
}

/// Exchange a document's password for a token
///
/// Public. The token is valid for an hour. Errors: DOCUMENT_PASSWORD_INCORRECT, DOCUMENT_ACCESS_RATE_LIMITED,
/// DOCUMENT_LOCKED (after 3 failures), ENTITY_NOT_FOUND.
#[utoipa::path(post, path = "/documents/{id}/verify-access", tag = "Documents", params(("id" = Uuid, Path)), request_body = VerifyAccess,
    responses(
        (status = 200, body = AccessToken, description = "A token for the download, valid 1 hour"),
        (status = 401, body = Problem, content_type = "application/problem+json", description = "DOCUMENT_PASSWORD_REQUIRED"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "DOCUMENT_PASSWORD_INCORRECT"),
        (status = 410, body = Problem, content_type = "application/problem+json", description = "DOCUMENT_EXPIRED"),
        (status = 423, body = Problem, content_type = "application/problem+json", description = "DOCUMENT_LOCKED (the third wrong password locks)"),
        (status = 429, body = Problem, content_type = "application/problem+json", description = "DOCUMENT_ACCESS_RATE_LIMITED: 10 wrong passwords a minute from one address, then 5 minutes")
    ),
    security(()))]
pub async fn verify_document_access(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
    body: Option<crate::body::Json<VerifyAccess>>,
) -> ApiResult<HttpResponse> {
    let doc = download::find_public(&state, id.into_inner()).await?;
    let password = body.and_then(|b| b.into_inner().password);
    let token = privacy::verify_access(&state, doc, client_address(&request), password).await?;
    Ok(HttpResponse::Ok().insert_header(("Cache-Control", "no-store")).json(token))
}

/// Protect a document with a password
///
/// Editor role or higher on the document's site. Errors: ENTITY_NOT_FOUND, DOCUMENT_ENCRYPTION_FAILED,
/// VALIDATION_OUT_OF_RANGE.
#[utoipa::path(post, path = "/documents/{id}/privacy", tag = "Documents", params(("id" = Uuid, Path)), request_body = MakePrivate,
    responses(
        (status = 200, body = DocumentResponse, description = "Encrypted at rest (Editor)"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "DOCUMENT_NOT_UPLOADABLE, DOCUMENT_INVALID_TTL")
    ))]
pub async fn make_document_private(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<MakePrivate>,
) -> ApiResult<HttpResponse> {
    let doc = find_document(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    Ok(HttpResponse::Ok().json(privacy::make_private(&state, &principal.actor(), doc, body.into_inner()).await?))
}

/// Remove a document's password
///
/// Editor role or higher on the document's site. Errors: ENTITY_NOT_FOUND, DOCUMENT_PASSWORD_INCORRECT,
/// DOCUMENT_DECRYPTION_FAILED.
#[utoipa::path(delete, path = "/documents/{id}/privacy", tag = "Documents", params(("id" = Uuid, Path)), request_body = MakePublic,
    responses((status = 200, body = DocumentResponse, description = "Decrypted (Editor): with the password, or by the server's recovery key")))]
pub async fn make_document_public(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: Option<crate::body::Json<MakePublic>>,
) -> ApiResult<HttpResponse> {
    let doc = find_document(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    let password = body.and_then(|b| b.into_inner().password);
    Ok(HttpResponse::Ok().json(privacy::make_public(&state, &principal.actor(), doc, password).await?))
}

/// Unlock a locked document
///
/// Admin role or higher on the document's site. Errors: ENTITY_NOT_FOUND, DOCUMENT_NOT_LOCKED.
#[utoipa::path(post, path = "/documents/{id}/unlock", tag = "Documents", params(("id" = Uuid, Path)),
    responses(
        (status = 200, body = DocumentResponse, description = "Unlocked, attempts reset (Admin)"),
        (status = 409, body = Problem, content_type = "application/problem+json", description = "DOCUMENT_NOT_LOCKED")
    ))]
pub async fn unlock_document(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let doc = find_document(&state, &principal, id.into_inner(), Capability::AdministerSite).await?;
    Ok(HttpResponse::Ok().json(privacy::unlock(&state, &principal.actor(), doc).await?))
}

/// Add a localization to a document
///
/// Author role or higher on the document's site. Errors: ENTITY_NOT_FOUND, ENTITY_LOCALIZATION_EXISTS,
/// VALIDATION_INVALID_FORMAT.
#[utoipa::path(post, path = "/documents/{id}/localizations", tag = "Documents", params(("id" = Uuid, Path)),
    request_body = CreateDocumentLocalization, responses((status = 201, body = DocumentLocalizationResponse)))]
pub async fn create_document_localization(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<CreateDocumentLocalization>,
) -> ApiResult<HttpResponse> {
    let doc = find_document(&state, &principal, id.into_inner(), Capability::CreateContent).await?;
    let created = service::create_localization(&state, &principal.actor(), &doc, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(created))
}

/// Change a localization of a document
///
/// Read role or higher on the document's site. Errors: ENTITY_LOCALIZATION_NOT_FOUND, VALIDATION_INVALID_FORMAT.
#[utoipa::path(put, path = "/documents/localizations/{loc_id}", tag = "Documents", params(("loc_id" = Uuid, Path)),
    request_body = UpdateDocumentLocalization, responses((status = 200, body = DocumentLocalizationResponse)))]
pub async fn update_document_localization(
    state: web::Data<AppState>,
    principal: Principal,
    loc_id: web::Path<Uuid>,
    body: crate::body::Json<UpdateDocumentLocalization>,
) -> ApiResult<HttpResponse> {
    let current = service::find_localization(&state, loc_id.into_inner()).await?;
    let doc = find_document(&state, &principal, current.document_id, Capability::Read).await?;
    let updated = service::update_localization(&state, &principal.actor(), &doc, current, body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(updated))
}

/// Delete a localization of a document
///
/// Read role or higher on the document's site. Errors: ENTITY_LOCALIZATION_NOT_FOUND.
#[utoipa::path(delete, path = "/documents/localizations/{loc_id}", tag = "Documents", params(("loc_id" = Uuid, Path)),
    responses((status = 204, description = "Deleted")))]
pub async fn delete_document_localization(
    state: web::Data<AppState>,
    principal: Principal,
    loc_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let current = service::find_localization(&state, loc_id.into_inner()).await?;
    let doc = find_document(&state, &principal, current.document_id, Capability::Read).await?;
    service::delete_localization(&state, &principal.actor(), &doc, current).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// List the documents attached to a post
///
/// Read role or higher on the post's site. Errors: ENTITY_NOT_FOUND, AUTH_SITE_ACCESS_DENIED.
#[utoipa::path(get, path = "/blogs/{blog_id}/documents", tag = "Documents", params(("blog_id" = Uuid, Path)),
    responses((status = 200, body = Vec<BlogDocumentResponse>, description = "In display_order")))]
pub async fn list_blog_documents(
    state: web::Data<AppState>,
    principal: Principal,
    blog_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let blog_id = blog_id.into_inner();
    readable_blog_sites(&state, &principal, blog_id).await?;
    Ok(HttpResponse::Ok().json(attachments::list(&state, blog_id).await?))
}

/// Attach a document to a post
///
/// Read role or higher on the post's site. Errors: ENTITY_NOT_FOUND, CONFLICT, AUTH_SITE_ACCESS_DENIED.
#[utoipa::path(post, path = "/blogs/{blog_id}/documents", tag = "Documents", params(("blog_id" = Uuid, Path)),
    request_body = AttachDocument, responses((status = 201, body = BlogDocumentResponse)))]
pub async fn attach_blog_document(
    state: web::Data<AppState>,
    principal: Principal,
    blog_id: web::Path<Uuid>,
    body: crate::body::Json<AttachDocument>,
) -> ApiResult<HttpResponse> {
    let blog_id = blog_id.into_inner();
    let sites = readable_blog_sites(&state, &principal, blog_id).await?;
    let attached = attachments::attach(&state, blog_id, &sites, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(attached))
}

/// Detach a document from a post
///
/// Read role or higher on the post's site. Errors: ENTITY_NOT_FOUND, AUTH_SITE_ACCESS_DENIED.
#[utoipa::path(delete, path = "/blogs/{blog_id}/documents/{doc_id}", tag = "Documents",
    params(("blog_id" = Uuid, Path), ("doc_id" = Uuid, Path)), responses((status = 204, description = "Detached")))]
pub async fn detach_blog_document(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
) -> ApiResult<HttpResponse> {
    let (blog_id, doc_id) = path.into_inner();
    let sites = readable_blog_sites(&state, &principal, blog_id).await?;
    attachments::detach(&state, blog_id, &sites, doc_id).await?;
    Ok(HttpResponse::NoContent().finish())
}
