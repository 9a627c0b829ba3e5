//! Documented handlers for `/categories` and `/tags`.

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::{create, list, remove, update, CreateTerm, Taxonomy, TermResponse, UpdateTerm};
use crate::app::AppState;
use crate::auth::Principal;
use crate::error::{ApiResult, Problem};

#[utoipa::path(get, path = "/sites/{site_id}/categories", tag = "Taxonomy", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<TermResponse>), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn list_categories(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(list(&state, &principal, Taxonomy::Category, site_id.into_inner()).await?))
}

#[utoipa::path(post, path = "/sites/{site_id}/categories", tag = "Taxonomy", params(("site_id" = Uuid, Path)), request_body = CreateTerm,
    responses((status = 201, body = TermResponse), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn create_category(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: web::Json<CreateTerm>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Created()
        .json(create(&state, &principal, Taxonomy::Category, site_id.into_inner(), body.into_inner()).await?))
}

#[utoipa::path(put, path = "/categories/{id}", tag = "Taxonomy", params(("id" = Uuid, Path)), request_body = UpdateTerm,
    responses((status = 200, body = TermResponse), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn update_category(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: web::Json<UpdateTerm>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok()
        .json(update(&state, &principal, Taxonomy::Category, id.into_inner(), body.into_inner()).await?))
}

#[utoipa::path(delete, path = "/categories/{id}", tag = "Taxonomy", params(("id" = Uuid, Path)),
    responses((status = 204), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn delete_category(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    remove(&state, &principal, Taxonomy::Category, id.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(get, path = "/sites/{site_id}/tags", tag = "Taxonomy", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<TermResponse>), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn list_tags(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(list(&state, &principal, Taxonomy::Tag, site_id.into_inner()).await?))
}

#[utoipa::path(post, path = "/sites/{site_id}/tags", tag = "Taxonomy", params(("site_id" = Uuid, Path)), request_body = CreateTerm,
    responses((status = 201, body = TermResponse), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn create_tag(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: web::Json<CreateTerm>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Created()
        .json(create(&state, &principal, Taxonomy::Tag, site_id.into_inner(), body.into_inner()).await?))
}

#[utoipa::path(put, path = "/tags/{id}", tag = "Taxonomy", params(("id" = Uuid, Path)), request_body = UpdateTerm,
    responses((status = 200, body = TermResponse), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn update_tag(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: web::Json<UpdateTerm>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(update(&state, &principal, Taxonomy::Tag, id.into_inner(), body.into_inner()).await?))
}

#[utoipa::path(delete, path = "/tags/{id}", tag = "Taxonomy", params(("id" = Uuid, Path)),
    responses((status = 204), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn delete_tag(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    remove(&state, &principal, Taxonomy::Tag, id.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}
