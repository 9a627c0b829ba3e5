//! Content templates, as the origin service's admin keeps them: per site, a
//! named set of fields a new post starts from. Listed by name (unique per
//! site), by creation or by last change, each order an index of its own.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let table = Alias::new("content_templates");
        let text = |name: &str| ColumnDef::new(Alias::new(name)).text().not_null().default("").to_owned();
        let flag = |name: &str, on: bool| ColumnDef::new(Alias::new(name)).boolean().not_null().default(on).to_owned();
        manager
            .create_table(
                Table::create()
                    .table(table.clone())
                    .col(ColumnDef::new(Alias::new("id")).uuid().not_null().primary_key())
                    .col(ColumnDef::new(Alias::new("site_id")).uuid().not_null())
                    .col(ColumnDef::new(Alias::new("name")).text().not_null())
                    .col(ColumnDef::new(Alias::new("description")).text().null())
                    .col(text("icon"))
                    .col(text("slug_prefix"))
                    .col(flag("is_featured", false))
                    .col(flag("allow_comments", true))
                    .col(text("title"))
                    .col(text("subtitle"))
                    .col(text("excerpt"))
                    .col(text("body"))
                    .col(text("meta_title"))
                    .col(text("meta_description"))
                    .col(flag("is_active", true))
                    .col(ColumnDef::new(Alias::new("created_at")).timestamp_with_time_zone().not_null())
                    .col(ColumnDef::new(Alias::new("updated_at")).timestamp_with_time_zone().not_null())
                    .foreign_key(
                        ForeignKey::create()
                            .from(table.clone(), Alias::new("site_id"))
                            .to(Alias::new("sites"), Alias::new("id"))
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ux_content_templates_site_name")
                    .table(table.clone())
                    .col(Alias::new("site_id"))
                    .col(Alias::new("name"))
                    .unique()
                    .to_owned(),
            )
            .await?;
        for (name, column) in
            [("ix_content_templates_site_created", "created_at"), ("ix_content_templates_site_updated", "updated_at")]
        {
            manager
                .create_index(
                    Index::create()
                        .name(name)
                        .table(table.clone())
                        .col(Alias::new("site_id"))
                        .col(Alias::new(column))
                        .col(Alias::new("id"))
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table(Alias::new("content_templates")).if_exists().to_owned()).await
    }
}
