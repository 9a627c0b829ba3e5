//! Documents in the trash (`document`).

use futures_util::future::BoxFuture;
use plinth_entities::document;
use sea_orm::sea_query::{Expr, Func, SelectStatement};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde_json::json;
use uuid::Uuid;

use super::service::{response, save};
use crate::audit::{self, Action};
use crate::auth::SitesGrant;
use crate::error::{ApiError, ApiResult};
use crate::site_rows::{self, SiteRow};
use crate::state::AppState;
use crate::trash_source::{
    count_of, trash_all, trash_rows, SiteReset, SiteTrashTable, TrashColumns, TrashSource, Trashed,
};

pub struct DocumentTrash;

/// The site's documents in the trash, latest deleted first (`ix_documents_trash`).
pub fn trash_query(site_id: Uuid) -> sea_orm::Select<document::Entity> {
    document::Entity::find()
        .filter(document::Column::SiteId.eq(site_id))
        .filter(document::Column::IsDeleted.eq(true))
        .order_by_desc(document::Column::DeletedAt)
        .order_by_desc(document::Column::Id)
}

fn title(d: &document::Model) -> String {
    d.file_name.clone().or_else(|| d.url.clone()).unwrap_or_else(|| d.document_type.clone())
}

impl SiteTrashTable for document::Entity {
    const COLUMNS: [Self::Column; 3] =
        [document::Column::SiteId, document::Column::IsDeleted, document::Column::DeletedAt];
}

impl TrashSource for DocumentTrash {
    fn entity_types(&self) -> &'static [&'static str] {
        &["document"]
    }

    fn deleted(&self, site_id: Uuid, limit: u64) -> Vec<SelectStatement> {
        let column = |column: document::Column| Expr::col((document::Entity, column));
        let columns = TrashColumns {
            id: column(document::Column::Id),
            entity_type: "document",
            // As [`title`]: the file's name, else its URL, else its type.
            title: Func::coalesce([
                column(document::Column::FileName),
                column(document::Column::Url),
                column(document::Column::DocumentType),
            ])
            .into(),
            slug: column(document::Column::DocumentType),
            deleted_at: column(document::Column::DeletedAt),
        };
        vec![trash_rows(trash_query(site_id).limit(limit), columns)]
    }

    fn counts(&self, site_id: Uuid) -> Vec<SelectStatement> {
        vec![count_of(trash_query(site_id))]
    }

    fn find<'a>(&'a self, state: &'a AppState, _: &'a str, id: Uuid) -> BoxFuture<'a, ApiResult<Box<dyn Trashed>>> {
        Box::pin(async move {
            let doc = site_rows::load_with_trashed::<document::Model>(&state.db, id).await?;
            Ok(Box::new(TrashedDocument(doc)) as Box<dyn Trashed>)
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
            Ok(SiteReset::of(vec![("document", trash_all::<document::Entity>(txn, now, site_id).await?)]))
        })
    }
}

/// A document found for the trash.
struct TrashedDocument(document::Model);

impl Trashed for TrashedDocument {
    fn site_ids(&self) -> &[Uuid] {
        std::slice::from_ref(&self.0.site_id)
    }

    fn restore<'a>(
        self: Box<Self>,
        state: &'a AppState,
        grant: &'a SitesGrant,
    ) -> BoxFuture<'a, ApiResult<serde_json::Value>> {
        Box::pin(async move {
            let TrashedDocument(doc) = *self;
            crate::trash_source::ensure_in_trash(doc.is_deleted)?;
            let mut row: document::ActiveModel = doc.into();
            row.is_deleted = Set(false);
            row.deleted_at = Set(None);
            let restored = save(state, grant.actor(), Action::Restore, &json!({"is_deleted": true}), row, None).await?;
            serde_json::to_value(response(state, &restored, None))
                .map_err(|e| ApiError::internal(format!("restored document: {e}")))
        })
    }

    fn purge<'a>(self: Box<Self>, state: &'a AppState, grant: &'a SitesGrant) -> BoxFuture<'a, ApiResult<()>> {
        Box::pin(async move {
            let TrashedDocument(doc) = *self;
            let id = doc.id;
            crate::trash_source::ensure_purgeable(doc.is_deleted)?;
            audit::write(&state.db, async |txn| {
                document::Entity::delete_by_id(id).exec(txn).await?;
                audit::record(
                    txn,
                    state.clock.now(),
                    doc.audit_entry(grant.actor(), Action::Purge),
                    &json!({"title": title(&doc)}),
                    &(),
                )
                .await?;
                Ok(())
            })
            .await?;
            if let Some(key) = &doc.storage_key {
                if let Err(e) = state.storage.delete(key).await {
                    tracing::warn!(error = %e, "could not remove a purged document's file");
                }
            }
            Ok(())
        })
    }
}
