//! One part of an item at a time (a page's section, a legal document's
//! consent group or item): read with the item, and changed as a change of the
//! item's whole list through the content engine's one update. So a part's
//! change has the item's role rules (checked first), its audit entry, its
//! `*.updated` event and cache drop, and an item changed since it was read is
//! 409 CONFLICT, never overwritten.

use std::collections::HashSet;

use serde_json::Value;
use uuid::Uuid;

use super::access::ItemAccess;
use super::model::UpdateContent;
use super::{part_keys, write, ContentKind};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// How one kind keeps a list of parts in its `fields`.
pub struct PartList<T> {
    pub kind: ContentKind,
    /// The part's name in a 404's detail ("page section").
    pub what: &'static str,
    /// The list as stored in the item's fields.
    pub stored: fn(&Value) -> Vec<T>,
    /// An update body that replaces the list.
    pub replace: fn(Vec<T>) -> UpdateContent,
}

impl<T> PartList<T> {
    /// The item's parts, for a caller who may read it (`access::readable`).
    pub fn readable(&self, item: &ItemAccess) -> Vec<T> {
        (self.stored)(&Value::Object(item.response().kind_fields))
    }

    /// Changes the item's parts with `change` (given them as stored, once the
    /// caller is known to be allowed to edit the item) and stores the result
    /// through the item's update; answers `change`'s value and the parts as
    /// stored.
    /// `item`: `access::editable`, with taxonomy (the update needs it).
    pub async fn change<A>(
        &self,
        state: &AppState,
        item: ItemAccess,
        change: impl FnOnce(&mut Vec<T>) -> ApiResult<A>,
    ) -> ApiResult<(A, Vec<T>)> {
        let mut list = (self.stored)(&item.item.fields);
        let answer = change(&mut list)?;
        let updated = write::update(state, item, (self.replace)(list)).await?;
        Ok((answer, (self.stored)(&Value::Object(updated.kind_fields))))
    }

    /// The item holding part `part_id` (not a nested entry's id); 404 for any
    /// other id.
    pub async fn item_of_part(&self, state: &AppState, part_id: Uuid) -> ApiResult<Uuid> {
        match part_keys::find_key(&state.db, part_id).await? {
            Some(key) if key.part_id == part_id => Ok(key.content_id),
            _ => Err(ApiError::not_found(self.what, part_id)),
        }
    }
}

/// The item and the part holding nested entry `id` (a section's text, a
/// group's item); 404 (as a `what`) for any other id.
pub async fn item_of_entry(state: &AppState, id: Uuid, what: &str) -> ApiResult<(Uuid, Uuid)> {
    match part_keys::find_key(&state.db, id).await? {
        Some(key) if key.part_id != id => Ok((key.content_id, key.part_id)),
        _ => Err(ApiError::not_found(what, id)),
    }
}

/// The entry `id` of `list`, to change; 404 (as a `what`) when it has none.
pub fn entry_mut<'a, T>(
    list: &'a mut [T],
    id: Uuid,
    id_of: impl Fn(&T) -> Option<Uuid>,
    what: &str,
) -> ApiResult<&'a mut T> {
    list.iter_mut().find(|entry| id_of(entry) == Some(id)).ok_or_else(|| ApiError::not_found(what, id))
}

/// Takes the entry `id` out of `list`; 404 (as a `what`) when it has none.
pub fn remove_by_id<T>(list: &mut Vec<T>, id: Uuid, id_of: impl Fn(&T) -> Option<Uuid>, what: &str) -> ApiResult<()> {
    let before = list.len();
    list.retain(|entry| id_of(entry) != Some(id));
    if list.len() == before {
        return Err(ApiError::not_found(what, id));
    }
    Ok(())
}

/// The next `display_order` after `orders` (0 for the first), at most `max`.
pub fn next_order(orders: impl Iterator<Item = Option<i32>>, max: i32) -> i32 {
    orders.flatten().max().map_or(0, |order| (order + 1).min(max))
}

/// The ids `list` holds (before a create, for [`added_id`]).
pub fn ids_in<T>(list: &[T], id_of: impl Fn(&T) -> Option<Uuid>) -> HashSet<Uuid> {
    list.iter().filter_map(id_of).collect()
}

/// The id a create added: the one of `after` (ids as stored) not among
/// `before`. The stored id is the server's (given on storing), so it is found
/// rather than chosen.
pub fn added_id(before: &HashSet<Uuid>, after: impl IntoIterator<Item = Uuid>, what: &str) -> ApiResult<Uuid> {
    after
        .into_iter()
        .find(|id| !before.contains(id))
        .ok_or_else(|| ApiError::internal(format!("the new {what} was not stored")))
}
