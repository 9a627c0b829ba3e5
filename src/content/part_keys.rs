//! The keys of parts (see `content::parts`): `content_part_keys`, id → the
//! item and the part it is or sits in, and the ids parts get.

use std::collections::HashSet;

use plinth_entities::content_part_key;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use uuid::Uuid;

use crate::error::ApiResult;

/// One id's key row: the item `content_id`, and the part it is or sits in.
pub type KeyRow = content_part_key::ActiveModel;

pub fn key(id: Uuid, content_id: Uuid, part_id: Uuid) -> KeyRow {
    content_part_key::ActiveModel { id: Set(id), content_id: Set(content_id), part_id: Set(part_id) }
}

/// Gives ids to a list's entries: an id that is one of the item's own (and
/// not given twice) stays, any other entry gets a new one, so a client cannot
/// take another item's id.
pub struct Ids {
    own: HashSet<Uuid>,
    used: HashSet<Uuid>,
}

impl Ids {
    pub fn keeping(own: HashSet<Uuid>) -> Ids {
        Ids { own, used: HashSet::new() }
    }

    pub fn give(&mut self, id: Option<Uuid>) -> Uuid {
        match id {
            Some(id) if self.own.contains(&id) && self.used.insert(id) => id,
            _ => Uuid::new_v4(),
        }
    }
}

/// Rewrites an item's keys (see `parts::prepare`), after its row.
pub async fn replace_keys<C: ConnectionTrait>(db: &C, content_id: Uuid, rows: Option<Vec<KeyRow>>) -> ApiResult<()> {
    let Some(rows) = rows else { return Ok(()) };
    content_part_key::Entity::delete_many().filter(content_part_key::Column::ContentId.eq(content_id)).exec(db).await?;
    for chunk in rows.chunks(500) {
        content_part_key::Entity::insert_many(chunk.to_vec()).exec(db).await?;
    }
    Ok(())
}

/// The item holding a part's (or a nested entry's) id, and that part.
pub async fn find_key<C: ConnectionTrait>(db: &C, id: Uuid) -> ApiResult<Option<content_part_key::Model>> {
    Ok(content_part_key::Entity::find_by_id(id).one(db).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_ids_stay_once_and_foreign_ids_are_replaced() {
        let (own, foreign) = (Uuid::new_v4(), Uuid::new_v4());
        let mut ids = Ids::keeping(HashSet::from([own]));
        assert_eq!(ids.give(Some(own)), own);
        assert_ne!(ids.give(Some(own)), own, "the same id twice: the second is new");
        assert_ne!(ids.give(Some(foreign)), foreign);
        assert_ne!(ids.give(None), Uuid::nil());
    }
}
