use sea_orm::entity::prelude::*;

/// A file of the media library: uploaded (bytes in the object store under
/// `storage_key`, content-addressed by `checksum`) or external (`external_url`).
#[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "media_files")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub filename: String,
    pub original_filename: String,
    pub mime_type: String,
    pub file_size: i64,
    pub storage_key: Option<String>,
    pub external_url: Option<String>,
    /// SHA-256 of the uploaded bytes, lowercase hex.
    pub checksum: Option<String>,
    pub width: Option<i32>,
    pub height: Option<i32>,
    pub duration: Option<i32>,
    /// A ~25-byte placeholder of the image (base64 ThumbHash).
    pub thumbhash: Option<String>,
    /// `#rrggbb`
    pub dominant_color: Option<String>,
    pub focal_x: Option<f64>,
    pub focal_y: Option<f64>,
    /// JSON array of tag strings.
    pub tags: Json,
    pub uploaded_by: Option<crate::actor::Actor>,
    pub is_global: bool,
    pub folder_id: Option<Uuid>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub deleted_at: Option<DateTimeUtc>,
    pub is_deleted: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(has_many = "super::media_site::Entity")]
    Sites,
}

impl Related<super::media_site::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Sites.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
