//! Reading the audit trail: a site's entries, one item's entries and its
//! field-level history. Who may read them is the family's authorizer's answer (`access.rs`).

use chrono::{DateTime, Utc};
use plinth_entities::{audit_log, audit_log_site};
use sea_orm::{ColumnTrait, EntityTrait, JoinType, QueryFilter, QueryOrder, QuerySelect, RelationDef, Select};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::audit::Actor;
use crate::auth::Capability;
use crate::content::ContentKind;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::pagination::{fetch_page, Page, PageParams, Paginated};
use crate::state::AppState;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AuditEntryResponse {
    pub id: Uuid,
    /// The site the entry was written for (an item on several sites is listed under each).
    pub site_id: Option<Uuid>,
    /// `api_key:<id>`, `user:<idp id>` or `system`.
    pub actor: Actor,
    /// create, update, delete, restore, revoke, purge
    pub action: String,
    /// The type of the item (`blog`, `site`, …).
    pub entity_type: String,
    /// The id of the item.
    pub entity_id: String,
    /// `[{field, old, new}]`
    #[schema(value_type = Vec<Object>)]
    pub changes: Value,
    pub created_at: DateTime<Utc>,
    /// The identity-provider user who acted; null for a key or the system
    /// (the origin admin's `AuditLogEntry.user_id`).
    pub user_id: Option<String>,
}

impl From<audit_log::Model> for AuditEntryResponse {
    fn from(m: audit_log::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            user_id: m.actor.user_id().map(str::to_owned),
            actor: m.actor,
            action: m.action.as_str().to_string(),
            entity_type: m.entity_type,
            entity_id: m.entity_id,
            changes: m.changes,
            created_at: m.created_at,
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    #[param(schema_with = crate::pagination::page_number_schema)]
    pub page: Option<u64>,
    /// Entries per page (default 20, at most 100). Also accepted as `page_size`.
    #[serde(alias = "page_size")]
    #[param(schema_with = crate::pagination::per_page_20_schema)]
    pub per_page: Option<u32>,
    /// `blog`, `page`, `site`, `api_key`, `form`, …
    pub entity_type: Option<String>,
    /// create, update, delete, restore, revoke, purge
    pub action: Option<String>,
    /// `api_key:<id>`, `user:<idp id>` or `system`
    pub actor: Option<String>,
    /// Entries at or after this time (RFC 3339).
    pub since: Option<DateTime<Utc>>,
    /// Entries before this time (RFC 3339).
    pub until: Option<DateTime<Utc>>,
}

/// One changed field of one entry: what a revert names.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct FieldChange {
    /// `<audit entry id>:<field>`, for `POST /audit/history/revert`.
    pub change_id: String,
    /// The audit entry it belongs to.
    pub audit_id: Uuid,
    /// The field that changed.
    pub field: String,
    /// The field's value before and after: any JSON value (`null` when absent).
    pub old: Value,
    /// The value after.
    pub new: Value,
    /// What was done (`update`, …).
    pub action: String,
    /// Who did it (`api_key:<id>`, `user:<idp id>` or `system`).
    pub actor: Actor,
    /// When.
    pub created_at: DateTime<Utc>,
    /// The item's type and id, and the change under the names the origin
    /// admin's `ChangeHistoryEntry` reads: `field`, `old`, `new`, `actor`
    /// and `created_at` again.
    pub entity_type: String,
    pub entity_id: String,
    pub field_name: String,
    pub old_value: Value,
    pub new_value: Value,
    pub changed_by: Actor,
    pub changed_at: DateTime<Utc>,
}

/// A site's entries, newest first: a range of `ix_audit_log_sites_page`
/// (site, time, entry) walked in its order, each entry joined by its key for
/// the filters, so a page costs the same however long the site's history.
pub fn site_entries_query(site_id: Uuid, q: &AuditQuery) -> Select<audit_log::Entity> {
    let listed_under: RelationDef = audit_log_site::Entity::belongs_to(audit_log::Entity)
        .from(audit_log_site::Column::AuditId)
        .to(audit_log::Column::Id)
        .into();
    let mut select = audit_log::Entity::find()
        .join_rev(JoinType::InnerJoin, listed_under)
        .filter(audit_log_site::Column::SiteId.eq(site_id));
    if let Some(since) = q.since {
        select = select.filter(audit_log_site::Column::CreatedAt.gte(since));
    }
    if let Some(until) = q.until {
        select = select.filter(audit_log_site::Column::CreatedAt.lt(until));
    }
    if let Some(t) = q.entity_type.as_deref().filter(|t| !t.is_empty()) {
        select = select.filter(audit_log::Column::EntityType.eq(t));
    }
    if let Some(a) = q.action.as_deref().filter(|a| !a.is_empty()) {
        select = select.filter(audit_log::Column::Action.eq(a));
    }
    if let Some(actor) = q.actor.as_deref().filter(|a| !a.is_empty()) {
        select = select.filter(audit_log::Column::Actor.eq(actor));
    }
    select.order_by_desc(audit_log_site::Column::CreatedAt).order_by_desc(audit_log_site::Column::AuditId)
}

pub async fn site_entries(state: &AppState, site_id: Uuid, q: AuditQuery) -> ApiResult<Paginated<AuditEntryResponse>> {
    let page = PageParams { page: q.page, per_page: q.per_page }.resolve_with_default(20);
    Ok(fetch_page(&state.db, site_entries_query(site_id, &q), page).await?.map(AuditEntryResponse::from))
}

/// Content (and its localizations) is readable by anyone who may read the
/// item; every other entity's trail is for site admins.
pub fn needed_capability(entity_type: &str) -> Capability {
    let kind = entity_type.strip_suffix("_localization").unwrap_or(entity_type);
    if ContentKind::parse(kind).is_some() {
        Capability::Read
    } else {
        Capability::AdministerSite
    }
}

/// Every entry of one item, oldest first (the family's authorizer, `access.rs`,
/// checks the caller may see them).
pub async fn item_entries(state: &AppState, entity_type: &str, entity_id: &str) -> ApiResult<Vec<audit_log::Model>> {
    let entries = audit_log::Entity::find()
        .filter(audit_log::Column::EntityType.eq(entity_type))
        .filter(audit_log::Column::EntityId.eq(entity_id))
        .order_by_asc(audit_log::Column::CreatedAt)
        .order_by_asc(audit_log::Column::Id)
        .all(&state.db)
        .await?;
    if entries.is_empty() {
        return Err(ApiError::entity(
            ErrorCode::EntityNotFound,
            entity_type,
            format!("no audit entries for {entity_type} {entity_id}"),
        ));
    }
    Ok(entries)
}

pub fn page_of(entries: Vec<audit_log::Model>, params: PageParams) -> Paginated<AuditEntryResponse> {
    let page: Page = params.resolve_with_default(20);
    let total = entries.len() as u64;
    let skip = usize::try_from((page.page - 1).saturating_mul(page.per_page)).unwrap_or(usize::MAX);
    let data =
        entries.into_iter().rev().skip(skip).take(page.per_page as usize).map(AuditEntryResponse::from).collect();
    Paginated::new(data, page, total)
}

/// The field-level changes of `entries`, newest first.
pub fn history(entries: &[audit_log::Model]) -> Vec<FieldChange> {
    entries
        .iter()
        .rev()
        .flat_map(|e| {
            e.changes.as_array().cloned().unwrap_or_default().into_iter().filter_map(move |c| {
                let field = c.get("field")?.as_str()?.to_string();
                let (old, new) =
                    (c.get("old").cloned().unwrap_or(Value::Null), c.get("new").cloned().unwrap_or(Value::Null));
                Some(FieldChange {
                    change_id: format!("{}:{field}", e.id),
                    audit_id: e.id,
                    entity_type: e.entity_type.clone(),
                    entity_id: e.entity_id.clone(),
                    field_name: field.clone(),
                    field,
                    old_value: old.clone(),
                    new_value: new.clone(),
                    old,
                    new,
                    action: e.action.as_str().to_string(),
                    changed_by: e.actor.clone(),
                    actor: e.actor.clone(),
                    changed_at: e.created_at,
                    created_at: e.created_at,
                })
            })
        })
        .collect()
}
