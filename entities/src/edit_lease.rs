use sea_orm::entity::prelude::*;

/// Who is editing an item, until when: one row per site the item is on, so
/// each site's live leases are one index range (`ix_edit_leases_site`).
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "edit_leases")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub item_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub site_id: Uuid,
    /// The item's entity type (`blog`, `page`, …).
    pub item_type: String,
    pub holder: crate::actor::Actor,
    pub taken_at: DateTimeUtc,
    pub expires_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
