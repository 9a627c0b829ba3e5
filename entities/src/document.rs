use sea_orm::entity::prelude::*;

/// A document of a site: an outside `url`, or an uploaded file in the object
/// store (`storage_key`), encrypted at rest while `is_private`.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "documents")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: Uuid,
    pub folder_id: Option<Uuid>,
    pub url: Option<String>,
    pub document_type: String,
    pub display_order: i32,
    pub file_name: Option<String>,
    /// Of the plaintext.
    pub file_size: Option<i64>,
    pub mime_type: Option<String>,
    pub storage_key: Option<String>,
    /// SHA-256 of the plaintext (hex): the download ETag.
    pub checksum: Option<String>,
    pub is_private: bool,
    /// Names the data key of the current encryption (tokens carry it).
    pub key_id: Option<String>,
    pub kdf_salt: Option<String>,
    pub kdf_params: Option<String>,
    /// The data key sealed under the password's key (base64 nonce ‖ ciphertext).
    pub sealed_key: Option<String>,
    /// The data key sealed under `DOCUMENT_ENCRYPTION_KEY`, when configured.
    pub recovery_sealed_key: Option<String>,
    pub expires_at: Option<DateTimeUtc>,
    pub failed_attempts: i32,
    pub locked_at: Option<DateTimeUtc>,
    pub created_by: Option<crate::actor::Actor>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub deleted_at: Option<DateTimeUtc>,
    pub is_deleted: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
