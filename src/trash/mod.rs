//! The trash: soft-deleted items of a site across entity types, restore and
//! permanent delete. Each family whose items go through the trash is a
//! [`TrashSource`]; the handlers get the list of sources as app data, so the trash
//! imports no family.

pub use crate::trash_source::{TrashItem, TrashSource, TrashSources, Trashed};

use actix_web::web::{self};
use actix_web::HttpResponse;
use sea_orm::sea_query::{
    Alias, Asterisk, NullOrdering, Order, Query, SelectStatement, SimpleExpr, SubQueryStatement, UnionType,
};
use sea_orm::{ConnectionTrait, FromQueryResult};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::{Capability, Principal, SitesGrant};
use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::pagination::PageParams;
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_trash, count_trash, restore_from_trash, delete_from_trash]);
}

/// The source of `entity_type`: CONTENT_UNKNOWN_ENTITY_TYPE for a type no
/// family's source answers for (`api::trash_sources` serves every type of the
/// spec, which its test checks).
fn source_of(sources: &TrashSources, entity_type: &str) -> ApiResult<&'static dyn TrashSource> {
    sources.for_type(entity_type).ok_or_else(|| {
        let known = sources.entity_types().collect::<Vec<_>>().join(", ");
        ApiError::new(
            ErrorCode::ContentUnknownEntityType,
            format!("unknown entity_type '{entity_type}'; expected one of {known}"),
        )
    })
}

/// The item `id` of `entity_type` and the caller's grant on its sites, once
/// it administers every one of them: not found, then the permission, in that
/// order (whether it is in the trash is the restore's or purge's to say).
async fn administered(
    state: &AppState,
    sources: &TrashSources,
    principal: &Principal,
    entity_type: &str,
    id: Uuid,
) -> ApiResult<(Box<dyn Trashed>, SitesGrant)> {
    let source = source_of(sources, entity_type)?;
    let item = source.find(state, entity_type, id).await?;
    let grant = principal.require_on_all(state, item.site_ids(), Capability::AdministerSite).await?;
    Ok((item, grant))
}

#[derive(Serialize, ToSchema)]
pub struct TrashPage {
    /// This page's items, newest deletion first.
    pub items: Vec<TrashItem>,
    /// All soft-deleted items of the site, across entity types.
    pub total: u64,
}

#[derive(Serialize, ToSchema)]
pub struct TrashCount {
    /// Soft-deleted items of the site, across entity types.
    pub count: u64,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TrashQuery {
    /// From 1 (default 1).
    #[param(schema_with = crate::pagination::page_number_schema)]
    pub page: Option<u64>,
    /// Default 10, at most 100. Also accepted as `per_page`.
    #[serde(alias = "per_page")]
    #[param(schema_with = crate::pagination::per_page_schema)]
    pub page_size: Option<u32>,
}

/// `entity_type`, declared in the document by `api` (its pattern is the
/// trash sources' types).
#[derive(Deserialize)]
pub struct EntityTypeQuery {
    pub entity_type: String,
}

/// List a site's trash
///
/// Admin role or higher on the site; newest-deleted first.
#[utoipa::path(get, path = "/sites/{site_id}/trash", tag = "Trash", params(("site_id" = Uuid, Path), TrashQuery),
    responses((status = 200, body = TrashPage, description = "Newest-deleted first")))]
pub async fn list_trash(
    state: web::Data<AppState>,
    sources: web::Data<TrashSources>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<TrashQuery>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    let page = PageParams { page: query.page, per_page: query.page_size }.resolve();
    let total = count_deleted(&state, &sources, site_id).await?;
    // A page past the end, whatever its number, is answered without a query.
    let Some(skipped) = page.offset_within(total) else {
        return Ok(HttpResponse::Ok().json(TrashPage { items: Vec::new(), total }));
    };
    let size = page.per_page;
    // Newest-deleted first across sources: the first `skipped + size` of each
    // (an index range scan per query), merged and cut in one query.
    // `skipped < total` bounds it.
    let wanted = (skipped + size).min(total);
    let queries: Vec<SelectStatement> = sources.0.iter().flat_map(|source| source.deleted(site_id, wanted)).collect();
    let mut parts = queries.into_iter().enumerate().map(|(i, query)| {
        Query::select().column(Asterisk).from_subquery(query, Alias::new(format!("source_{i}"))).to_owned()
    });
    let Some(mut merged) = parts.next() else {
        return Ok(HttpResponse::Ok().json(TrashPage { items: Vec::new(), total }));
    };
    for part in parts {
        merged.union(UnionType::All, part);
    }
    let page = Query::select()
        .column(Asterisk)
        .from_subquery(merged, Alias::new("trash"))
        .order_by_with_nulls(Alias::new("deleted_at"), Order::Desc, NullOrdering::Last)
        .order_by(Alias::new("id"), Order::Desc)
        .limit(size)
        .offset(skipped)
        .to_owned();
    let backend = state.db.get_database_backend();
    let statement = crate::literal_paging::with_literal_paging(backend.build(&page));
    let items = TrashItem::find_by_statement(statement).all(&state.db).await?;
    Ok(HttpResponse::Ok().json(TrashPage { items, total }))
}

/// Count a site's trash
///
/// Admin role or higher on the site.
#[utoipa::path(get, path = "/sites/{site_id}/trash/count", tag = "Trash", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = TrashCount)))]
pub async fn count_trash(
    state: web::Data<AppState>,
    sources: web::Data<TrashSources>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    Ok(HttpResponse::Ok().json(TrashCount { count: count_deleted(&state, &sources, site_id).await? }))
}

/// Everything of the site in the trash, across sources: their counts summed
/// in one query.
async fn count_deleted(state: &AppState, sources: &TrashSources, site_id: Uuid) -> ApiResult<u64> {
    let counts = sources.0.iter().flat_map(|source| source.counts(site_id));
    let sum = counts
        .map(|count| SimpleExpr::SubQuery(None, Box::new(SubQueryStatement::SelectStatement(count))))
        .reduce(sea_orm::sea_query::ExprTrait::add);
    let Some(sum) = sum else { return Ok(0) };
    let row = state.db.query_one(&Query::select().expr(sum).to_owned()).await?;
    let n = row.map(|row| row.try_get_by_index::<i64>(0)).transpose()?.unwrap_or(0);
    Ok(u64::try_from(n).unwrap_or(0))
}

/// Restore an item from the trash
///
/// Admin role or higher on the item's site. Errors: ENTITY_NOT_FOUND, CONTENT_UNKNOWN_ENTITY_TYPE,
/// TRASH_ALREADY_RESTORED.
#[utoipa::path(post, path = "/trash/{id}/restore", tag = "Trash", params(("id" = Uuid, Path), EntityTypeQuery),
    responses((status = 200, body = Object, description = "The restored item, in its own shape (the kind's GET answer)"),
        (status = "4XX", body = Problem, description = "TRASH_ALREADY_RESTORED, CONTENT_UNKNOWN_ENTITY_TYPE")))]
pub async fn restore_from_trash(
    state: web::Data<AppState>,
    sources: web::Data<TrashSources>,
    principal: Principal,
    id: web::Path<Uuid>,
    query: web::Query<EntityTypeQuery>,
) -> ApiResult<HttpResponse> {
    let (item, grant) = administered(&state, &sources, &principal, &query.entity_type, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(item.restore(&state, &grant).await?))
}

/// Delete an item from the trash for good
///
/// Admin role or higher on the item's site. Errors: ENTITY_NOT_FOUND, CONTENT_UNKNOWN_ENTITY_TYPE, TRASH_NOT_DELETED.
#[utoipa::path(
    delete,
    path = "/trash/{id}",
    tag = "Trash",
    params(("id" = Uuid, Path), EntityTypeQuery),
    responses(
        (status = 204, description = "Removed for good"),
        (status = "4XX", body = Problem, description = "TRASH_NOT_DELETED, CONTENT_UNKNOWN_ENTITY_TYPE")
    )
)]
pub async fn delete_from_trash(
    state: web::Data<AppState>,
    sources: web::Data<TrashSources>,
    principal: Principal,
    id: web::Path<Uuid>,
    query: web::Query<EntityTypeQuery>,
) -> ApiResult<HttpResponse> {
    let (item, grant) = administered(&state, &sources, &principal, &query.entity_type, id.into_inner()).await?;
    item.purge(&state, &grant).await?;
    Ok(HttpResponse::NoContent().finish())
}
