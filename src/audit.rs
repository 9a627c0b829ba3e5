//! The audit trail, and the one audited write ([`write`], [`Write`]): every
//! mutation runs inside it and calls [`record`] with the entity's JSON before
//! and after, so field-level changes are stored beside who made them.

use chrono::{DateTime, Utc};
use plinth_entities::{audit_log, audit_log_site};
use sea_orm::{
    ActiveModelBehavior, ActiveModelTrait, ActiveValue::Set, DbErr, EntityTrait, IntoActiveModel, ModelTrait,
};
use serde::Serialize;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::db::{Db, Touched, WriteTxn};
use crate::error::{ApiError, ApiResult};

/// Who acted (stored typed in `audit_log.actor`).
pub use plinth_entities::actor::Actor;
/// What an entry records was done (stored typed in `audit_log.action`).
pub use plinth_entities::kinds::AuditAction as Action;

pub struct AuditEntry<'a> {
    pub actor: &'a Actor,
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

/// A soft-deleted item's `after`: its answer (`before`) marked deleted. The
/// entry's `before` is the item's answer, so a conditional delete
/// (`If-Match`) compares the tag its `GET` answered.
pub fn marked_deleted(before: &Value) -> Value {
    let mut after = before.clone();
    if let Some(item) = after.as_object_mut() {
        item.insert("is_deleted".into(), Value::Bool(true));
    }
    after
}

/// Entities the cached state of a site holds (`SiteState`: the site's row,
/// settings, locales and members): a change to one drops that state as well
/// as the answers built from the site. Every other entity of a site is its
/// content. Without a site, only the shared locale catalogue is cached.
const SITE_ENTITIES: &[&str] =
    &["site", "site_settings", "site_locale", "site_favicon", "member", "account", "user_moderation"];

/// What the caches must drop once the write that records `entry` commits.
fn touched_by(entry: &AuditEntry<'_>, site_id: Uuid) -> Touched {
    match SITE_ENTITIES.contains(&entry.entity_type) {
        true => Touched::Site(site_id),
        false => Touched::Content(site_id),
    }
}

/// The sites an entity's JSON names (`site_id`, `site_ids`).
fn sites_named(entity: &Value) -> impl Iterator<Item = Uuid> + '_ {
    let one = entity.get("site_id").into_iter();
    let many = entity.get("site_ids").and_then(Value::as_array).into_iter().flatten();
    one.chain(many).filter_map(|v| v.as_str().and_then(|s| s.parse().ok()))
}

/// Writes one audit entry, made at `at` (the app's clock), with the changes
/// between `before` and `after`, listed under the entry's site. The write's
/// transaction notes the site (see `db::WriteTxn`), so its caches go when it
/// commits.
pub async fn record(
    db: &WriteTxn,
    at: DateTime<Utc>,
    entry: AuditEntry<'_>,
    before: &impl Serialize,
    after: &impl Serialize,
) -> ApiResult<()> {
    record_on_sites(db, at, entry, &[], before, after).await
}

/// [`record`] for an entity on several sites (a content item): the entry is
/// listed under each of `sites` as well as under `entry.site_id`.
pub async fn record_on_sites(
    db: &WriteTxn,
    at: DateTime<Utc>,
    entry: AuditEntry<'_>,
    sites: &[Uuid],
    before: &impl Serialize,
    after: &impl Serialize,
) -> ApiResult<()> {
    let before = serde_json::to_value(before).unwrap_or_default();
    if entry.action != Action::Create {
        // A client's `If-Match` is compared here, in the write's transaction.
        crate::preconditions::check(db, entry.entity_type, &entry.entity_id, &before).await?;
    }
    let after = serde_json::to_value(after).unwrap_or_default();
    let changes = field_changes(&before, &after);
    let id = Uuid::new_v4();
    let mut listed: Vec<Uuid> = entry.site_id.into_iter().chain(sites.iter().copied()).collect();
    listed.sort();
    listed.dedup();
    // The sites the entity was on before the change too: one it left shows
    // it gone.
    for site_id in listed.iter().copied().chain(sites_named(&before)) {
        db.touch(touched_by(&entry, site_id));
    }
    if listed.is_empty() && entry.entity_type == "locale" {
        db.touch(Touched::AllSites);
    }
    db.audited();
    let row = audit_log::ActiveModel {
        id: Set(id),
        site_id: Set(entry.site_id.or(listed.first().copied())),
        actor: Set(entry.actor.clone()),
        action: Set(entry.action),
        entity_type: Set(entry.entity_type.to_string()),
        entity_id: Set(entry.entity_id),
        changes: Set(changes),
        created_at: Set(at),
    };
    // Without RETURNING: reading the row back (its changes JSON decoded again)
    // was a tenth of a content write's instructions, for a value no one used.
    audit_log::Entity::insert(row).exec_without_returning(db).await?;
    if !listed.is_empty() {
        let rows = listed.into_iter().map(|site_id| audit_log_site::ActiveModel {
            site_id: Set(site_id),
            audit_id: Set(id),
            created_at: Set(at),
        });
        audit_log_site::Entity::insert_many(rows).exec_without_returning(db).await?;
    }
    Ok(())
}

/// The audited write: `work` runs in one write transaction (the SQLite writer
/// queue's turn, the caches its entries name) and records its entries with
/// [`record`]; the transaction commits when `work` succeeds, and only with an
/// entry (see `db::WriteTxn::commit`), and rolls back when it fails. Any shape
/// of change goes through it (several rows, several entries); [`Write`] is its
/// one-row form. No other code begins an audited transaction (a source rule).
pub async fn write<T>(db: &Db, work: impl AsyncFnOnce(&WriteTxn) -> ApiResult<T>) -> ApiResult<T> {
    let txn = crate::db::begin_write(db).await?;
    let answer = work(&txn).await?;
    txn.commit().await?;
    Ok(answer)
}

/// One audited write of one row, the shape the small resources share: the row is
/// stored (inserted for [`Action::Create`], else updated; or removed, see
/// [`Write::remove`]) and its audit entry recorded in one write transaction.
/// Answers what `respond` makes of the stored row, which is also the entry's
/// `after` unless `after` is given.
pub struct Write<'a, F> {
    pub db: &'a Db,
    pub at: DateTime<Utc>,
    pub action: Action,
    /// Builds the audit entry from the stored row.
    pub entry: F,
    pub before: Value,
    /// What the entry records as after the change; `respond`'s answer when `None`.
    pub after: Option<Value>,
}

/// The model of an active model's table.
pub type ModelOf<A> = <<A as ActiveModelTrait>::Entity as EntityTrait>::Model;

impl<'a, F> Write<'a, F> {
    pub async fn run<A, R>(
        self,
        row: A,
        respond: impl FnOnce(&ModelOf<A>) -> R,
        on_error: impl FnOnce(DbErr) -> ApiError,
    ) -> ApiResult<R>
    where
        A: ActiveModelBehavior + Send,
        ModelOf<A>: IntoActiveModel<A>,
        F: for<'m> FnOnce(&'m ModelOf<A>) -> AuditEntry<'a>,
        R: Serialize,
    {
        self.run_prepared(async |_| Ok(row), respond, on_error).await
    }

    /// [`run`](Self::run) with checks or changes of the caller's before the row
    /// is stored, in the same transaction (see [`run_with`](Self::run_with)).
    pub async fn run_prepared<A, R>(
        self,
        prepare: impl AsyncFnOnce(&WriteTxn) -> ApiResult<A>,
        respond: impl FnOnce(&ModelOf<A>) -> R,
        on_error: impl FnOnce(DbErr) -> ApiError,
    ) -> ApiResult<R>
    where
        A: ActiveModelBehavior + Send,
        ModelOf<A>: IntoActiveModel<A>,
        F: for<'m> FnOnce(&'m ModelOf<A>) -> AuditEntry<'a>,
        R: Serialize,
    {
        let (response, ()) = self.run_with(prepare, respond, on_error, async |_, _| Ok(())).await?;
        Ok(response)
    }

    /// [`run`](Self::run) with work of the caller's inside the same transaction:
    /// `prepare` runs first and answers the row to store (checks that must see
    /// the transaction's data, rows to change before this one), `then` runs after
    /// the audit entry, before the commit (events into the outbox), and its
    /// answer comes back beside `respond`'s.
    pub async fn run_with<A, R, T>(
        self,
        prepare: impl AsyncFnOnce(&WriteTxn) -> ApiResult<A>,
        respond: impl FnOnce(&ModelOf<A>) -> R,
        on_error: impl FnOnce(DbErr) -> ApiError,
        then: impl AsyncFnOnce(&WriteTxn, &ModelOf<A>) -> ApiResult<T>,
    ) -> ApiResult<(R, T)>
    where
        A: ActiveModelBehavior + Send,
        ModelOf<A>: IntoActiveModel<A>,
        F: for<'m> FnOnce(&'m ModelOf<A>) -> AuditEntry<'a>,
        R: Serialize,
    {
        let action = self.action;
        let store = async |txn: &WriteTxn| {
            let row = prepare(txn).await?;
            match action {
                Action::Create => row.insert(txn).await,
                _ => row.update(txn).await,
            }
            .map_err(on_error)
        };
        self.execute(store, respond, then).await
    }

    /// Deletes `row` for good; the entry keeps `before` and records nothing after.
    pub async fn remove<M, A>(self, row: M) -> ApiResult<()>
    where
        M: ModelTrait + IntoActiveModel<A> + Clone + Send + Sync,
        A: ActiveModelTrait<Entity = M::Entity> + ActiveModelBehavior + Send,
        F: for<'m> FnOnce(&'m M) -> AuditEntry<'a>,
    {
        let delete = async |txn: &WriteTxn| {
            row.clone().delete(txn).await?;
            Ok(row)
        };
        self.execute(delete, |_| (), async |_, _| Ok(())).await?;
        Ok(())
    }

    /// The one transaction every audited write goes through.
    async fn execute<M, R, T>(
        self,
        store: impl AsyncFnOnce(&WriteTxn) -> ApiResult<M>,
        respond: impl FnOnce(&M) -> R,
        then: impl AsyncFnOnce(&WriteTxn, &M) -> ApiResult<T>,
    ) -> ApiResult<(R, T)>
    where
        F: for<'m> FnOnce(&'m M) -> AuditEntry<'a>,
        R: Serialize,
    {
        write(self.db, async |txn| {
            let stored = store(txn).await?;
            let response = respond(&stored);
            let after = match self.after {
                Some(after) => after,
                None => serde_json::to_value(&response).unwrap_or_default(),
            };
            record(txn, self.at, (self.entry)(&stored), &self.before, &after).await?;
            let extra = then(txn, &stored).await?;
            Ok((response, extra))
        })
        .await
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
