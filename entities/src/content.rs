use sea_orm::entity::prelude::*;

/// An item of the content engine: a blog post, a page, … (`kind`). Fields every
/// kind shares are columns; a kind's own fields live in `fields`.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "contents")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub kind: crate::kinds::ContentKind,
    /// A kind's own filterable classification (a CV entry's `entry_type`).
    pub subtype: Option<String>,
    pub slug: String,
    pub title: String,
    pub excerpt: String,
    pub body: String,
    /// Draft, InReview, Published, Scheduled or Archived.
    pub status: crate::values::ContentStatus,
    pub author: Option<String>,
    /// The principal that created the item (`api_key:<id>` / `user:<idp id>`).
    pub created_by: Option<crate::actor::Actor>,
    pub publish_start: Option<DateTimeUtc>,
    pub publish_end: Option<DateTimeUtc>,
    pub published_at: Option<DateTimeUtc>,
    pub cover_image_id: Option<Uuid>,
    pub header_image_id: Option<Uuid>,
    pub is_featured: bool,
    pub is_sample: bool,
    pub fields: Json,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub deleted_at: Option<DateTimeUtc>,
    pub is_deleted: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(has_many = "super::content_site::Entity")]
    Sites,
}

impl Related<super::content_site::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Sites.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
