use sea_orm::entity::prelude::*;

/// A resized copy of an image: `thumbnail`, `small`, `medium` or `large`.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "media_variants")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub media_id: Uuid,
    pub variant_name: String,
    pub width: i32,
    pub height: i32,
    pub file_size: i64,
    pub mime_type: String,
    pub storage_key: String,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
