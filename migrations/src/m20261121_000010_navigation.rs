//! Navigation menus and their items (a tree per menu). Both are soft-deleted.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("nav_menus")
                    .col(pk_uuid("id"))
                    .col(uuid("site_id"))
                    .col(string("name"))
                    .col(string("slug"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .col(timestamp_with_time_zone_null("deleted_at"))
                    .col(boolean("is_deleted"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("nav_menus", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ux_nav_menus_site_slug")
                    .table("nav_menus")
                    .col("site_id")
                    .col("slug")
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("nav_items")
                    .col(pk_uuid("id"))
                    .col(uuid("menu_id"))
                    .col(uuid("site_id"))
                    .col(uuid_null("parent_id"))
                    .col(string("label"))
                    // {"<locale code>": "<label>"}
                    .col(json_binary("labels"))
                    .col(string_null("url"))
                    .col(uuid_null("content_id"))
                    .col(integer("display_order"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .col(timestamp_with_time_zone_null("deleted_at"))
                    .col(boolean("is_deleted"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("nav_items", "menu_id")
                            .to("nav_menus", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_nav_items_menu")
                    .table("nav_items")
                    .col("menu_id")
                    .col("display_order")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in ["nav_items", "nav_menus"] {
            manager.drop_table(Table::drop().table(table).if_exists().to_owned()).await?;
        }
        Ok(())
    }
}
