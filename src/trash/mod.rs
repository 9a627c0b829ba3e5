//! The trash: soft-deleted items of a site across entity types, restore and
//! permanent delete.

use actix_web::web::{self};
use actix_web::HttpResponse;
use chrono::{DateTime, Utc};
use plinth_entities::{content, content_site, social_link};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect,
};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::audit::{self, Action, AuditEntry};
use crate::auth::{Capability, Principal};
use crate::content::{read, ContentKind};
use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::pagination::MAX_PER_PAGE;
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_trash, count_trash, restore_from_trash, delete_from_trash]);
}

/// Every `entity_type` the trash knows. Kinds not built yet have no items, so
/// their ids are simply not found.
const ENTITY_TYPES: [&str; 11] =
    ["blog", "page", "project", "cv_entry", "skill", "media", "document", "legal", "social", "menu", "menu_item"];

fn content_kind(entity_type: &str) -> ApiResult<Option<ContentKind>> {
    if !ENTITY_TYPES.contains(&entity_type) {
        return Err(ApiError::new(
            ErrorCode::ContentUnknownEntityType,
            format!("unknown entity_type '{entity_type}'; expected one of {}", ENTITY_TYPES.join(", ")),
        ));
    }
    Ok(ContentKind::parse(entity_type))
}

/// One entry of the trash, whatever table it lives in.
#[derive(Serialize, ToSchema)]
pub struct TrashItem {
    pub id: Uuid,
    pub entity_type: String,
    pub title: String,
    pub slug: String,
    pub deleted_at: Option<DateTime<Utc>>,
}

#[derive(Serialize, ToSchema)]
pub struct TrashPage {
    pub items: Vec<TrashItem>,
    /// All soft-deleted items of the site, across entity types.
    pub total: u64,
}

#[derive(Serialize, ToSchema)]
pub struct TrashCount {
    pub count: u64,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TrashQuery {
    /// From 1 (default 1).
    pub page: Option<u64>,
    /// Default 10, at most 100.
    pub page_size: Option<u64>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EntityTypeQuery {
    /// blog, page, project, cv_entry, skill, media, document, legal, social, menu, menu_item
    pub entity_type: String,
}

/// Soft-deleted content of the site (every kind of the content engine).
fn trashed_on(site_id: Uuid) -> sea_orm::Select<content::Entity> {
    read::on_site_only(content::Entity::find().filter(content::Column::IsDeleted.eq(true)), site_id)
}

#[utoipa::path(get, path = "/sites/{site_id}/trash", tag = "Trash", params(("site_id" = Uuid, Path), TrashQuery),
    responses((status = 200, body = TrashPage, description = "Newest-deleted first")))]
pub async fn list_trash(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<TrashQuery>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    let page = query.page.unwrap_or(1).max(1);
    let size = query.page_size.unwrap_or(10).clamp(1, MAX_PER_PAGE);
    let total = count_deleted(&state, site_id).await?;
    let skipped = (page - 1).saturating_mul(size);
    if skipped >= total {
        return Ok(HttpResponse::Ok().json(TrashPage { items: Vec::new(), total }));
    }
    // Newest-deleted first across tables: the first page*size of each source,
    // merged, then the requested page cut out. `skipped < total` bounds it.
    let wanted = skipped + size;
    let mut items: Vec<TrashItem> = trashed_on(site_id)
        .order_by_desc(content::Column::DeletedAt)
        .order_by_asc(content::Column::Id)
        .limit(wanted)
        .all(&state.db)
        .await?
        .into_iter()
        .map(|m| TrashItem { id: m.id, entity_type: m.kind, title: m.title, slug: m.slug, deleted_at: m.deleted_at })
        .collect();
    items.extend(
        deleted_social_links(site_id)
            .order_by_desc(social_link::Column::DeletedAt)
            .limit(wanted)
            .all(&state.db)
            .await?
            .into_iter()
            .map(|m| TrashItem {
                id: m.id,
                entity_type: "social".into(),
                title: m.label,
                slug: m.platform,
                deleted_at: m.deleted_at,
            }),
    );
    items.extend(crate::navigation::trash::trashed(&state, site_id, wanted).await?);
    items.sort_by(|a, b| b.deleted_at.cmp(&a.deleted_at).then(a.id.cmp(&b.id)));
    let items: Vec<TrashItem> = items
        .into_iter()
        .skip(usize::try_from(skipped).unwrap_or(usize::MAX))
        .take(usize::try_from(size).unwrap_or(100))
        .collect();
    Ok(HttpResponse::Ok().json(TrashPage { items, total }))
}

#[utoipa::path(get, path = "/sites/{site_id}/trash/count", tag = "Trash", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = TrashCount)))]
pub async fn count_trash(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    Ok(HttpResponse::Ok().json(TrashCount { count: count_deleted(&state, site_id).await? }))
}

fn deleted_social_links(site_id: Uuid) -> sea_orm::Select<social_link::Entity> {
    social_link::Entity::find()
        .filter(social_link::Column::SiteId.eq(site_id))
        .filter(social_link::Column::IsDeleted.eq(true))
}

/// Everything of the site in the trash, across tables.
async fn count_deleted(state: &AppState, site_id: Uuid) -> ApiResult<u64> {
    Ok(trashed_on(site_id).count(&state.db).await?
        + deleted_social_links(site_id).count(&state.db).await?
        + crate::navigation::trash::count_trashed(state, site_id).await?)
}

/// A social link (deleted or not), after checking the caller administers its site.
async fn find_social_link(state: &AppState, principal: &Principal, id: Uuid) -> ApiResult<social_link::Model> {
    let link =
        social_link::Entity::find_by_id(id).one(&state.db).await?.ok_or_else(|| ApiError::not_found("social", id))?;
    principal.require(state, link.site_id, Capability::AdministerSite).await?;
    Ok(link)
}

/// The item (deleted or not) with its sites, after checking the caller
/// administers all of them.
async fn find_item(
    state: &AppState,
    principal: &Principal,
    kind: Option<ContentKind>,
    id: Uuid,
    entity_type: &str,
) -> ApiResult<(content::Model, Vec<Uuid>)> {
    let not_found = || ApiError::not_found(entity_type, id);
    let kind = kind.ok_or_else(not_found)?;
    let item = content::Entity::find_by_id(id)
        .filter(content::Column::Kind.eq(kind.as_str()))
        .one(&state.db)
        .await?
        .ok_or_else(not_found)?;
    let sites: Vec<Uuid> = content_site::Entity::find()
        .filter(content_site::Column::ContentId.eq(id))
        .all(&state.db)
        .await?
        .into_iter()
        .map(|r| r.site_id)
        .collect();
    for site_id in &sites {
        principal.require(state, *site_id, Capability::AdministerSite).await?;
    }
    Ok((item, sites))
}

#[utoipa::path(post, path = "/trash/{id}/restore", tag = "Trash", params(("id" = Uuid, Path), EntityTypeQuery),
    responses((status = 200, description = "The restored item, in its own shape"),
        (status = "4XX", body = Problem, description = "TRASH_ALREADY_RESTORED, CONTENT_UNKNOWN_ENTITY_TYPE")))]
pub async fn restore_from_trash(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    query: web::Query<EntityTypeQuery>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let kind = content_kind(&query.entity_type)?;
    if matches!(query.entity_type.as_str(), "menu" | "menu_item") {
        return Ok(HttpResponse::Ok()
            .json(crate::navigation::trash::restore(&state, &principal, &query.entity_type, id).await?));
    }
    if query.entity_type == "social" {
        let link = find_social_link(&state, &principal, id).await?;
        if !link.is_deleted {
            return Err(ApiError::new(ErrorCode::TrashAlreadyRestored, "the item is not in the trash"));
        }
        let site_id = link.site_id;
        let mut row: social_link::ActiveModel = link.into();
        row.is_deleted = Set(false);
        row.deleted_at = Set(None);
        let txn = crate::db::begin_write(&state.db).await?;
        let restored = row.update(&txn).await?;
        let actor = principal.actor_id();
        let entry = AuditEntry {
            actor: &actor,
            action: Action::Restore,
            entity_type: "social",
            entity_id: id.to_string(),
            site_id: Some(site_id),
        };
        audit::record(&txn, state.clock.now(), entry, &json!({"is_deleted": true}), &json!({"is_deleted": false}))
            .await?;
        txn.commit().await?;
        return Ok(HttpResponse::Ok().json(crate::social_links::SocialLinkResponse::from(&restored)));
    }
    let (item, sites) = find_item(&state, &principal, kind, id, &query.entity_type).await?;
    if !item.is_deleted {
        return Err(ApiError::new(ErrorCode::TrashAlreadyRestored, "the item is not in the trash"));
    }
    let txn = crate::db::begin_write(&state.db).await?;
    let kind = kind.ok_or_else(|| ApiError::internal("restored a kind without content"))?;
    let mut row: content::ActiveModel = item.into();
    row.is_deleted = Set(false);
    row.deleted_at = Set(None);
    let restored_row = row.update(&txn).await?;
    let actor = principal.actor_id();
    let entry = AuditEntry {
        actor: &actor,
        action: Action::Restore,
        entity_type: &query.entity_type,
        entity_id: id.to_string(),
        site_id: sites.first().copied(),
    };
    audit::record(&txn, state.clock.now(), entry, &json!({"is_deleted": true}), &json!({"is_deleted": false})).await?;
    let announced = read::response_of(&txn, &restored_row).await?;
    crate::content::events::commit_with_events(
        &state,
        txn,
        crate::content::events::events_for(kind, "updated", &announced, state.clock.now()),
    )
    .await?;
    Ok(HttpResponse::Ok().json(announced))
}

#[utoipa::path(delete, path = "/trash/{id}", tag = "Trash", params(("id" = Uuid, Path), EntityTypeQuery),
    responses((status = 204, description = "Removed for good"), (status = "4XX", body = Problem, description = "TRASH_NOT_DELETED, CONTENT_UNKNOWN_ENTITY_TYPE")))]
pub async fn delete_from_trash(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    query: web::Query<EntityTypeQuery>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let kind = content_kind(&query.entity_type)?;
    if matches!(query.entity_type.as_str(), "menu" | "menu_item") {
        crate::navigation::trash::purge(&state, &principal, &query.entity_type, id).await?;
        return Ok(HttpResponse::NoContent().finish());
    }
    if query.entity_type == "social" {
        let link = find_social_link(&state, &principal, id).await?;
        if !link.is_deleted {
            return Err(ApiError::new(
                ErrorCode::TrashNotDeleted,
                "only items in the trash can be deleted for good; delete it first",
            ));
        }
        let txn = crate::db::begin_write(&state.db).await?;
        social_link::Entity::delete_by_id(id).exec(&txn).await?;
        let actor = principal.actor_id();
        let entry = AuditEntry {
            actor: &actor,
            action: Action::Purge,
            entity_type: "social",
            entity_id: id.to_string(),
            site_id: Some(link.site_id),
        };
        audit::record(&txn, state.clock.now(), entry, &json!({"label": link.label, "url": link.url}), &()).await?;
        txn.commit().await?;
        return Ok(HttpResponse::NoContent().finish());
    }
    let (item, sites) = find_item(&state, &principal, kind, id, &query.entity_type).await?;
    if !item.is_deleted {
        return Err(ApiError::new(
            ErrorCode::TrashNotDeleted,
            "only items in the trash can be deleted for good; delete it first",
        ));
    }
    let txn = crate::db::begin_write(&state.db).await?;
    // Sites, localizations and taxonomy links cascade with the row.
    content::Entity::delete_by_id(id).exec(&txn).await?;
    let actor = principal.actor_id();
    let entry = AuditEntry {
        actor: &actor,
        action: Action::Purge,
        entity_type: &query.entity_type,
        entity_id: id.to_string(),
        site_id: sites.first().copied(),
    };
    audit::record(&txn, state.clock.now(), entry, &json!({"title": item.title, "slug": item.slug}), &()).await?;
    txn.commit().await?;
    Ok(HttpResponse::NoContent().finish())
}
