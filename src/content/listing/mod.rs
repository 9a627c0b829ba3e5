//! Lists of a site's items that cost the same at 100,000 items as at 100.
//!
//! A page is found on the site's own rows (`content_sites`, read through
//! `content_listing`), whose copies of status, deletion, subtype, times and
//! title the database keeps in step with the items (migration
//! `content_listing`). Every filter and sort below has an index led by the site
//! and the filters and followed by the sort key and the id, so a page is an
//! index range scan that reads its `per_page` ids after walking (not reading
//! rows for) the ones before it; the items of the page are then loaded by id.
//! Totals are sums over `content_counts`, a few rows per site and kind.

use plinth_entities::{content, content_count, content_listing};
use sea_orm::sea_query::{Expr, Query};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, ExprTrait, FromQueryResult, Order, PaginatorTrait,
    QueryFilter, QueryOrder, QuerySelect, QueryTrait, Select,
};
use uuid::Uuid;

use super::{ContentKind, ContentStatus};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::pagination::{Page, Paginated};

mod search;
mod seek;

pub use search::Search;
pub use seek::{position, Position};

/// Which of a site's rows a list takes.
#[derive(Clone, Debug)]
pub struct Filter {
    pub site_id: Uuid,
    /// `None`: every kind (the trash).
    pub kind: Option<ContentKind>,
    pub deleted: bool,
    pub status: Option<ContentStatus>,
    /// A kind's classification (a CV entry's `entry_type`).
    pub subtype: Option<String>,
    pub featured_only: bool,
    /// Only items with a localization in this locale (published lists).
    pub locale_id: Option<Uuid>,
    /// Only items whose title or slug has these words (or words starting so).
    pub search: Option<Search>,
}

impl Filter {
    /// The live items of `kind` on `site_id`.
    pub fn live(kind: ContentKind, site_id: Uuid) -> Self {
        Filter { kind: Some(kind), ..Filter::any_kind(site_id, false) }
    }

    pub fn published(kind: ContentKind, site_id: Uuid) -> Self {
        Filter { status: Some(ContentStatus::Published), ..Filter::live(kind, site_id) }
    }

    /// The site's items of `kind` in the trash; `None`: every kind (for totals
    /// only: lists go kind by kind, each on its index).
    pub fn trashed(site_id: Uuid, kind: Option<ContentKind>) -> Self {
        Filter { kind, ..Filter::any_kind(site_id, true) }
    }

    /// Every kind of the site, live or deleted.
    fn any_kind(site_id: Uuid, deleted: bool) -> Self {
        Filter {
            site_id,
            kind: None,
            deleted,
            status: None,
            subtype: None,
            featured_only: false,
            locale_id: None,
            search: None,
        }
    }
}

/// A list's order: a key, and descending (`-created_at`) or ascending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sort {
    pub key: SortKey,
    pub descending: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    Created,
    Updated,
    Published,
    Title,
    Deleted,
}

impl Sort {
    pub const NEWEST: Sort = Sort { key: SortKey::Created, descending: true };
    pub const LATEST_PUBLISHED: Sort = Sort { key: SortKey::Published, descending: true };
    pub const LATEST_DELETED: Sort = Sort { key: SortKey::Deleted, descending: true };
    /// What `sort` accepts, for the OpenAPI pattern and the refusal.
    pub const ACCEPTED: &'static str =
        "created_at, updated_at, published_at or title, each with a leading - for descending";

    /// `created_at`, `-published_at`, …; `None` when unknown.
    pub fn parse(raw: &str) -> Option<Sort> {
        let (descending, name) = match raw.trim().strip_prefix('-') {
            Some(name) => (true, name),
            None => (false, raw.trim()),
        };
        let key = match name {
            "created_at" => SortKey::Created,
            "updated_at" => SortKey::Updated,
            "published_at" => SortKey::Published,
            "title" => SortKey::Title,
            _ => return None,
        };
        Some(Sort { key, descending })
    }

    /// `sort` from a query string: default `fallback`, 422 for an unknown value.
    pub fn from_query(raw: Option<&str>, fallback: Sort) -> ApiResult<Sort> {
        match raw {
            None => Ok(fallback),
            Some(raw) => Sort::parse(raw).ok_or_else(|| {
                ApiError::validation(vec![FieldError::new(
                    "sort",
                    ErrorCode::ValidationInvalidFormat,
                    format!("must be {}", Sort::ACCEPTED),
                )])
            }),
        }
    }

    /// The item's own column of the sort key.
    fn item_column(self) -> content::Column {
        match self.key {
            SortKey::Created => content::Column::CreatedAt,
            SortKey::Updated => content::Column::UpdatedAt,
            SortKey::Published => content::Column::PublishedAt,
            SortKey::Title => content::Column::Title,
            SortKey::Deleted => content::Column::DeletedAt,
        }
    }

    fn column(self) -> content_listing::Column {
        match self.key {
            SortKey::Created => content_listing::Column::CreatedAt,
            SortKey::Updated => content_listing::Column::UpdatedAt,
            SortKey::Published => content_listing::Column::PublishedAt,
            SortKey::Title => content_listing::Column::Title,
            SortKey::Deleted => content_listing::Column::DeletedAt,
        }
    }
}

/// A condition written as a literal, as the partial indexes of migration
/// `content_listing` write their predicates: a bound parameter would not let
/// SQLite (nor a generic PostgreSQL plan) prove that a partial index holds the
/// rows. Only the service's own constants are written this way.
fn literal(condition: &'static str) -> sea_orm::sea_query::SimpleExpr {
    Expr::cust(condition)
}

fn status_is(status: ContentStatus) -> &'static str {
    match status {
        ContentStatus::Draft => r#""content_sites"."status" = 'Draft'"#,
        ContentStatus::InReview => r#""content_sites"."status" = 'InReview'"#,
        ContentStatus::Published => r#""content_sites"."status" = 'Published'"#,
        ContentStatus::Scheduled => r#""content_sites"."status" = 'Scheduled'"#,
        ContentStatus::Archived => r#""content_sites"."status" = 'Archived'"#,
    }
}

/// The site's rows that `filter` takes, unordered.
pub fn rows(filter: &Filter) -> Select<content_listing::Entity> {
    let deleted = match filter.deleted {
        true => r#""content_sites"."is_deleted" = TRUE"#,
        false => r#""content_sites"."is_deleted" = FALSE"#,
    };
    let mut select = content_listing::Entity::find()
        .filter(content_listing::Column::SiteId.eq(filter.site_id))
        .filter(literal(deleted));
    if let Some(kind) = filter.kind {
        select = select.filter(content_listing::Column::Kind.eq(kind.as_str()));
    }
    if let Some(status) = filter.status {
        select = select.filter(literal(status_is(status)));
    }
    if let Some(subtype) = &filter.subtype {
        select = select.filter(content_listing::Column::Subtype.eq(subtype.as_str()));
    }
    if filter.featured_only {
        select = select.filter(literal(r#""content_sites"."is_featured" = TRUE"#));
    }
    if let Some(search) = &filter.search {
        match search.among_matches(filter.site_id, filter.kind, filter.deleted) {
            Some(matching) => select = select.filter(matching),
            // The matches stand in for the table, under its name: every
            // condition and order above and below applies to them as written.
            None => {
                QueryTrait::query(&mut select).from_clear().from_subquery(
                    search.matching_rows(filter.site_id, filter.kind, filter.deleted),
                    sea_orm::sea_query::Alias::new("content_sites"),
                );
            }
        }
    }
    if let Some(locale_id) = filter.locale_id {
        // A probe of `ux_content_localizations (content_id, locale_id)` per row walked.
        select = select.filter(Expr::exists(
            Query::select()
                .expr(Expr::val(1))
                .from(plinth_entities::content_localization::Entity)
                .and_where(
                    Expr::col((
                        plinth_entities::content_localization::Entity,
                        plinth_entities::content_localization::Column::ContentId,
                    ))
                    .equals((content_listing::Entity, content_listing::Column::ContentId)),
                )
                .and_where(plinth_entities::content_localization::Column::LocaleId.eq(locale_id))
                .to_owned(),
        ));
    }
    select
}

#[derive(FromQueryResult)]
struct IdRow {
    content_id: Uuid,
}

/// A page of `filter`'s rows in `sort` order, whole, starting `at` an
/// offset or a boundary and offset (see [`seek`]).
pub fn page_rows(filter: &Filter, sort: Sort, limit: u64, at: impl Into<Position>) -> Select<content_listing::Entity> {
    let at = at.into();
    let order = if sort.descending { Order::Desc } else { Order::Asc };
    let mut rows = rows(filter);
    if let Some(from) = &at.from {
        rows = rows.filter(from.onwards(sort));
    }
    rows.order_by(sort.column(), order.clone())
        .order_by(content_listing::Column::ContentId, order)
        .limit(limit)
        .offset(at.offset)
}

/// The query of a page's ids in `sort` order: index entries only (public for
/// the plan tests).
pub fn page_query(filter: &Filter, sort: Sort, limit: u64, at: impl Into<Position>) -> Select<content_listing::Entity> {
    page_rows(filter, sort, limit, at).select_only().column(content_listing::Column::ContentId)
}

/// Every live published row of the site in `kinds`, by kind and slug: for a
/// whole small sitemap (`public_files` bounds its size first).
pub fn published_rows(site_id: Uuid, kinds: &[ContentKind]) -> Select<content_listing::Entity> {
    let filter = Filter { status: Some(ContentStatus::Published), ..Filter::any_kind(site_id, false) };
    rows(&filter)
        .filter(content_listing::Column::Kind.is_in(kinds.iter().map(|k| k.as_str())))
        .order_by_asc(content_listing::Column::Kind)
        .order_by_asc(content_listing::Column::Slug)
}

/// The ids of `page` in `sort` order: an index range scan, only ids read.
pub async fn page_ids<C: ConnectionTrait>(
    db: &C,
    filter: &Filter,
    sort: Sort,
    limit: u64,
    offset: u64,
) -> ApiResult<Vec<Uuid>> {
    let ids = page_query(filter, sort, limit, offset).into_model::<IdRow>().all(db).await?;
    Ok(ids.into_iter().map(|row| row.content_id).collect())
}

/// What makes an item related to another (`similar`).
pub struct Related<'a> {
    pub tag_ids: &'a [Uuid],
    pub category_ids: &'a [Uuid],
    pub author: Option<&'a str>,
    /// The item itself.
    pub except: Uuid,
}

/// Among the newest `window` rows of `filter` (an index range scan), the
/// newest `limit` related ones. Each row walked is checked by primary-key
/// probes (`content_tags`, `content_categories`, `contents`), so the cost is
/// bounded by `window` whatever the site, however common the tag or author.
pub async fn related_ids<C: ConnectionTrait>(
    db: &C,
    filter: &Filter,
    related: &Related<'_>,
    window: u64,
    limit: u64,
) -> ApiResult<Vec<Uuid>> {
    use plinth_entities::{content_category, content_tag};
    use sea_orm::sea_query::{Alias, Condition};
    let recent = Alias::new("recent");
    let id_of_recent = || Expr::col((recent.clone(), content_listing::Column::ContentId));
    let newest = page_rows(filter, Sort::LATEST_PUBLISHED, window, 0)
        .select_only()
        .column(content_listing::Column::ContentId)
        .column(content_listing::Column::PublishedAt)
        .into_query();
    let mut any = Condition::any()
        .add(Expr::exists(
            Query::select()
                .expr(Expr::val(1))
                .from(content_tag::Entity)
                .and_where(
                    Expr::col((content_tag::Entity, content_tag::Column::ContentId))
                        .equals((recent.clone(), content_listing::Column::ContentId)),
                )
                .and_where(content_tag::Column::TagId.is_in(related.tag_ids.to_vec()))
                .to_owned(),
        ))
        .add(Expr::exists(
            Query::select()
                .expr(Expr::val(1))
                .from(content_category::Entity)
                .and_where(
                    Expr::col((content_category::Entity, content_category::Column::ContentId))
                        .equals((recent.clone(), content_listing::Column::ContentId)),
                )
                .and_where(content_category::Column::CategoryId.is_in(related.category_ids.to_vec()))
                .to_owned(),
        ));
    if let Some(author) = related.author {
        any = any.add(Expr::exists(
            Query::select()
                .expr(Expr::val(1))
                .from(content::Entity)
                .and_where(
                    Expr::col((content::Entity, content::Column::Id))
                        .equals((recent.clone(), content_listing::Column::ContentId)),
                )
                .and_where(content::Column::Author.eq(author))
                .to_owned(),
        ));
    }
    let query = Query::select()
        .expr(id_of_recent())
        .from_subquery(newest, recent.clone())
        .and_where(id_of_recent().ne(related.except))
        .cond_where(any)
        .order_by((recent.clone(), content_listing::Column::PublishedAt), Order::Desc)
        .limit(limit)
        .to_owned();
    let rows = db.query_all(&query).await?;
    Ok(rows.iter().filter_map(|row| row.try_get_by_index::<Uuid>(0).ok()).collect())
}

/// How many rows `filter` takes: from `content_counts` unless the filter needs
/// the rows themselves (featured, a locale), then a count on the list's index.
pub async fn total<C: ConnectionTrait>(db: &C, filter: &Filter) -> ApiResult<u64> {
    if let Some(count) = search_count(filter) {
        let row = db.query_one_raw(literal_paging(db, &count)).await?;
        let n = row.map(|row| row.try_get_by_index::<i64>(0)).transpose()?.unwrap_or(0);
        return Ok(u64::try_from(n).unwrap_or(0));
    }
    let n: Option<i64> = match counted(filter) {
        Some(counts) => counts.into_tuple::<i64>().one(db).await?,
        None => return Ok(rows(filter).count(db).await?),
    };
    Ok(u64::try_from(n.unwrap_or(0)).unwrap_or(0))
}

/// A search's total from the text index alone, when nothing but the site,
/// kind and deletion narrows it (SQLite: see [`Search::count_in_index`]).
fn search_count(filter: &Filter) -> Option<sea_orm::sea_query::SelectStatement> {
    let search = filter.search.as_ref()?;
    let narrowed = filter.status.is_some() || filter.subtype.is_some() || filter.featured_only;
    if narrowed || filter.locale_id.is_some() {
        return None;
    }
    search.count_in_index(filter.site_id, filter.kind?, filter.deleted)
}

/// The sum of `content_counts` that is `filter`'s total, or `None` when the
/// filter needs the rows themselves (featured, a locale, a search).
pub fn counted(filter: &Filter) -> Option<Select<content_count::Entity>> {
    if filter.featured_only || filter.locale_id.is_some() || filter.search.is_some() {
        return None;
    }
    // SUM of a bigint is a numeric on PostgreSQL: cast back for one decoder.
    let mut counts = content_count::Entity::find()
        .select_only()
        .expr(Expr::cust("CAST(COALESCE(SUM(n), 0) AS BIGINT)"))
        .filter(content_count::Column::SiteId.eq(filter.site_id))
        .filter(content_count::Column::IsDeleted.eq(filter.deleted));
    if let Some(kind) = filter.kind {
        counts = counts.filter(content_count::Column::Kind.eq(kind.as_str()));
    }
    if let Some(status) = filter.status {
        counts = counts.filter(content_count::Column::Status.eq(status));
    }
    if let Some(subtype) = &filter.subtype {
        counts = counts.filter(content_count::Column::Subtype.eq(subtype.as_str()));
    }
    Some(counts)
}

/// `query` for `db`, its LIMIT and OFFSET as numbers (see [`crate::literal_paging`]).
fn literal_paging<C: ConnectionTrait>(db: &C, query: &impl sea_orm::StatementBuilder) -> sea_orm::Statement {
    crate::literal_paging::with_literal_paging(query.build(&db.get_database_backend()))
}

/// A row of [`page_with_sites`]: an item, its sites and the list's total.
#[derive(FromQueryResult)]
struct ListedRow {
    #[sea_orm(nested)]
    item: content::Model,
    /// The item's site ids, comma-separated.
    listed_sites: Option<String>,
    /// A page's route.
    listed_route: Option<String>,
    /// The list's total from the counters (when they hold it).
    list_total: Option<i64>,
}

/// The site ids of the row's item, comma-separated, as a column: one probe of
/// the site rows' primary key per item of the page.
fn sites_of_item(backend: DbBackend) -> sea_orm::sea_query::SimpleExpr {
    Expr::cust(match backend {
        DbBackend::Postgres => {
            r#"(SELECT string_agg("s"."site_id"::text, ',') FROM "content_sites" AS "s" WHERE "s"."content_id" = "contents"."id")"#
        }
        _ => {
            r#"(SELECT group_concat(lower(hex("s"."site_id")), ',') FROM "content_sites" AS "s" WHERE "s"."content_id" = "contents"."id")"#
        }
    })
}

/// A page's route as a column: its sites' rows share it (null for other
/// kinds), so the first by the primary key is read. (A filter on the route
/// let PostgreSQL walk the route index instead: every route of the site per
/// item when few rows have one.)
fn route_of_item() -> sea_orm::sea_query::SimpleExpr {
    Expr::cust(
        r#"(SELECT "r"."route" FROM "content_sites" AS "r" WHERE "r"."content_id" = "contents"."id" ORDER BY "r"."site_id" LIMIT 1)"#,
    )
}

/// One page of items with their sites, and the list's total: one query for
/// a page of a counted list (the page's ids from its index, each item by key,
/// its sites and the counters' sum as columns), a second only for the total
/// of a page past the end or of a list the counters do not hold.
pub async fn page_with_sites(
    state: &crate::state::AppState,
    filter: &Filter,
    sort: Sort,
    page: Page,
) -> ApiResult<Paginated<(content::Model, Vec<Uuid>, Option<String>)>> {
    let db = &state.db;
    let (searched, known_total) = searched(db, filter, page).await?;
    let filter = &searched;
    let counts = counted(filter);
    let mut rows: Vec<ListedRow> = Vec::new();
    if let Some(offset) = page.offset() {
        let at = position(state, filter, sort, offset).await?;
        let mut select = without_body(page_items_query(filter, sort, page.per_page, at))
            .column_as(sites_of_item(db.get_database_backend()), "listed_sites")
            .column_as(route_of_item(), "listed_route");
        if let Some(counts) = &counts {
            let sum = sea_orm::sea_query::SubQueryStatement::SelectStatement(counts.clone().into_query());
            select = select.column_as(sea_orm::sea_query::SimpleExpr::SubQuery(None, Box::new(sum)), "list_total");
        }
        rows = ListedRow::find_by_statement(literal_paging(db, &select.into_query())).all(db).await?;
    }
    let total = match (rows.first().and_then(|row| row.list_total), known_total) {
        (Some(n), _) => u64::try_from(n).unwrap_or(0),
        (None, Some(n)) => n,
        (None, None) => total(db, filter).await?,
    };
    let items = rows
        .into_iter()
        .map(|row| {
            let mut sites: Vec<Uuid> = row
                .listed_sites
                .as_deref()
                .unwrap_or("")
                .split(',')
                .filter_map(|id| Uuid::parse_str(id).ok())
                .collect();
            sites.sort();
            (row.item, sites, row.listed_route)
        })
        .collect();
    Ok(Paginated::new(items, page, total))
}

/// Past this many matches a search may walk the list's index instead.
const BROAD_SEARCH: u64 = 200;

/// How `filter`'s search is best found, with its total when that was counted
/// to decide. Reading every match costs one probe per match and a sort, so a
/// search with many matches (a common word) costs what its matches cost. On
/// SQLite the page can instead walk the list's own index and keep the rows
/// among the matches (whose rowids the text index gives without reading
/// rows): about `(offset + per_page) × rows / matches` entries. The cheaper
/// of the two is taken, from the text index's count and the counters.
async fn searched<C: ConnectionTrait>(db: &C, filter: &Filter, page: Page) -> ApiResult<(Filter, Option<u64>)> {
    let (Some(search), Some(count)) = (&filter.search, search_count(filter)) else {
        return Ok((filter.clone(), None));
    };
    let row = db.query_one_raw(literal_paging(db, &count)).await?;
    let matches = u64::try_from(row.map(|row| row.try_get_by_index::<i64>(0)).transpose()?.unwrap_or(0)).unwrap_or(0);
    if matches <= BROAD_SEARCH {
        return Ok((filter.clone(), Some(matches)));
    }
    let rows = total(db, &Filter { search: None, ..filter.clone() }).await?;
    let reach = page.offset().unwrap_or(0).saturating_add(page.per_page);
    let walked = reach.saturating_mul(rows) / matches;
    let found = match walked < matches {
        true => Filter { search: Some(search.walking_the_list()), ..filter.clone() },
        false => filter.clone(),
    };
    Ok((found, Some(matches)))
}

/// The item's columns but `body`, read as `''`: a list item never shows it,
/// and it is most of an item's bytes (a long post's body was copied out of
/// the database and dropped twenty times per page).
fn without_body(select: Select<content::Entity>) -> Select<content::Entity> {
    use sea_orm::Iterable;
    let columns = content::Column::iter().filter(|column| !matches!(column, content::Column::Body));
    select.select_only().columns(columns).column_as(Expr::val(""), "body")
}

/// The items with these ids, in this order (deleted ones too: the filter chose them).
pub async fn load_in_order<C: ConnectionTrait>(db: &C, ids: &[Uuid]) -> ApiResult<Vec<content::Model>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut found: std::collections::HashMap<Uuid, content::Model> = content::Entity::find()
        .filter(content::Column::Id.is_in(ids.to_vec()))
        .all(db)
        .await?
        .into_iter()
        .map(|m| (m.id, m))
        .collect();
    Ok(ids.iter().filter_map(|id| found.remove(id)).collect())
}

/// The items of a page in `sort` order, in one query: their ids from the
/// list's index (a subquery), each item then read by its key and the page's
/// rows put in order again on the items' own columns (the site rows' copies
/// of them are equal, so the order is the index's).
pub async fn load_page<C: ConnectionTrait>(
    db: &C,
    filter: &Filter,
    sort: Sort,
    limit: u64,
    offset: u64,
) -> ApiResult<Vec<content::Model>> {
    Ok(page_items_query(filter, sort, limit, offset).all(db).await?)
}

/// The query of [`load_page`] (public for the plan tests).
pub fn page_items_query(filter: &Filter, sort: Sort, limit: u64, at: impl Into<Position>) -> Select<content::Entity> {
    let order = if sort.descending { Order::Desc } else { Order::Asc };
    content::Entity::find()
        .filter(content::Column::Id.in_subquery(page_query(filter, sort, limit, at).into_query()))
        .order_by(sort.item_column(), order.clone())
        .order_by(content::Column::Id, order)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_are_read_with_their_direction_and_unknown_ones_refused() {
        assert_eq!(Sort::parse("-created_at"), Some(Sort::NEWEST));
        assert_eq!(Sort::parse("title"), Some(Sort { key: SortKey::Title, descending: false }));
        assert_eq!(Sort::parse("-published_at"), Some(Sort::LATEST_PUBLISHED));
        assert_eq!(Sort::parse("deleted_at"), None);
        assert_eq!(Sort::parse("-"), None);
        assert!(Sort::from_query(Some("size"), Sort::NEWEST).is_err());
        assert_eq!(Sort::from_query(None, Sort::NEWEST).ok(), Some(Sort::NEWEST));
    }
}
