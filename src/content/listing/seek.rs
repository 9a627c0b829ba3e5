//! Deep pages without walking to them.
//!
//! A page at offset 50,000 of a list is an index range scan that steps over
//! 50,000 index entries before it reads its own; on 2 cores that held the
//! page halfway down 100,000 posts near 400 req/s. Instead, a list remembers
//! one row in every [`SPACING`] (its sort key and id: a boundary) and a deep
//! page starts at the nearest boundary before it, seeking to it in the index
//! (a keyset condition on the list's own sort key), and then walks fewer than
//! [`SPACING`] entries.
//!
//! Boundaries are per list (site, filter and order), kept in the state's
//! derived values under the site's write generation: any write to the site
//! makes them stale, as it makes the site's cached answers stale, so a page
//! never starts from a row that moved. They are found lazily, each from the one
//! before by a walk of [`SPACING`] entries, as far as the deepest page asked
//! for; one request builds a list's boundaries while the others wait for it.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use plinth_entities::content_listing;
use sea_orm::sea_query::Expr;
use sea_orm::{ConnectionTrait, DbErr, ExprTrait, FromQueryResult, QueryResult, QuerySelect, Value};
use uuid::Uuid;

use super::{page_rows, Filter, Sort, SortKey};
use crate::error::ApiResult;
use crate::state::AppState;

/// Rows between two boundaries: the most a deep page walks.
pub const SPACING: u64 = 1_000;
/// Pages before this offset walk to it: cheaper than finding boundaries.
const FIRST_SEEK: u64 = 5 * SPACING;

/// Where a page starts: `offset` rows past `from` (a row of the list, itself
/// the first of them), or past the list's start.
#[derive(Clone, Debug, Default)]
pub struct Position {
    pub from: Option<Boundary>,
    pub offset: u64,
}

impl Position {
    pub fn offset(offset: u64) -> Self {
        Position { from: None, offset }
    }
}

/// A row of a list as its order sees it: its sort key and its id.
#[derive(Clone, Debug)]
pub struct Boundary {
    value: Value,
    content_id: Uuid,
}

/// A list row's sort key and id as the database holds them. The key is read
/// as stored text where it is text (SQLite keeps times as text, and a time
/// re-encoded by the driver need not be spelled as the row spells it, which
/// would misplace it among the others), as a time otherwise (PostgreSQL).
struct KeyRow(Option<Boundary>);

impl FromQueryResult for KeyRow {
    fn from_query_result(row: &QueryResult, pre: &str) -> Result<Self, DbErr> {
        let content_id: Uuid = row.try_get(pre, "content_id")?;
        let value: Option<Value> = match row.try_get::<Option<String>>(pre, "sort_key") {
            Ok(text) => text.map(Value::from),
            Err(_) => row.try_get::<Option<DateTime<Utc>>>(pre, "sort_key")?.map(Value::from),
        };
        Ok(KeyRow(value.map(|value| Boundary { value, content_id })))
    }
}

impl Boundary {
    /// The rows at or after this one in `sort`: a range of the list's index.
    pub(super) fn onwards(&self, sort: Sort) -> sea_orm::sea_query::SimpleExpr {
        let key = Expr::tuple([
            Expr::col((content_listing::Entity, sort.column())),
            Expr::col((content_listing::Entity, content_listing::Column::ContentId)),
        ]);
        let here = Expr::tuple([Expr::val(self.value.clone()), Expr::val(self.content_id)]);
        match sort.descending {
            true => key.lte(here),
            false => key.gte(here),
        }
    }
}

/// Whether `filter`'s rows all have a `sort` key: a keyset condition skips
/// rows whose key is NULL, so only orders on keys that the filter guarantees
/// are sought. A search is not: its rows come from the text index, unordered.
fn seekable(filter: &Filter, sort: Sort) -> bool {
    let keyed = match sort.key {
        SortKey::Created | SortKey::Updated | SortKey::Title => true,
        SortKey::Published => filter.status == Some(super::ContentStatus::Published),
        SortKey::Deleted => filter.deleted,
    };
    keyed && filter.search.is_none()
}

/// A list's boundaries under one generation of its site: `rows[k]` is the
/// row at offset `(k + 1) * SPACING`.
struct Boundaries {
    rows: Vec<Boundary>,
    /// The list ends before another boundary: looking further finds nothing.
    complete: bool,
}

/// Where the page at `offset` of `filter` in `sort` starts. The boundaries
/// are kept in the state's derived values under the site's write generation,
/// read before any of the page's queries.
pub async fn position(state: &AppState, filter: &Filter, sort: Sort, offset: u64) -> ApiResult<Position> {
    if offset < FIRST_SEEK || !seekable(filter, sort) {
        return Ok(Position::offset(offset));
    }
    let generation = state.responses.write_generation(filter.site_id);
    let wanted = usize::try_from(offset / SPACING).unwrap_or(usize::MAX);
    let key = format!("page-boundaries:{}:{sort:?}:{filter:?}", filter.site_id);
    let short = |known: &Option<Arc<Boundaries>>| known.as_ref().is_none_or(|b| b.rows.len() < wanted && !b.complete);
    let mut known = state.derived.get::<Boundaries>(&key, generation);
    if short(&known) {
        let _turn = state.derived.building.turn(&key).await;
        known = state.derived.get::<Boundaries>(&key, generation);
        if short(&known) {
            let mut rows = known.as_ref().map(|b| b.rows.clone()).unwrap_or_default();
            let complete = !extend(&state.db, filter, sort, &mut rows, wanted).await?;
            let built = Arc::new(Boundaries { rows, complete });
            state.derived.insert(key, generation, Arc::clone(&built));
            known = Some(built);
        }
    }
    let reached = known.as_ref().map_or(0, |b| b.rows.len().min(wanted));
    let from = reached.checked_sub(1).and_then(|k| known.as_ref().and_then(|b| b.rows.get(k)).cloned());
    match from {
        Some(from) => Ok(Position { from: Some(from), offset: offset - reached as u64 * SPACING }),
        None => Ok(Position::offset(offset)),
    }
}

/// Finds boundaries after the last of `rows` until there are `wanted`: each
/// the row [`SPACING`] past the one before, one walk of the index each.
/// `false` when the list ended first (or a row had no key).
async fn extend<C: ConnectionTrait>(
    db: &C,
    filter: &Filter,
    sort: Sort,
    rows: &mut Vec<Boundary>,
    wanted: usize,
) -> ApiResult<bool> {
    while rows.len() < wanted {
        let from = Position { from: rows.last().cloned(), offset: SPACING };
        let next = page_rows(filter, sort, 1, from)
            .select_only()
            .column_as(sort.column(), "sort_key")
            .column(content_listing::Column::ContentId)
            .into_model::<KeyRow>()
            .one(db)
            .await?;
        match next {
            Some(KeyRow(Some(boundary))) => rows.push(boundary),
            _ => return Ok(false),
        }
    }
    Ok(true)
}

impl From<u64> for Position {
    fn from(offset: u64) -> Self {
        Position::offset(offset)
    }
}
