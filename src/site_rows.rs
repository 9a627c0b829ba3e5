//! Rows that belong to one site (redirects, environments, webhooks, social
//! links, menus and their items, members): found by id with the caller's
//! capability on the row's site checked, and named the same way in 404s and in
//! the audit trail. Also what a localization of a site's row needs of the
//! site: its locale assigned there.

use chrono::{DateTime, Utc};
use plinth_entities::{locale, site_locale};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PrimaryKeyTrait, QueryFilter};
use serde_json::Value;
use uuid::Uuid;

use crate::audit::{self, Action, Actor, AuditEntry};
use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::state::AppState;

pub trait SiteRow: Sized + Send + Sync {
    type Table: EntityTrait<Model = Self>;
    /// How a 404 and an audit entry name the row: `redirect`, `menu_item`, …
    const KIND: &'static str;
    /// The `is_deleted` column of a table with a trash: [`find`] skips rows in it.
    const IS_DELETED: Option<<Self::Table as EntityTrait>::Column> = None;

    fn id(&self) -> Uuid;
    fn site_id(&self) -> Uuid;

    fn audit_entry<'a>(&self, actor: &'a Actor, action: Action) -> AuditEntry<'a> {
        AuditEntry {
            actor,
            action,
            entity_type: Self::KIND,
            entity_id: self.id().to_string(),
            site_id: Some(self.site_id()),
        }
    }
}

/// An audited write of a site row by `actor`, its entry naming the row as
/// [`SiteRow::audit_entry`] does; the entry's `after` is the response.
pub fn audited_write<'a, M: SiteRow>(
    db: &'a crate::db::Db,
    at: DateTime<Utc>,
    actor: &'a Actor,
    action: Action,
    before: Value,
) -> audit::Write<'a, impl FnOnce(&M) -> AuditEntry<'a>> {
    audit::Write { db, at, action, entry: move |row: &M| row.audit_entry(actor, action), before, after: None }
}

/// The row `id` (outside the trash), after checking the caller has `capability`
/// on its site.
pub async fn find<M: SiteRow>(state: &AppState, principal: &Principal, id: Uuid, capability: Capability) -> ApiResult<M>
where
    Uuid: Into<<<M::Table as EntityTrait>::PrimaryKey as PrimaryKeyTrait>::ValueType>,
{
    let mut select = M::Table::find_by_id(id);
    if let Some(is_deleted) = M::IS_DELETED {
        select = select.filter(is_deleted.eq(false));
    }
    authorized(state, principal, select.one(&state.db).await?, id, capability).await
}

/// The row `id`, in the trash or not, without a check: for the trash, whose
/// handler checks the caller on the sites of what it found.
pub async fn load_with_trashed<M: SiteRow>(db: &crate::db::Db, id: Uuid) -> ApiResult<M>
where
    Uuid: Into<<<M::Table as EntityTrait>::PrimaryKey as PrimaryKeyTrait>::ValueType>,
{
    M::Table::find_by_id(id).one(db).await?.ok_or_else(|| ApiError::not_found(M::KIND, id))
}

async fn authorized<M: SiteRow>(
    state: &AppState,
    principal: &Principal,
    found: Option<M>,
    id: Uuid,
    capability: Capability,
) -> ApiResult<M> {
    let row = found.ok_or_else(|| ApiError::not_found(M::KIND, id))?;
    principal.require(state, row.site_id(), capability).await?;
    Ok(row)
}

/// The locale `named` (its UUID or code) among those assigned to any of
/// `site_ids`; otherwise 422 on `locale_id` with `detail` and the codes the
/// sites have.
pub async fn require_locale_assigned<C: ConnectionTrait>(
    db: &C,
    site_ids: &[Uuid],
    named: &crate::values::LocaleName,
    detail: &str,
) -> ApiResult<Uuid> {
    let assigned = site_locale::Entity::find()
        .filter(site_locale::Column::SiteId.is_in(site_ids.to_vec()))
        .find_also_related(locale::Entity)
        .all(db)
        .await?;
    let mut codes: Vec<&str> = Vec::new();
    for (assignment, global) in &assigned {
        let Some(global) = global else { continue };
        if named.names(assignment.locale_id, &global.code) {
            return Ok(assignment.locale_id);
        }
        codes.push(&global.code);
    }
    codes.sort_unstable();
    codes.dedup();
    let detail = format!("{} ({detail})", crate::values::not_among(named, &codes));
    Err(ApiError::validation(vec![FieldError::new("locale_id", ErrorCode::ValidationInvalidFormat, detail)]))
}
