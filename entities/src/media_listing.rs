use sea_orm::entity::prelude::*;

/// A file's row in a site's library (`media_sites`) as the library lists read
/// it: with the copies of the file's deletion, times and category that the
/// database keeps (migration `family_lists`: triggers fill them on insert and
/// copy every change of the file). Read only: written through `media_site`
/// and `media_file`.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "media_sites")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub media_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub site_id: Uuid,
    pub is_deleted: bool,
    pub created_at: Option<DateTimeUtc>,
    pub deleted_at: Option<DateTimeUtc>,
    /// image, video, audio, document or other (`media::sniff::category_prefixes`).
    pub mime_category: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
