//! Social links in the trash (`social`).

use futures_util::future::BoxFuture;
use plinth_entities::social_link;
use sea_orm::sea_query::{Expr, SelectStatement};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde_json::{json, Value};
use uuid::Uuid;

use super::SocialLinkResponse;
use crate::audit::{self, Action};
use crate::auth::SitesGrant;
use crate::error::{ApiError, ApiResult};
use crate::site_rows::{self, SiteRow};
use crate::state::AppState;
use crate::trash_source::{
    count_of, trash_all, trash_rows, SiteReset, SiteTrashTable, TrashColumns, TrashSource, Trashed,
};

pub struct SocialTrash;

fn deleted_social_links(site_id: Uuid) -> sea_orm::Select<social_link::Entity> {
    social_link::Entity::find()
        .filter(social_link::Column::SiteId.eq(site_id))
        .filter(social_link::Column::IsDeleted.eq(true))
}

impl SiteTrashTable for social_link::Entity {
    const COLUMNS: [Self::Column; 3] =
        [social_link::Column::SiteId, social_link::Column::IsDeleted, social_link::Column::DeletedAt];
}

impl TrashSource for SocialTrash {
    fn entity_types(&self) -> &'static [&'static str] {
        &["social"]
    }

    fn deleted(&self, site_id: Uuid, limit: u64) -> Vec<SelectStatement> {
        let column = |column: social_link::Column| Expr::col((social_link::Entity, column));
        let columns = TrashColumns {
            id: column(social_link::Column::Id),
            entity_type: "social",
            title: column(social_link::Column::Label),
            slug: column(social_link::Column::Platform),
            deleted_at: column(social_link::Column::DeletedAt),
        };
        let rows = deleted_social_links(site_id)
            .order_by_desc(social_link::Column::DeletedAt)
            .order_by_desc(social_link::Column::Id)
            .limit(limit);
        vec![trash_rows(rows, columns)]
    }

    fn counts(&self, site_id: Uuid) -> Vec<SelectStatement> {
        vec![count_of(deleted_social_links(site_id))]
    }

    fn find<'a>(
        &'a self,
        state: &'a AppState,
        _entity_type: &'a str,
        id: Uuid,
    ) -> BoxFuture<'a, ApiResult<Box<dyn Trashed>>> {
        Box::pin(async move {
            let link = site_rows::load_with_trashed::<social_link::Model>(&state.db, id).await?;
            Ok(Box::new(TrashedLink(link)) as Box<dyn Trashed>)
        })
    }

    fn trash_site<'a>(
        &'a self,
        txn: &'a crate::db::WriteTxn,
        now: chrono::DateTime<chrono::Utc>,
        _actor: &'a crate::audit::Actor,
        site_id: Uuid,
    ) -> BoxFuture<'a, ApiResult<SiteReset>> {
        Box::pin(async move {
            Ok(SiteReset::of(vec![("social", trash_all::<social_link::Entity>(txn, now, site_id).await?)]))
        })
    }
}

/// A social link found for the trash.
struct TrashedLink(social_link::Model);

impl Trashed for TrashedLink {
    fn site_ids(&self) -> &[Uuid] {
        std::slice::from_ref(&self.0.site_id)
    }

    fn restore<'a>(self: Box<Self>, state: &'a AppState, grant: &'a SitesGrant) -> BoxFuture<'a, ApiResult<Value>> {
        Box::pin(async move {
            let TrashedLink(link) = *self;
            crate::trash_source::ensure_in_trash(link.is_deleted)?;
            let mut row: social_link::ActiveModel = link.into();
            row.is_deleted = Set(false);
            row.deleted_at = Set(None);
            let restored = audit::Write {
                after: Some(json!({"is_deleted": false})),
                ..site_rows::audited_write(
                    &state.db,
                    state.clock.now(),
                    grant.actor(),
                    Action::Restore,
                    json!({"is_deleted": true}),
                )
            }
            .run(row, |m| SocialLinkResponse::from(m), ApiError::from)
            .await?;
            serde_json::to_value(restored).map_err(|e| ApiError::internal(format!("restored link: {e}")))
        })
    }

    fn purge<'a>(self: Box<Self>, state: &'a AppState, grant: &'a SitesGrant) -> BoxFuture<'a, ApiResult<()>> {
        Box::pin(async move {
            let TrashedLink(link) = *self;
            let id = link.id;
            crate::trash_source::ensure_purgeable(link.is_deleted)?;
            audit::write(&state.db, async |txn| {
                social_link::Entity::delete_by_id(id).exec(txn).await?;
                let entry = link.audit_entry(grant.actor(), Action::Purge);
                audit::record(txn, state.clock.now(), entry, &json!({"label": link.label, "url": link.url}), &())
                    .await?;
                Ok(())
            })
            .await
        })
    }
}
