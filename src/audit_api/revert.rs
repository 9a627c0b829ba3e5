//! Reverting chosen changes of one content item: the old values go through
//! the same update as an editor's `PUT` (validation, workflow, events, audit
//! and webhooks happen as for any edit). System fields are never reverted.

use std::collections::BTreeMap;

use plinth_entities::audit_log;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::content::model::UpdateContent;
use crate::content::ContentKind;
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::state::AppState;

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct RevertRequest {
    /// `change_id`s from `GET /audit/history/{entity_type}/{entity_id}`, all of one item: 1 to 500.
    #[schema(schema_with = change_ids)]
    pub change_ids: Vec<String>,
}

/// 1 to 500 `<audit entry id>:<field>`.
fn change_ids() -> utoipa::openapi::schema::Array {
    utoipa::openapi::schema::ArrayBuilder::new()
        .items(
            utoipa::openapi::ObjectBuilder::new()
                .schema_type(utoipa::openapi::Type::String)
                .pattern(Some("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}:.+$")),
        )
        .min_items(Some(1))
        .max_items(Some(500))
        .description(Some(
            "1 to 500 `change_id`s (`<audit entry id>:<field>`) from `GET /audit/history/{entity_type}/{entity_id}`, all of one item",
        ))
        .build()
}

/// Fields every kind's update takes, by the names the audit trail records
/// them under; with the kind-only fields (`content::KIND_FIELDS`) they are what
/// a revert may restore. Anything else (ids, times, authorship, trash state)
/// is a system field and never reverted.
const COMMON_REVERTABLE: &[&str] = &[
    "site_ids",
    "title",
    "slug",
    "excerpt",
    "body",
    "author",
    "status",
    "published_date",
    "publish_start",
    "publish_end",
    "cover_image_id",
    "header_image_id",
    "is_featured",
    "category_ids",
    "primary_category_id",
    "tag_ids",
];

fn revertable(field: &str) -> bool {
    COMMON_REVERTABLE.contains(&field) || crate::content::KIND_FIELDS.contains(&field)
}

fn parse_change_id(raw: &str) -> Option<(Uuid, String)> {
    let (id, field) = raw.split_once(':')?;
    Some((id.parse().ok()?, field.to_string())).filter(|(_, f)| !f.is_empty())
}

/// Changes chosen for a revert, all of one item, as read from the trail. Who
/// may revert them is asked of their entries' sites before anything else.
pub struct ChosenChanges {
    entries: Vec<audit_log::Model>,
    wanted: Vec<(Uuid, String)>,
}

impl ChosenChanges {
    pub fn entries(&self) -> &[audit_log::Model] {
        &self.entries
    }
}

/// The changes `body` names (1 to 500, of one item).
pub async fn chosen(state: &AppState, body: RevertRequest) -> ApiResult<ChosenChanges> {
    if body.change_ids.is_empty() || body.change_ids.len() > 500 {
        return Err(ApiError::validation(vec![FieldError::new(
            "change_ids",
            ErrorCode::ValidationOutOfRange,
            "name between 1 and 500 changes",
        )]));
    }
    let mut wanted = Vec::with_capacity(body.change_ids.len());
    for (i, raw) in body.change_ids.iter().enumerate() {
        let parsed = parse_change_id(raw).ok_or_else(|| {
            ApiError::validation(vec![FieldError::new(
                format!("change_ids[{i}]"),
                ErrorCode::ValidationInvalidFormat,
                "a change id is `<audit entry id>:<field>`",
            )])
        })?;
        wanted.push(parsed);
    }
    let ids: Vec<Uuid> = wanted.iter().map(|(id, _)| *id).collect();
    let entries = audit_log::Entity::find().filter(audit_log::Column::Id.is_in(ids)).all(&state.db).await?;
    let Some(first) = entries.first() else {
        return Err(ApiError::entity(ErrorCode::EntityNotFound, "audit_entry", "no such changes"));
    };
    if entries.iter().any(|e| e.entity_type != first.entity_type || e.entity_id != first.entity_id) {
        return Err(ApiError::bad_request("the changes belong to several items; revert one item at a time"));
    }
    Ok(ChosenChanges { entries, wanted })
}

/// The content item the changes are of, and the update that restores their
/// old values (it goes through the same update as an editor's `PUT`).
pub fn restoring_update(changes: &ChosenChanges) -> ApiResult<(ContentKind, Uuid, UpdateContent)> {
    let ChosenChanges { entries, wanted } = changes;
    let first = entries.first().ok_or_else(|| ApiError::internal("chosen changes without entries"))?;
    let Some(kind) = ContentKind::parse(&first.entity_type) else {
        return Err(ApiError::bad_request(format!(
            "only content items (blog, page, project, skill, cv, legal) can be reverted, not {}",
            first.entity_type
        )));
    };
    let id: Uuid = first.entity_id.parse().map_err(|_| ApiError::internal("content audit entry without a uuid"))?;
    let restored = old_values(entries, wanted)?;
    let update: UpdateContent = serde_json::from_value(Value::Object(restored))
        .map_err(|e| ApiError::bad_request(format!("the old values no longer make a valid update: {e}")))?;
    Ok((kind, id, update))
}

/// The value each chosen field had before the earliest chosen change of it.
fn old_values(entries: &[audit_log::Model], wanted: &[(Uuid, String)]) -> ApiResult<Map<String, Value>> {
    let mut by_field: BTreeMap<String, (chrono::DateTime<chrono::Utc>, Value)> = BTreeMap::new();
    let mut refused = Vec::new();
    for (audit_id, field) in wanted {
        let entry = entries.iter().find(|e| e.id == *audit_id).ok_or_else(|| {
            ApiError::entity(ErrorCode::EntityNotFound, "audit_entry", format!("no change {audit_id}"))
        })?;
        let change = entry
            .changes
            .as_array()
            .and_then(|c| c.iter().find(|c| c.get("field").and_then(Value::as_str) == Some(field.as_str())))
            .ok_or_else(|| {
                ApiError::entity(
                    ErrorCode::EntityNotFound,
                    "audit_entry",
                    format!("entry {audit_id} did not change {field}"),
                )
            })?;
        if !revertable(field) {
            refused.push(field.clone());
            continue;
        }
        let old = change.get("old").cloned().unwrap_or(Value::Null);
        match by_field.get(field) {
            Some((at, _)) if *at <= entry.created_at => {}
            _ => {
                by_field.insert(field.clone(), (entry.created_at, old));
            }
        }
    }
    if !refused.is_empty() {
        return Err(ApiError::bad_request(format!("system fields are never reverted: {}", refused.join(", "))));
    }
    Ok(by_field.into_iter().map(|(field, (_, old))| (field, old)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_revertable_field_is_one_the_update_takes() {
        // A field the update did not know would be ignored silently: a revert
        // that claims success and changes nothing.
        for field in COMMON_REVERTABLE.iter().chain(crate::content::KIND_FIELDS.iter()) {
            let probe = serde_json::json!({ *field: "not a valid value of any type 🙃" });
            let err = serde_json::from_value::<UpdateContent>(probe).err();
            let known = err.is_some()
                || matches!(
                    *field,
                    "title"
                        | "slug"
                        | "excerpt"
                        | "body"
                        | "author"
                        | "route"
                        | "organization"
                        | "client"
                        | "category"
                        | "template"
                );
            assert!(known, "{field} is not a field of UpdateContent");
        }
        assert_eq!(parse_change_id("6f1c0b9e-8a55-4b36-9d8e-0d3f4b0a1c2d:title").map(|(_, f)| f), Some("title".into()));
        assert_eq!(parse_change_id("nope:title"), None);
    }
}
