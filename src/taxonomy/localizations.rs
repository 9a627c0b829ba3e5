//! Per-locale names of categories and tags.

use chrono::{DateTime, Utc};
use plinth_entities::term_localization;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::access::{GrantedLocalization, GrantedTerm};
use super::Taxonomy;
use crate::audit::{self, Action, Actor, AuditEntry};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode};
use crate::state::AppState;
use crate::values::required_line;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TermLocalizationResponse {
    pub id: Uuid,
    /// The category or tag.
    pub term_id: Uuid,
    /// The global locale it is in.
    pub locale_id: Uuid,
    /// The name in this locale.
    pub name: String,
    /// Free text; may be empty.
    pub description: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&term_localization::Model> for TermLocalizationResponse {
    fn from(m: &term_localization::Model) -> Self {
        Self {
            id: m.id,
            term_id: m.term_id,
            locale_id: m.locale_id,
            name: m.name.clone(),
            description: m.description.clone(),
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateTermLocalization {
    /// A locale assigned to the site, by UUID or code (422 otherwise, naming the site's codes).
    pub locale_id: crate::values::LocaleName,
    /// One line of 1 to 200 characters (trimmed), without control characters.
    #[schema(min_length = 1, max_length = 200, pattern = "<line>")]
    pub name: String,
    /// Free text; empty when omitted.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub description: String,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateTermLocalization {
    /// One line of 1 to 200 characters (trimmed), without control characters.
    #[schema(min_length = 1, max_length = 200, pattern = "<line>")]
    pub name: Option<String>,
    /// Free text.
    pub description: Option<String>,
}

fn audit_entry<'a>(
    actor: &'a Actor,
    action: Action,
    taxonomy: Taxonomy,
    loc: &term_localization::Model,
    site_id: Uuid,
) -> AuditEntry<'a> {
    let entity_type = match taxonomy {
        Taxonomy::Category => "category_localization",
        Taxonomy::Tag => "tag_localization",
    };
    AuditEntry { actor, action, entity_type, entity_id: loc.id.to_string(), site_id: Some(site_id) }
}

/// The localizations of `term` (granted Read on its site).
pub(super) async fn list(state: &AppState, term: &GrantedTerm) -> ApiResult<Vec<TermLocalizationResponse>> {
    let rows = term_localization::Entity::find()
        .filter(term_localization::Column::TermId.eq(term.row().id))
        .order_by_asc(term_localization::Column::CreatedAt)
        .all(&state.db)
        .await?;
    Ok(rows.iter().map(TermLocalizationResponse::from).collect())
}

/// A localization of `owner` (granted EditAnyContent on its site).
pub(super) async fn create(
    state: &AppState,
    owner: &GrantedTerm,
    taxonomy: Taxonomy,
    body: CreateTermLocalization,
) -> ApiResult<TermLocalizationResponse> {
    let term_id = owner.row().id;
    let site_id = owner.site().site_id();
    let name = required_line("name", &body.name, 200).map_err(|e| ApiError::validation(vec![e]))?;
    audit::write(&state.db, async |txn| {
        let detail = "the locale is not assigned to the site";
        let locale_id = crate::site_rows::require_locale_assigned(txn, &[site_id], &body.locale_id, detail).await?;
        let exists = || {
            ApiError::entity(
                ErrorCode::EntityLocalizationExists,
                taxonomy.as_str(),
                "a localization for this locale exists; update it instead",
            )
        };
        let now = state.clock.now();
        let created = term_localization::ActiveModel {
            id: Set(Uuid::new_v4()),
            term_id: Set(term_id),
            locale_id: Set(locale_id),
            name: Set(name),
            description: Set(body.description),
            created_at: Set(now),
            updated_at: Set(now),
        }
        .insert(txn)
        .await
        .map_err(on_constraint(Constraint::Unique, exists))?;
        let response = TermLocalizationResponse::from(&created);
        audit::record(
            txn,
            now,
            audit_entry(owner.site().actor(), Action::Create, taxonomy, &created, site_id),
            &(),
            &response,
        )
        .await?;
        Ok(response)
    })
    .await
}

/// Changes `localization` (granted EditAnyContent on its term's site).
pub(super) async fn update(
    state: &AppState,
    localization: GrantedLocalization,
    taxonomy: Taxonomy,
    body: UpdateTermLocalization,
) -> ApiResult<TermLocalizationResponse> {
    let now = state.clock.now();
    let (current, grant) = localization.into_parts();
    let site_id = grant.site_id();
    let before = TermLocalizationResponse::from(&current);
    let mut row: term_localization::ActiveModel = current.into();
    if let Some(name) = body.name {
        row.name = Set(required_line("name", &name, 200).map_err(|e| ApiError::validation(vec![e]))?);
    }
    if let Some(description) = body.description {
        row.description = Set(description);
    }
    row.updated_at = Set(now);
    audit::write(&state.db, async |txn| {
        let updated = row.update(txn).await?;
        let after = TermLocalizationResponse::from(&updated);
        audit::record(
            txn,
            now,
            audit_entry(grant.actor(), Action::Update, taxonomy, &updated, site_id),
            &before,
            &after,
        )
        .await?;
        Ok(after)
    })
    .await
}

/// Deletes `localization` (granted EditAnyContent on its term's site).
pub(super) async fn delete(state: &AppState, localization: GrantedLocalization, taxonomy: Taxonomy) -> ApiResult<()> {
    let (current, grant) = localization.into_parts();
    let site_id = grant.site_id();
    audit::write(&state.db, async |txn| {
        term_localization::Entity::delete_by_id(current.id).exec(txn).await?;
        audit::record(
            txn,
            state.clock.now(),
            audit_entry(grant.actor(), Action::Delete, taxonomy, &current, site_id),
            &TermLocalizationResponse::from(&current),
            &(),
        )
        .await?;
        Ok(())
    })
    .await
}

/// Lays the `locale_id` names over the terms, where a localization exists.
pub(super) async fn localize(state: &AppState, terms: &mut [super::TermResponse], locale_id: Uuid) -> ApiResult<()> {
    let ids: Vec<Uuid> = terms.iter().map(|t| t.id).collect();
    let rows = term_localization::Entity::find()
        .filter(term_localization::Column::TermId.is_in(ids))
        .filter(term_localization::Column::LocaleId.eq(locale_id))
        .all(&state.db)
        .await?;
    for row in rows {
        if let Some(term) = terms.iter_mut().find(|t| t.id == row.term_id) {
            term.name = row.name;
            term.description = row.description;
        }
    }
    Ok(())
}
