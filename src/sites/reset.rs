//! `POST /sites/{id}/reset-content`: everything editorial of a site goes to the
//! trash in one transaction; the site row, settings, members and locales stay.

use actix_web::{web, HttpResponse};
use plinth_entities::{content, nav_item, nav_menu, social_link};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::audit::{self, Action, AuditEntry};
use crate::auth::{Capability, Principal};
use crate::content::{events, read, write, ContentKind};
use crate::error::ApiResult;
use crate::state::AppState;

/// What a reset moved to the trash.
#[derive(Serialize, ToSchema, Default, PartialEq, Eq, Debug)]
pub struct ResetCounts {
    /// Content items of every kind but legal documents.
    pub contents: u64,
    pub legal_documents: u64,
    pub documents: u64,
    pub social_links: u64,
    pub navigation_menus: u64,
    pub navigation_items: u64,
    pub media_files: u64,
    pub total: u64,
}

#[utoipa::path(
    post,
    path = "/sites/{id}/reset-content",
    tag = "Sites",
    params(("id" = Uuid, Path)),
    responses(
        (status = 200, body = ResetCounts, description = "Everything soft-deleted (restorable from the trash); site, settings, members and locales kept")
    )
)]
pub async fn reset_content(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = id.into_inner();
    principal.require(&state, site_id, Capability::OwnSite).await?;
    state.site_state(site_id).await?;
    let now = state.clock.now();
    let txn = crate::db::begin_write(&state.db).await?;
    let items = read::on_site_only(content::Entity::find().filter(content::Column::IsDeleted.eq(false)), site_id)
        .all(&txn)
        .await?;
    let mut counts = ResetCounts::default();
    let mut events = Vec::new();
    for kind in ContentKind::ALL {
        let ids: Vec<Uuid> = items.iter().filter(|i| i.kind == kind.as_str()).map(|i| i.id).collect();
        if ids.is_empty() {
            continue;
        }
        let deleted = write::soft_delete_many(&txn, now, &principal, kind, &ids).await?;
        events.extend(deleted.iter().flat_map(|item| events::events_for(kind, "deleted", item, now)));
        if kind == ContentKind::Legal {
            counts.legal_documents += deleted.len() as u64;
        } else {
            counts.contents += deleted.len() as u64;
        }
    }
    counts.social_links = social_link::Entity::update_many()
        .col_expr(social_link::Column::IsDeleted, Expr::value(true))
        .col_expr(social_link::Column::DeletedAt, Expr::value(now))
        .filter(social_link::Column::SiteId.eq(site_id))
        .filter(social_link::Column::IsDeleted.eq(false))
        .exec(&txn)
        .await?
        .rows_affected;
    counts.navigation_items = nav_item::Entity::update_many()
        .col_expr(nav_item::Column::IsDeleted, Expr::value(true))
        .col_expr(nav_item::Column::DeletedAt, Expr::value(now))
        .filter(nav_item::Column::SiteId.eq(site_id))
        .filter(nav_item::Column::IsDeleted.eq(false))
        .exec(&txn)
        .await?
        .rows_affected;
    counts.navigation_menus = nav_menu::Entity::update_many()
        .col_expr(nav_menu::Column::IsDeleted, Expr::value(true))
        .col_expr(nav_menu::Column::DeletedAt, Expr::value(now))
        .filter(nav_menu::Column::SiteId.eq(site_id))
        .filter(nav_menu::Column::IsDeleted.eq(false))
        .exec(&txn)
        .await?
        .rows_affected;
    counts.total = counts.contents
        + counts.legal_documents
        + counts.documents
        + counts.social_links
        + counts.navigation_menus
        + counts.navigation_items
        + counts.media_files;
    let actor = principal.actor_id();
    let entry = AuditEntry {
        actor: &actor,
        action: Action::Delete,
        entity_type: "site_content",
        entity_id: site_id.to_string(),
        site_id: Some(site_id),
    };
    audit::record(&txn, now, entry, &json!({}), &counts).await?;
    events::commit_with_events(&state, txn, events).await?;
    Ok(HttpResponse::Ok().json(counts))
}
