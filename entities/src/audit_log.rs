use sea_orm::entity::prelude::*;

/// One mutation: who did what to which entity, with field-level before/after values.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "audit_log")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: Option<Uuid>,
    /// `api_key:<id>`, `user:<idp id>` or `system`.
    pub actor: crate::actor::Actor,
    /// `create`, `update`, `delete`, …
    pub action: crate::kinds::AuditAction,
    pub entity_type: String,
    pub entity_id: String,
    /// `[{field, old, new}]`
    pub changes: Json,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
