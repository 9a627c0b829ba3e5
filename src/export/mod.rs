//! Site export: `POST /sites/{id}/export` queues a job (202), the
//! ExportBuilder builds the ZIP into storage, `GET …/export/{job_id}` shows its
//! state, and `GET …/download?token` (token AND Owner/Admin) streams it.
//! Archives and links lapse 7 days after the build and are purged.

pub mod archive;
mod bounds;
mod builder;
pub mod format;
mod import;
pub mod jobs;
mod pages;
mod restore;
mod stream;
mod unfinished;
mod v1;

pub use builder::ExportBuilder;
pub use jobs::ExportJobResponse;
pub use unfinished::remove_abandoned as remove_unfinished_imports;

use actix_web::http::header;
use actix_web::web::{self};
use actix_web::HttpResponse;
use futures_util::TryStreamExt;
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::permissions::RoleGrants;
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [import_site, start_export, get_export, download_export]);
}

/// The multipart form of `POST /sites/import`.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
// Other parts are read and ignored, but a part name the multipart parser
// cannot read (a control character) fails the whole form: the document
// names only these parts (`additionalProperties: false`).
#[serde(deny_unknown_fields)]
pub struct ImportForm {
    /// A ZIP made by `POST /sites/{id}/export`.
    #[schema(value_type = String, format = Binary)]
    pub archive: Vec<u8>,
}

/// Import a site archive
///
/// An API key with Admin permission that is not site-scoped, or a JWT user (who becomes owner). Errors:
/// PAYLOAD_TOO_LARGE, CONFLICT, STORAGE_QUOTA_EXCEEDED, VALIDATION_ERROR.
#[utoipa::path(post, path = "/sites/import", tag = "Sites",
    request_body(content = ImportForm, content_type = "multipart/form-data"),
    responses(
        (status = 201, body = crate::sites::SiteResponse, description = "A new site (new ids, a free slug) with the archive's content, taxonomy, navigation and media; a user importing becomes its owner"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "Not a Plinth export (format 2, or format 1 of earlier versions): not a ZIP, archive.json malformed or out of order, a media entry misnamed, missing or not matching its checksum; nothing is written"),
        (status = 413, body = Problem, content_type = "application/problem+json", description = "PAYLOAD_TOO_LARGE: the upload, or what the archive inflates to (entries, archive.json, a media file, all together, or a compression ratio past 200), is over its limit; refused before inflating. STORAGE_QUOTA_EXCEEDED: the archive's media exceed the site's storage quota"),
        (status = 409, body = Problem, content_type = "application/problem+json", description = "CONFLICT: items of the archive point at each other inconsistently (a menu item whose parent is in another menu); nothing is kept"),
        (status = 503, body = Problem, content_type = "application/problem+json", description = "SERVICE_UNAVAILABLE: another archive is being read on this instance for longer than 30 s (`Retry-After`)")
    ))]
pub async fn import_site(
    state: web::Data<AppState>,
    principal: Principal,
    multipart: actix_multipart::Multipart,
) -> ApiResult<HttpResponse> {
    let creator = crate::sites::creator(&principal)?;
    let site = import::import(&state, creator, multipart).await?;
    Ok(HttpResponse::Created().json(crate::sites::SiteResponse::active(&site)))
}

/// Owners and admins of the site (system admins included) export.
async fn require_exporter(state: &AppState, principal: &Principal, site_id: Uuid) -> ApiResult<()> {
    let role = principal.standing(state, site_id).await?.role();
    if role.has(Capability::AdministerSite) {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::SiteExportForbidden,
            "only the site's owner or admins, or a system admin, may export it",
        ))
    }
}

#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DownloadToken {
    /// The per-job token of the `download_url`.
    pub token: Option<String>,
}

/// Start exporting a site
///
/// Admin role or higher on the site (owners and system admins). Answers 202 with the queued job. Errors:
/// SITE_EXPORT_FORBIDDEN, SITE_EXPORT_ALREADY_RUNNING.
#[utoipa::path(post, path = "/sites/{site_id}/export", tag = "Sites", params(("site_id" = Uuid, Path)),
    responses(
        (status = 202, body = ExportJobResponse, description = "Queued"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "SITE_EXPORT_FORBIDDEN"),
        (status = 409, body = Problem, content_type = "application/problem+json", description = "SITE_EXPORT_ALREADY_RUNNING")
    ))]
pub async fn start_export(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    require_exporter(&state, &principal, site_id).await?;
    state.site_state(site_id).await?;
    let job = jobs::create(&state, site_id, &principal.actor()).await?;
    state.exports_queued.notify_one();
    Ok(HttpResponse::Accepted().json(jobs::response(&state, &job).await?))
}

/// Show an export job
///
/// Admin role or higher on the site. Errors: SITE_EXPORT_FORBIDDEN, SITE_EXPORT_JOB_NOT_FOUND.
#[utoipa::path(get, path = "/sites/{site_id}/export/{job_id}", tag = "Sites", params(("site_id" = Uuid, Path), ("job_id" = Uuid, Path)),
    responses(
        (status = 200, body = ExportJobResponse),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "SITE_EXPORT_JOB_NOT_FOUND (also once expired)")
    ))]
pub async fn get_export(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
) -> ApiResult<HttpResponse> {
    let (site_id, job_id) = path.into_inner();
    require_exporter(&state, &principal, site_id).await?;
    // The job moves on by itself: never answer it from the response cache.
    crate::state::responses::depends_on_time();
    let job = jobs::find(&state, site_id, job_id).await?;
    Ok(HttpResponse::Ok().json(jobs::response(&state, &job).await?))
}

/// Download an export archive
///
/// Admin role or higher on the site, and the job's `token`. Errors: SITE_EXPORT_FORBIDDEN, SITE_EXPORT_JOB_NOT_FOUND
/// (also after expiry), STORAGE_ERROR.
#[utoipa::path(get, path = "/sites/{site_id}/export/{job_id}/download", tag = "Sites",
    params(("site_id" = Uuid, Path), ("job_id" = Uuid, Path), DownloadToken),
    responses(
        (status = 200, content_type = "application/zip", body = Vec<u8>, description = "archive.json and media/"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "SITE_EXPORT_JOB_NOT_FOUND: unknown, not ready, wrong token or expired")
    ))]
pub async fn download_export(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
    query: web::Query<DownloadToken>,
) -> ApiResult<HttpResponse> {
    let (site_id, job_id) = path.into_inner();
    require_exporter(&state, &principal, site_id).await?;
    crate::state::responses::depends_on_time();
    let job = jobs::find(&state, site_id, job_id).await?;
    jobs::check_token(&state, job.id, query.token.as_deref().unwrap_or_default()).await?;
    let (Some(key), jobs::Status::Ready) = (job.storage_key.as_deref(), job.status) else {
        return Err(ApiError::new(ErrorCode::SiteExportJobNotFound, "the export is not ready"));
    };
    let found = state.storage.open(key, None).await.map_err(|e| {
        tracing::error!(error = %e, "reading an export failed");
        ApiError::new(ErrorCode::StorageError, "the archive could not be read")
    })?;
    let found = found.ok_or_else(|| ApiError::new(ErrorCode::SiteExportJobNotFound, "the archive is gone"))?;
    let size = found.meta.size;
    let slug = state.site_state(site_id).await?.site.slug.clone();
    let mut response = HttpResponse::Ok();
    response
        .content_type("application/zip")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{slug}-export-{}.zip\"", job.id.simple()),
        ))
        .insert_header((header::ETAG, format!("\"{}\"", job.id.simple())))
        .insert_header((header::CACHE_CONTROL, "private, no-store"))
        .no_chunking(size);
    Ok(response.streaming(found.into_stream().map_err(|e| actix_web::error::ErrorInternalServerError(e.to_string()))))
}
