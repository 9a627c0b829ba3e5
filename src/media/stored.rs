//! Which stored bytes exist already: a site's usage against its quota, and
//! records sharing a checksum (deduplication and purge).

use plinth_entities::{media_file, media_site, media_variant};
use sea_orm::sea_query::Query;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, ExprTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect,
};
use uuid::Uuid;

use crate::error::ApiResult;

/// Bytes of uploaded originals the site keeps (live and in the trash).
pub async fn bytes_used(db: &impl ConnectionTrait, site_id: Uuid) -> ApiResult<u64> {
    let on_site = Query::select()
        .column(media_site::Column::MediaId)
        .from(media_site::Entity)
        .and_where(media_site::Column::SiteId.eq(site_id))
        .to_owned();
    let used: Option<Option<i64>> = media_file::Entity::find()
        .select_only()
        // PostgreSQL sums BIGINT as NUMERIC.
        .column_as(media_file::Column::FileSize.sum().cast_as("BIGINT"), "total")
        .filter(media_file::Column::Id.in_subquery(on_site))
        .filter(media_file::Column::StorageKey.is_not_null())
        .into_tuple()
        .one(db)
        .await?;
    Ok(used.flatten().map_or(0, |v| u64::try_from(v).unwrap_or(0)))
}

/// A live record of these bytes already on one of `site_ids`.
pub async fn existing_copy(
    db: &impl ConnectionTrait,
    checksum: &str,
    site_ids: &[Uuid],
) -> ApiResult<Option<media_file::Model>> {
    let on_sites = Query::select()
        .column(media_site::Column::MediaId)
        .from(media_site::Entity)
        .and_where(media_site::Column::SiteId.is_in(site_ids.to_vec()))
        .to_owned();
    Ok(media_file::Entity::find()
        .filter(media_file::Column::Checksum.eq(checksum))
        .filter(media_file::Column::IsDeleted.eq(false))
        .filter(media_file::Column::Id.in_subquery(on_sites))
        .order_by_asc(media_file::Column::CreatedAt)
        .one(db)
        .await?)
}

/// Any record of these bytes (another site's, or in the trash): its stored
/// files can be shared instead of processed again.
pub async fn any_copy(db: &impl ConnectionTrait, checksum: &str) -> ApiResult<Option<media_file::Model>> {
    Ok(media_file::Entity::find()
        .filter(media_file::Column::Checksum.eq(checksum))
        .order_by_asc(media_file::Column::CreatedAt)
        .one(db)
        .await?)
}

pub async fn variants_of(db: &impl ConnectionTrait, media_id: Uuid) -> ApiResult<Vec<media_variant::Model>> {
    Ok(media_variant::Entity::find().filter(media_variant::Column::MediaId.eq(media_id)).all(db).await?)
}

pub async fn count_with_checksum(db: &impl ConnectionTrait, checksum: &str) -> ApiResult<u64> {
    Ok(media_file::Entity::find().filter(media_file::Column::Checksum.eq(checksum)).count(db).await?)
}
