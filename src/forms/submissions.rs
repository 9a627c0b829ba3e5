//! The reviewers' endpoints for submissions.

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::access;
use super::access::Access;
use super::model::{
    NoteInput, NoteResponse, StatusCounts, StatusUpdate, SubmissionDetail, SubmissionListQuery, SubmissionResponse,
};
use super::review;
use crate::auth::Principal;
use crate::error::{ApiResult, Problem};
use crate::pagination::Paginated;
use crate::state::AppState;

/// List a form's submissions
///
/// Reviewer role or higher on the form's site, or Author for forms one created. Errors: ENTITY_NOT_FOUND,
/// AUTH_INSUFFICIENT_ROLE, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(get, path = "/forms/{form_id}/submissions", tag = "Form submissions",
    params(("form_id" = Uuid, Path), SubmissionListQuery),
    responses(
        (status = 200, body = Paginated<SubmissionResponse>, description = "Newest first"),
        (status = 422, body = Problem, content_type = "application/problem+json", description = "A field-value search on a form that is not queryable")
    ))]
pub async fn list_submissions(
    state: web::Data<AppState>,
    principal: Principal,
    form_id: web::Path<Uuid>,
    query: web::Query<SubmissionListQuery>,
) -> ApiResult<HttpResponse> {
    let f = access::reviewed_form(&state, &principal, form_id.into_inner(), Access::Read).await?;
    Ok(HttpResponse::Ok().json(review::list(&state, f.row(), query.into_inner()).await?))
}

/// Count a form's submissions per status
///
/// Reviewer role or higher on the form's site, or Author for forms one created. Errors: ENTITY_NOT_FOUND,
/// AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(get, path = "/forms/{form_id}/submissions/status-counts", tag = "Form submissions",
    params(("form_id" = Uuid, Path)),
    responses((status = 200, body = StatusCounts)))]
pub async fn submission_status_counts(
    state: web::Data<AppState>,
    principal: Principal,
    form_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let f = access::reviewed_form(&state, &principal, form_id.into_inner(), Access::Read).await?;
    Ok(HttpResponse::Ok().json(review::counts(&state, f.row().id).await?))
}

/// Show a submission
///
/// Reviewer role or higher on the form's site, or Author for forms one created; with notes and status history. Errors:
/// ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(get, path = "/submissions/{id}", tag = "Form submissions", params(("id" = Uuid, Path)),
    responses((status = 200, body = SubmissionDetail, description = "With notes and status history")))]
pub async fn get_submission(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let s = access::submission(&state, &principal, id.into_inner(), Access::Read).await?;
    Ok(HttpResponse::Ok().json(review::detail(&state, s.row()).await?))
}

/// Change a submission's status
///
/// Editor role or higher on the form's site, or Author for forms one created. Errors: ENTITY_NOT_FOUND,
/// INVALID_STATUS_TRANSITION, AUTH_INSUFFICIENT_ROLE, VALIDATION_ERROR.
#[utoipa::path(put, path = "/submissions/{id}/status", tag = "Form submissions", params(("id" = Uuid, Path)),
    request_body = StatusUpdate,
    responses(
        (status = 200, body = SubmissionDetail),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "INVALID_STATUS_TRANSITION. Allowed: new → in_review, resolved, archived; in_review → resolved, archived; resolved → in_review, archived; archived → in_review")
    ))]
pub async fn update_submission_status(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<StatusUpdate>,
) -> ApiResult<HttpResponse> {
    let s = access::submission(&state, &principal, id.into_inner(), Access::Handle).await?;
    Ok(HttpResponse::Ok().json(review::change_status(&state, s, body.status).await?))
}

/// Delete a submission
///
/// Editor role or higher on the form's site, or Author for forms one created. Soft delete. Errors: ENTITY_NOT_FOUND,
/// AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(delete, path = "/submissions/{id}", tag = "Form submissions", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted")))]
pub async fn delete_submission_by_id(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let s = access::submission(&state, &principal, id.into_inner(), Access::Handle).await?;
    review::soft_delete(&state, s.row(), Some(s.site().actor())).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Add a note to a submission
///
/// Editor role or higher on the form's site, or Author for forms one created. Errors: ENTITY_NOT_FOUND,
/// AUTH_INSUFFICIENT_ROLE, VALIDATION_REQUIRED_FIELD, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(post, path = "/submissions/{id}/notes", tag = "Form submissions", params(("id" = Uuid, Path)),
    request_body = NoteInput,
    responses((status = 201, body = NoteResponse)))]
pub async fn add_submission_note(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<NoteInput>,
) -> ApiResult<HttpResponse> {
    let s = access::submission(&state, &principal, id.into_inner(), Access::Handle).await?;
    Ok(HttpResponse::Created().json(review::add_note(&state, &s, body.into_inner()).await?))
}

/// Delete a note of a submission
///
/// Editor role or higher on the form's site, or Author for forms one created. Errors: ENTITY_NOT_FOUND,
/// AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(delete, path = "/submissions/{id}/notes/{note_id}", tag = "Form submissions",
    params(("id" = Uuid, Path), ("note_id" = Uuid, Path)),
    responses((status = 204, description = "Deleted")))]
pub async fn delete_submission_note(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
) -> ApiResult<HttpResponse> {
    let (id, note_id) = path.into_inner();
    let s = access::submission(&state, &principal, id, Access::Handle).await?;
    review::delete_note(&state, s.row(), note_id).await?;
    Ok(HttpResponse::NoContent().finish())
}
