//! Conditional writes: `If-Match` on a `PUT`, `PATCH` or `DELETE` of one item.
//!
//! An editor reads an item (its answer carries an `ETag`), changes it, and
//! saves with that tag in `If-Match`. When someone else saved the item in
//! between, the save is refused with 412 `PRECONDITION_FAILED`, naming the
//! item's current tag and the fields changed since the editor's version,
//! instead of overwriting a version the editor never saw. Without the header a
//! write behaves exactly as the spec says.
//!
//! The check is a step of the one audited write path, so every family gets
//! it from the same place: each change records the item as it was before, in
//! the shape its answer has (`audit::record`), and that shape's tag is the one
//! its `GET` answered (`http_cache`: both hash the same bytes). [`check`] runs
//! there, inside the write's transaction, and refuses the write when
//! 1. the item was written since the request began: every change of an item
//!    is audited, so its audit entries are counted as the request begins
//!    ([`around_write`]) and again here. Conditional writers of one item take
//!    turns for the second count (on PostgreSQL a transaction-scoped advisory
//!    lock, across instances; on SQLite the one write lock), so no write
//!    commits between a check and its commit, conditional or not;
//! 2. or the item's tag is not one `If-Match` names (`*` names any).
//!
//! A refusal is an error, so the transaction rolls back: nothing of the
//! refused write is kept.

use std::cell::RefCell;
use std::rc::Rc;

use actix_web::http::header::{HeaderValue, ETAG};
use actix_web::http::Method;
use plinth_entities::audit_log;
use sea_orm::{ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Statement};
use serde_json::Value;

use crate::db::WriteTxn;
use crate::error::{ApiError, ApiResult, ErrorCode};

/// Writes of an item's path that take no `If-Match` (the document omits it
/// for them), each with why: every other `PUT`, `PATCH` and `DELETE` of a
/// path that answers a `GET` does.
pub const UNCONDITIONAL: &[(&str, &str)] =
    &[("PUT /sites/{site_id}/onboarding-progress", "a signed-in user's own progress, not an item editors share")];

/// How far back the audit trail is read to name the fields changed since the
/// client's version; an older version is refused without the list.
const HISTORY_READ: u64 = 100;

/// What a conditional request asked, for the write it runs.
pub struct Precondition {
    /// The tags `If-Match` names, without quotes; `None` for `*`.
    tags: Option<Vec<String>>,
    /// The ids in the request's path, each with how many audit entries it
    /// had as the request began: the item the precondition is about is the
    /// first audited entity among them.
    path_ids: Vec<(String, u64)>,
    /// The item's answer as its `GET` gives it, from a family whose audit
    /// entry records another shape ([`compare_with`]); else the entry's `before`.
    answer: Option<Value>,
    /// Whether a write compared it (once per request).
    checked: bool,
}

tokio::task_local! {
    static REQUEST_PRECONDITION: Rc<RefCell<Precondition>>;
}

/// The precondition of a `PUT`, `PATCH` or `DELETE` with `If-Match`, its
/// item's audit entries counted now (as the request begins); `None` for any
/// other request.
pub async fn of_request(
    db: &impl ConnectionTrait,
    method: &Method,
    path: &str,
    if_match: Option<&HeaderValue>,
) -> Result<Option<Precondition>, sea_orm::DbErr> {
    if !matches!(*method, Method::PUT | Method::PATCH | Method::DELETE) {
        return Ok(None);
    }
    let Some(header) = if_match else { return Ok(None) };
    let tags = parse_tags(header.to_str().unwrap_or_default());
    let ids: Vec<String> =
        path.split('/').filter_map(|s| uuid::Uuid::try_parse(s).ok()).map(|id| id.hyphenated().to_string()).collect();
    let counted = audit_counts(db, &ids).await?;
    let path_ids = ids.into_iter().map(|id| (id.clone(), counted.get(&id).copied().unwrap_or(0))).collect();
    Ok(Some(Precondition { tags, path_ids, answer: None, checked: false }))
}

/// For a write whose audited item is not in its path (a page section's
/// texts are a change of the page): the item's audit entries, counted now,
/// before the handler reads it, so that [`check`] takes it for the request's
/// item. Nothing without a pending precondition.
pub async fn about_item(db: &impl ConnectionTrait, item_id: uuid::Uuid) -> Result<(), sea_orm::DbErr> {
    if !pending() {
        return Ok(());
    }
    let id = item_id.hyphenated().to_string();
    let entries = audit_counts(db, std::slice::from_ref(&id)).await?.get(&id).copied().unwrap_or(0);
    let _ = REQUEST_PRECONDITION.try_with(|p| p.borrow_mut().path_ids.insert(0, (id, entries)));
    Ok(())
}

/// Runs a write's handler with its precondition noted for [`check`];
/// answers whether a write compared it.
pub async fn scope<F: std::future::Future>(precondition: Precondition, write: F) -> (F::Output, bool) {
    let noted = Rc::new(RefCell::new(precondition));
    let output = REQUEST_PRECONDITION.scope(Rc::clone(&noted), write).await;
    let checked = noted.borrow().checked;
    (output, checked)
}

/// How many audit entries each of `ids` has. Written as SQL, not built: a
/// conditional write counts twice, and building the query (an entity's
/// select of every column, then only two) cost a third of what the count
/// did (`cargo bench --bench request_cost`, PUT with If-Match).
async fn audit_counts(
    db: &impl ConnectionTrait,
    ids: &[String],
) -> Result<std::collections::HashMap<String, u64>, sea_orm::DbErr> {
    if ids.is_empty() {
        return Ok(Default::default());
    }
    let backend = db.get_database_backend();
    let placeholders: Vec<String> = (1..=ids.len()).map(|n| crate::db::placeholder(backend, n)).collect();
    // `COUNT(*)`: the entity's index entries are all it reads.
    let sql = format!(
        "SELECT entity_id, COUNT(*) FROM audit_log WHERE entity_id IN ({}) GROUP BY entity_id",
        placeholders.join(", ")
    );
    let values = ids.iter().map(|id| sea_orm::Value::from(id.as_str()));
    let rows = db.query_all_raw(Statement::from_sql_and_values(backend, sql, values)).await?;
    rows.iter()
        .map(|row| {
            let (id, n): (String, i64) = (row.try_get_by_index(0)?, row.try_get_by_index(1)?);
            Ok((id, u64::try_from(n).unwrap_or(0)))
        })
        .collect()
}

/// `If-Match`'s tags without their quotes (a weak `W/` prefix is read as
/// strong: the tags are hashes of the body); `None` for `*`.
fn parse_tags(header: &str) -> Option<Vec<String>> {
    let tags: Vec<String> =
        header.split(',').map(|t| t.trim().trim_start_matches("W/").trim_matches('"').to_owned()).collect();
    (!tags.iter().any(|t| t == "*")).then_some(tags)
}

/// Whether the request this runs in carries a precondition not yet checked:
/// a write that meets a concurrent change leaves the refusal to [`check`],
/// which names what changed.
pub fn pending() -> bool {
    REQUEST_PRECONDITION.try_with(|p| !p.borrow().checked).unwrap_or(false)
}

/// For a family whose audit entry records the item in another shape than
/// its `GET` answers (a summary, or without what the `GET` adds): the item's
/// answer as its `GET` gives it, read before the write, for [`check`] to
/// compare the client's tag with. Only worth reading when [`pending`].
pub fn compare_with(answer: &impl serde::Serialize) {
    let _ = REQUEST_PRECONDITION.try_with(|p| p.borrow_mut().answer = serde_json::to_value(answer).ok());
}

/// Inside an audited write, before its entry is stored: for the item the
/// request's `If-Match` is about, the item as the write read it (`before`,
/// in its answer's shape) must still be the stored one, and its tag one the
/// client named. Other entries, and requests without `If-Match`, pass.
pub async fn check(txn: &WriteTxn, entity_type: &str, entity_id: &str, before: &Value) -> ApiResult<()> {
    let Some((tags, entries_at_start, answer)) = claim(entity_id) else { return Ok(()) };
    let before = answer.as_ref().unwrap_or(before);
    if txn.get_database_backend() == DbBackend::Postgres {
        // Held until commit: writers checking this item take turns.
        let (high, low) = lock_keys(entity_id);
        txn.execute_raw(Statement::from_sql_and_values(
            DbBackend::Postgres,
            "SELECT pg_advisory_xact_lock($1, $2)",
            [high.into(), low.into()],
        ))
        .await?;
    }
    let entries_now = audit_counts(txn, &[entity_id.to_owned()]).await?.get(entity_id).copied().unwrap_or(0);
    let written_since = entries_now != entries_at_start;
    let Some(tags) = tags else { return Ok(()) }; // `*`: any current version will do
    if !written_since && tags.contains(&crate::etag::tag_of(before)) {
        return Ok(());
    }
    let detail = format!(
        "the {entity_type} {entity_id} changed since the version your If-Match names: read it again, apply \
         your change to it and save with the ETag its answer carries"
    );
    let history = history(txn, entity_type, entity_id).await?;
    // Written while this request ran: the item as it read it may be older
    // than the stored one; with the changes stored since replayed on it, it
    // is the current one.
    let since = usize::try_from(entries_now.saturating_sub(entries_at_start)).unwrap_or(usize::MAX);
    let current_item = replayed(before, &history[..since.min(history.len())]);
    let current = crate::etag::tag_of(&current_item);
    let changed = changed_since(&current_item, &history, &tags);
    let header = HeaderValue::from_str(&format!("\"{current}\"")).map_err(ApiError::internal)?;
    Err(ApiError::new(ErrorCode::PreconditionFailed, detail)
        .with_precondition(format!("\"{current}\""), changed)
        .with_header(ETAG, header))
}

/// `item` with the changes of `newer` (newest first) applied, oldest first.
fn replayed(item: &Value, newer: &[Value]) -> Value {
    let mut version = item.clone();
    for entry in newer.iter().rev() {
        for (field, _, new) in changes(entry) {
            if let Some(fields) = version.as_object_mut() {
                fields.insert(field.to_owned(), new.clone());
            }
        }
    }
    version
}

/// The client's tags (`None` for `*`) and the item's audit entries as the
/// request began, when this entity is the request's item and nothing
/// compared them yet; the request counts as checked.
fn claim(entity_id: &str) -> Option<(Option<Vec<String>>, u64, Option<Value>)> {
    REQUEST_PRECONDITION
        .try_with(|p| {
            let mut p = p.borrow_mut();
            let entries = p.path_ids.iter().find(|(id, _)| id == entity_id).map(|(_, n)| *n);
            match (p.checked, entries) {
                (false, Some(entries)) => {
                    p.checked = true;
                    Some((p.tags.clone(), entries, p.answer.take()))
                }
                _ => None,
            }
        })
        .ok()
        .flatten()
}

fn lock_keys(entity_id: &str) -> (i32, i32) {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    entity_id.hash(&mut hasher);
    let key = hasher.finish();
    ((key >> 32) as i32, key as i32)
}

/// The entity's changes, newest first: `[{field, old, new}]` each.
async fn history(txn: &WriteTxn, entity_type: &str, entity_id: &str) -> Result<Vec<Value>, sea_orm::DbErr> {
    audit_log::Entity::find()
        .select_only()
        .column(audit_log::Column::Changes)
        .filter(audit_log::Column::EntityType.eq(entity_type))
        .filter(audit_log::Column::EntityId.eq(entity_id))
        .order_by_desc(audit_log::Column::CreatedAt)
        .order_by_desc(audit_log::Column::Id)
        .limit(HISTORY_READ)
        .into_tuple::<Value>()
        .all(txn)
        .await
}

fn changes(entry: &Value) -> impl Iterator<Item = (&str, &Value, &Value)> {
    entry.as_array().into_iter().flatten().filter_map(|change| {
        Some((change.get("field")?.as_str()?, change.get("old").unwrap_or(&Value::Null), change.get("new")?))
    })
}

/// The fields changed since the version tagged one of `tags`: walking back
/// from `current` through the history, undoing one change at a time, until a
/// version has one of the tags. `None` when none within the history does.
fn changed_since(current: &Value, history: &[Value], tags: &[String]) -> Option<Vec<String>> {
    let mut version = current.clone();
    let mut changed: Vec<String> = Vec::new();
    for entry in history {
        for (field, old, _) in changes(entry) {
            if let Some(slot) = version.as_object_mut().and_then(|item| item.get_mut(field)) {
                *slot = old.clone();
            }
            if !changed.iter().any(|f| f == field) {
                changed.push(field.to_owned());
            }
        }
        let tag = crate::etag::tag_of(&version);
        if tags.contains(&tag) {
            changed.sort();
            return Some(changed);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn if_match_names_tags_with_or_without_quotes_or_any_version() {
        assert_eq!(parse_tags("\"a-1\", W/\"b-2\",c-3"), Some(vec!["a-1".into(), "b-2".into(), "c-3".into()]));
        assert_eq!(parse_tags("*"), None);
    }

    #[test]
    fn the_fields_changed_since_a_version_are_found_by_undoing_changes() {
        let v1 = json!({"title": "one", "body": "x", "updated_at": "t1"});
        let v2 = json!({"title": "two", "body": "x", "updated_at": "t2"});
        let v3 = json!({"title": "two", "body": "y", "updated_at": "t3"});
        let history = vec![
            json!([{"field": "body", "old": "x", "new": "y"}, {"field": "updated_at", "old": "t2", "new": "t3"}]),
            json!([{"field": "title", "old": "one", "new": "two"}, {"field": "updated_at", "old": "t1", "new": "t2"}]),
        ];
        assert_eq!(
            changed_since(&v3, &history, &[crate::etag::tag_of(&v2)]),
            Some(vec!["body".into(), "updated_at".into()])
        );
        assert_eq!(
            changed_since(&v3, &history, &[crate::etag::tag_of(&v1)]),
            Some(vec!["body".into(), "title".into(), "updated_at".into()])
        );
        assert_eq!(changed_since(&v3, &history, &["unknown".into()]), None);
    }

    #[test]
    fn an_item_read_before_a_concurrent_write_is_brought_up_to_date_by_its_changes() {
        let read = json!({"title": "one", "body": "x", "updated_at": "t1"});
        let newer = vec![
            json!([{"field": "body", "old": "x", "new": "y"}, {"field": "updated_at", "old": "t2", "new": "t3"}]),
            json!([{"field": "title", "old": "one", "new": "two"}, {"field": "updated_at", "old": "t1", "new": "t2"}]),
        ];
        assert_eq!(replayed(&read, &newer), json!({"title": "two", "body": "y", "updated_at": "t3"}));
        assert_eq!(replayed(&read, &[]), read, "nothing written since: as read");
    }
}
