//! A site's media library, listed at the same cost at 100,000 files as at 100.
//!
//! The library and its trash are walked on the site's rows of `media_sites`,
//! whose copies of deletion, times and category the database keeps (migration
//! `family_lists`): `ix_media_sites_live`, `ix_media_sites_category` and
//! `ix_media_sites_trash` hold exactly one list's rows each, in its order, so a
//! page reads its ids from the index and then loads those files by key. A
//! folder's files are listed from `media_files` on `ix_media_files_folder_live`
//! (a folder belongs to one site). A search is a filter on the rows walked:
//! it reads the files it passes over until the page is full.

use plinth_entities::{media_file, media_listing, media_metadata, media_site};
use sea_orm::sea_query::{Condition, Expr, Query, SimpleExpr};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, ExprTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect,
    QueryTrait, Select,
};
use uuid::Uuid;

use crate::error::ApiResult;
use crate::literal_paging::all_with_literal_paging;
use crate::pagination::{Page, Paginated};
use crate::values::contains_any_case;

/// Which of a site's files a list takes.
#[derive(Clone, Debug, Default)]
pub struct LibraryFilter {
    pub site_id: Uuid,
    pub deleted: bool,
    /// image, video, audio or document (checked by the caller).
    pub category: Option<String>,
    pub folder_id: Option<Uuid>,
    /// Matched case-insensitively anywhere in the file names, alt text,
    /// caption and title.
    pub search: Option<String>,
}

/// A condition written as a literal, as the partial indexes write their
/// predicates, so both planners prove the index holds the rows.
fn literal(condition: &'static str) -> SimpleExpr {
    Expr::cust(condition)
}

/// Files whose names or metadata contain `term`, as a condition on the file
/// named by `file_id` (probed by primary key for each row walked).
fn matches(term: &str, file_id: SimpleExpr) -> SimpleExpr {
    let like = |col: Expr| contains_any_case(col, term);
    let in_metadata = Query::select()
        .expr(Expr::val(1))
        .from(media_metadata::Entity)
        .and_where(Expr::col((media_metadata::Entity, media_metadata::Column::MediaId)).eq(file_id.clone()))
        .cond_where(
            Condition::any()
                .add(like(Expr::col((media_metadata::Entity, media_metadata::Column::AltText))))
                .add(like(Expr::col((media_metadata::Entity, media_metadata::Column::Caption))))
                .add(like(Expr::col((media_metadata::Entity, media_metadata::Column::Title)))),
        )
        .to_owned();
    let named = Query::select()
        .expr(Expr::val(1))
        .from(media_file::Entity)
        .and_where(Expr::col((media_file::Entity, media_file::Column::Id)).eq(file_id))
        .cond_where(
            Condition::any()
                .add(like(Expr::col((media_file::Entity, media_file::Column::Filename))))
                .add(like(Expr::col((media_file::Entity, media_file::Column::OriginalFilename)))),
        )
        .to_owned();
    Condition::any().add(Expr::exists(named)).add(Expr::exists(in_metadata)).into()
}

/// The site's rows of the library (or its trash), newest first.
pub fn site_rows(filter: &LibraryFilter) -> Select<media_listing::Entity> {
    let (deleted, order) = match filter.deleted {
        true => (r#""media_sites"."is_deleted" = TRUE"#, media_listing::Column::DeletedAt),
        false => (r#""media_sites"."is_deleted" = FALSE"#, media_listing::Column::CreatedAt),
    };
    let mut select =
        media_listing::Entity::find().filter(media_listing::Column::SiteId.eq(filter.site_id)).filter(literal(deleted));
    if let Some(category) = &filter.category {
        select = select.filter(media_listing::Column::MimeCategory.eq(category.as_str()));
    }
    if let Some(term) = &filter.search {
        select = select.filter(matches(term, Expr::col((media_listing::Entity, media_listing::Column::MediaId))));
    }
    select.order_by_desc(order).order_by_desc(media_listing::Column::MediaId)
}

/// A folder's live files on the site, newest first.
pub fn folder_rows(filter: &LibraryFilter, folder_id: Uuid) -> Select<media_file::Entity> {
    let on_site = Query::select()
        .expr(Expr::val(1))
        .from(media_site::Entity)
        .and_where(
            Expr::col((media_site::Entity, media_site::Column::MediaId))
                .equals((media_file::Entity, media_file::Column::Id)),
        )
        .and_where(Expr::col((media_site::Entity, media_site::Column::SiteId)).eq(filter.site_id))
        .to_owned();
    let mut select = media_file::Entity::find()
        .filter(media_file::Column::FolderId.eq(folder_id))
        .filter(literal(r#""media_files"."is_deleted" = FALSE"#))
        .filter(Expr::exists(on_site));
    if let Some(prefixes) = filter.category.as_deref().and_then(super::sniff::category_prefixes) {
        let mut any = Condition::any();
        for prefix in prefixes {
            any = any.add(media_file::Column::MimeType.starts_with(*prefix));
        }
        select = select.filter(any);
    }
    if let Some(term) = &filter.search {
        select = select.filter(matches(term, Expr::col((media_file::Entity, media_file::Column::Id))));
    }
    select.order_by_desc(media_file::Column::CreatedAt).order_by_desc(media_file::Column::Id)
}

/// The newest `limit` files of `filter` after `offset`, in one query: their
/// ids from the list's index (a subquery), each file read by key and put back
/// in order on its own columns (the site rows' copies of them are equal).
pub async fn files<C: ConnectionTrait>(
    db: &C,
    filter: &LibraryFilter,
    limit: u64,
    offset: u64,
) -> ApiResult<Vec<media_file::Model>> {
    if let Some(folder_id) = filter.folder_id {
        return Ok(all_with_literal_paging(db, folder_rows(filter, folder_id).limit(limit).offset(offset)).await?);
    }
    let ids = site_rows(filter).select_only().column(media_listing::Column::MediaId).limit(limit).offset(offset);
    let order = if filter.deleted { media_file::Column::DeletedAt } else { media_file::Column::CreatedAt };
    let page = media_file::Entity::find()
        .filter(media_file::Column::Id.in_subquery(ids.into_query()))
        .order_by_desc(order)
        .order_by_desc(media_file::Column::Id);
    Ok(all_with_literal_paging(db, page).await?)
}

/// How many files `filter` takes: an index-only count of the list's rows.
pub async fn total<C: ConnectionTrait>(db: &C, filter: &LibraryFilter) -> ApiResult<u64> {
    Ok(match filter.folder_id {
        Some(folder_id) => folder_rows(filter, folder_id).count(db).await?,
        None => site_rows(filter).count(db).await?,
    })
}

/// One page of `filter`'s files and the list's total.
pub async fn page<C: ConnectionTrait>(
    db: &C,
    filter: &LibraryFilter,
    page: Page,
) -> ApiResult<Paginated<media_file::Model>> {
    let total = total(db, filter).await?;
    let files = match page.offset_within(total) {
        Some(offset) => files(db, filter, page.per_page, offset).await?,
        None => Vec::new(),
    };
    Ok(Paginated::new(files, page, total))
}
