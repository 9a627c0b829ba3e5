//! The envelope every paginated list shares: `{data, meta{page, per_page, total,
//! total_pages}}`. Pages start at 1; `per_page` defaults to 10 and is clamped to
//! 1..=100; a page past the end has an empty `data`, whatever its number: a page
//! whose first row lies past `i64::MAX` (no table has that many) is never asked of
//! the database, whose drivers bind OFFSET as a signed 64-bit integer.

use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, FromQueryResult, Iterable, PaginatorTrait, PrimaryKeyToColumn,
    QueryFilter, QuerySelect, QueryTrait, Select,
};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::ApiResult;
use crate::literal_paging::{all_with_literal_paging, with_literal_paging};

pub const DEFAULT_PER_PAGE: u64 = 10;
pub const MAX_PER_PAGE: u64 = 100;

#[derive(Clone, Copy, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// Page number, from 1 (default 1).
    #[param(schema_with = crate::pagination::page_number_schema)]
    pub page: Option<u64>,
    /// Items per page (default 10, at most 100). Also accepted as `page_size`.
    #[serde(alias = "page_size")]
    #[param(schema_with = crate::pagination::per_page_schema)]
    pub per_page: Option<u32>,
}

/// The direction of a list's order, as the lists with `sort_dir` name it.
#[derive(Clone, Copy, Debug, Default, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SortDir {
    Asc,
    #[default]
    Desc,
}

/// [`PageParams`] of the lists whose pages hold 20 by default, so the
/// document states that default.
#[derive(Clone, Copy, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageParams20 {
    #[param(schema_with = crate::pagination::page_number_schema)]
    pub page: Option<u64>,
    #[serde(alias = "page_size")]
    #[param(schema_with = crate::pagination::per_page_20_schema)]
    pub per_page: Option<u32>,
}

impl From<PageParams20> for PageParams {
    fn from(p: PageParams20) -> Self {
        PageParams { page: p.page, per_page: p.per_page }
    }
}

/// A page number's schema: an integer from 0 (read as 1) to `u64::MAX`, with
/// no `format`: any page past the end is an empty page (a `format` of int64
/// would say that a number past `i64::MAX` is refused).
pub fn page_number_schema() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::Integer)
        .minimum(Some(0))
        .maximum(Some(u64::MAX))
        .description(Some("Page number, from 1 (default 1); a page past the end is empty"))
        .build()
}

/// A page size's schema: an integer from 0, with no `maximum` since a larger
/// one is not refused but clamped (to 100; 0 is read as 1), as its
/// description says. The default is [`DEFAULT_PER_PAGE`].
pub fn per_page_schema() -> utoipa::openapi::Object {
    per_page_schema_with("Items per page (default 10); larger values are clamped to 100, 0 is read as 1")
}

/// [`per_page_schema`] of the lists whose pages hold 20 by default (audit
/// entries, notifications).
pub fn per_page_20_schema() -> utoipa::openapi::Object {
    per_page_schema_with("Items per page (default 20); larger values are clamped to 100, 0 is read as 1")
}

/// [`per_page_schema`] of the content lists (`ContentKind::default_per_page`).
pub fn content_per_page_schema() -> utoipa::openapi::Object {
    per_page_schema_with(
        "Items per page (default 10, on skill lists 25); larger values are clamped to 100, 0 is read as 1",
    )
}

fn per_page_schema_with(description: &str) -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::Integer)
        .minimum(Some(0))
        .maximum(Some(u32::MAX))
        .description(Some(description))
        .build()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    pub page: u64,
    pub per_page: u64,
}

impl PageParams {
    pub fn resolve(self) -> Page {
        self.resolve_with_default(DEFAULT_PER_PAGE)
    }

    pub fn resolve_with_default(self, default_per_page: u64) -> Page {
        Page {
            page: self.page.unwrap_or(1).max(1),
            per_page: self.per_page.map_or(default_per_page, u64::from).clamp(1, MAX_PER_PAGE),
        }
    }
}

impl Page {
    /// How many rows come before this page, or `None` when that is past
    /// `i64::MAX`: such a page is past the end of any list, and its OFFSET could
    /// not be bound (SQLite's binder panics converting it). Lists ask the
    /// database for a page only through this.
    pub fn offset(self) -> Option<u64> {
        (self.page - 1).checked_mul(self.per_page).filter(|skipped| i64::try_from(*skipped).is_ok())
    }

    /// [`Page::offset`] when the page starts before `total`: `None` for a page
    /// past the end, which is answered empty without a query.
    pub fn offset_within(self, total: u64) -> Option<u64> {
        self.offset().filter(|skipped| *skipped < total)
    }
}

#[derive(Clone, Debug, Serialize, ToSchema, PartialEq, Eq)]
pub struct PageMeta {
    /// This page's number, from 1.
    pub page: u64,
    /// Items per page, as resolved (1 to 100).
    pub per_page: u64,
    /// Items in the whole list.
    pub total: u64,
    /// Pages in the whole list (0 when it is empty).
    pub total_pages: u64,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Paginated<T> {
    /// This page's items.
    pub data: Vec<T>,
    /// Where the page lies in the list.
    pub meta: PageMeta,
}

impl<T> Paginated<T> {
    pub fn new(data: Vec<T>, page: Page, total: u64) -> Self {
        Self {
            data,
            meta: PageMeta {
                page: page.page,
                per_page: page.per_page,
                total,
                total_pages: total.div_ceil(page.per_page),
            },
        }
    }

    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Paginated<U> {
        Paginated { data: self.data.into_iter().map(f).collect(), meta: self.meta }
    }
}

/// From this many rows skipped on, a page is found by its ids first: walking
/// index entries to the page is cheap, reading every row before it is not
/// (PostgreSQL fetches each skipped row of an index scan from the heap).
const DEEP_OFFSET: u64 = 1_000;

/// Runs `select` for one page: a count and the page (a deep one as its ids,
/// then those rows), whatever the page size. `select` must be in an order its
/// index gives, ending in the primary key.
pub async fn fetch_page<E, C>(db: &C, select: Select<E>, page: Page) -> ApiResult<Paginated<E::Model>>
where
    E: EntityTrait,
    E::Model: FromQueryResult + Sync + Send,
    C: ConnectionTrait,
{
    let total = select.clone().paginate(db, page.per_page).num_items().await?;
    // A page past the end (a number near u64::MAX included) costs no second query.
    // Paging is written into the statement as numbers (see `literal_paging`):
    // PostgreSQL then keeps one plan per page size instead of planning each run.
    let data = match (page.offset_within(total), single_key::<E>()) {
        (None, _) => Vec::new(),
        (Some(offset), Some(key)) if offset >= DEEP_OFFSET => {
            let ids_query = select.clone().select_only().column(key).limit(page.per_page).offset(offset);
            let rows = db.query_all_raw(with_literal_paging(ids_query.build(db.get_database_backend()))).await?;
            let ids = rows.iter().map(|row| row.try_get_by_index::<Uuid>(0)).collect::<Result<Vec<_>, _>>()?;
            select.filter(key.is_in(ids)).all(db).await?
        }
        (Some(offset), _) => all_with_literal_paging(db, select.limit(page.per_page).offset(offset)).await?,
    };
    Ok(Paginated::new(data, page, total))
}

/// The entity's primary key when it is one column (every family's rows: a UUID).
fn single_key<E: EntityTrait>() -> Option<E::Column> {
    let mut keys = E::PrimaryKey::iter();
    let key = keys.next()?;
    keys.next().is_none().then(|| key.into_column())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_defaults_and_clamps() {
        assert_eq!(PageParams::default().resolve(), Page { page: 1, per_page: 10 });
        assert_eq!(PageParams { page: Some(0), per_page: Some(1000) }.resolve(), Page { page: 1, per_page: 100 });
        assert_eq!(PageParams { page: Some(3), per_page: Some(0) }.resolve(), Page { page: 3, per_page: 1 });
        assert_eq!(PageParams::default().resolve_with_default(25).per_page, 25);
    }

    #[test]
    fn offsets_past_i64_are_past_every_end() {
        assert_eq!(Page { page: 3, per_page: 10 }.offset(), Some(20));
        let huge = |page: u64, per_page: u64| Page { page, per_page };
        assert_eq!(huge(i64::MAX as u64, 100).offset(), None);
        assert_eq!(huge(u64::MAX, 1).offset(), None);
        assert_eq!(huge(i64::MAX as u64 + 1, 1).offset(), Some(i64::MAX as u64));
        assert_eq!(huge(i64::MAX as u64 / 100 + 2, 100).offset(), None);
        assert_eq!(huge(2, 10).offset_within(10), None);
        assert_eq!(huge(2, 10).offset_within(11), Some(10));
    }

    #[test]
    fn total_pages_rounds_up() {
        let p = Paginated::new(vec![1], Page { page: 1, per_page: 10 }, 21);
        assert_eq!(p.meta.total_pages, 3);
        assert_eq!(Paginated::<u8>::new(vec![], Page { page: 1, per_page: 10 }, 0).meta.total_pages, 0);
    }
}
