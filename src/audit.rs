//! The audit trail. Every mutation calls [`record`] inside its transaction with
//! the entity's JSON before and after, so field-level changes are stored beside
//! who made them.

use chrono::{DateTime, Utc};
use plinth_entities::audit_log;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ConnectionTrait, DbErr};
use serde::Serialize;
use serde_json::{json, Value};
use uuid::Uuid;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Create,
    Update,
    Delete,
    Restore,
    Revoke,
    Purge,
}

impl Action {
    fn as_str(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Update => "update",
            Action::Delete => "delete",
            Action::Restore => "restore",
            Action::Revoke => "revoke",
            Action::Purge => "purge",
        }
    }
}

pub struct AuditEntry<'a> {
    pub actor: &'a str,
    pub action: Action,
    pub entity_type: &'a str,
    pub entity_id: String,
    pub site_id: Option<Uuid>,
}

/// Top-level fields whose values differ: `[{field, old, new}]`, sorted by field.
/// Pass `Value::Null` as `before` for a creation and as `after` for a deletion.
pub fn field_changes(before: &Value, after: &Value) -> Value {
    let empty = serde_json::Map::new();
    let before = before.as_object().unwrap_or(&empty);
    let after = after.as_object().unwrap_or(&empty);
    let mut fields: Vec<&String> = before.keys().chain(after.keys()).collect();
    fields.sort();
    fields.dedup();
    let changes: Vec<Value> = fields
        .into_iter()
        .filter_map(|field| {
            let old = before.get(field).unwrap_or(&Value::Null);
            let new = after.get(field).unwrap_or(&Value::Null);
            (old != new).then(|| json!({"field": field, "old": old, "new": new}))
        })
        .collect();
    Value::Array(changes)
}

/// Writes one audit entry, made at `at` (the app's clock), with the changes
/// between `before` and `after`.
pub async fn record<C: ConnectionTrait>(
    db: &C,
    at: DateTime<Utc>,
    entry: AuditEntry<'_>,
    before: &impl Serialize,
    after: &impl Serialize,
) -> Result<(), DbErr> {
    let before = serde_json::to_value(before).unwrap_or_default();
    let after = serde_json::to_value(after).unwrap_or_default();
    let changes = field_changes(&before, &after);
    audit_log::ActiveModel {
        id: Set(Uuid::new_v4()),
        site_id: Set(entry.site_id),
        actor: Set(entry.actor.to_string()),
        action: Set(entry.action.as_str().to_string()),
        entity_type: Set(entry.entity_type.to_string()),
        entity_id: Set(entry.entity_id),
        changes: Set(changes),
        created_at: Set(at),
    }
    .insert(db)
    .await?;
    Ok(())
}

/// One audited write of one row, the shape the small resources share: the row is
/// stored (inserted for [`Action::Create`], else updated) and its audit entry
/// recorded in one write transaction. Answers what `respond` makes of the stored
/// row, which is also the entry's `after` unless `after` is given.
pub struct Write<'a, F> {
    pub db: &'a sea_orm::DatabaseConnection,
    pub at: DateTime<Utc>,
    pub action: Action,
    /// Builds the audit entry from the stored row.
    pub entry: F,
    pub before: Value,
    /// What the entry records as after the change; `respond`'s answer when `None`.
    pub after: Option<Value>,
}

impl<'a, F> Write<'a, F> {
    pub async fn run<A, R>(
        self,
        row: A,
        respond: impl FnOnce(&<A::Entity as sea_orm::EntityTrait>::Model) -> R,
        on_error: impl FnOnce(DbErr) -> crate::error::ApiError,
    ) -> crate::error::ApiResult<R>
    where
        A: sea_orm::ActiveModelBehavior + Send,
        <A::Entity as sea_orm::EntityTrait>::Model: sea_orm::IntoActiveModel<A>,
        F: for<'m> FnOnce(&'m <A::Entity as sea_orm::EntityTrait>::Model) -> AuditEntry<'a>,
        R: Serialize,
    {
        let txn = crate::db::begin_write(self.db).await?;
        let stored = match self.action {
            Action::Create => row.insert(&txn).await,
            _ => row.update(&txn).await,
        }
        .map_err(on_error)?;
        let response = respond(&stored);
        let after = match self.after {
            Some(after) => after,
            None => serde_json::to_value(&response).unwrap_or_default(),
        };
        record(&txn, self.at, (self.entry)(&stored), &self.before, &after).await?;
        txn.commit().await?;
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_list_only_differing_fields() {
        let before = json!({"name": "a", "slug": "s", "gone": 1});
        let after = json!({"name": "b", "slug": "s", "new": true});
        let changes = field_changes(&before, &after);
        assert_eq!(
            changes,
            json!([
                {"field": "gone", "old": 1, "new": null},
                {"field": "name", "old": "a", "new": "b"},
                {"field": "new", "old": null, "new": true}
            ])
        );
        assert_eq!(field_changes(&Value::Null, &json!({"a": 1})), json!([{"field": "a", "old": null, "new": 1}]));
    }
}
