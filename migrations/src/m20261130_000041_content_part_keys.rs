//! `page_section_keys` becomes `content_part_keys`: the id of a part an item
//! keeps in its `fields` (a page's sections and their texts, a legal
//! document's consent groups and their items) → the item and the part. One
//! table for every kind with addressable parts, so each kind does not grow a
//! copy of it.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const OLD: &str = "page_section_keys";
const NEW: &str = "content_part_keys";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_index(Index::drop().name("ix_page_section_keys_page").table(Alias::new(OLD)).to_owned()).await?;
        manager.rename_table(Table::rename().table(Alias::new(OLD), Alias::new(NEW)).to_owned()).await?;
        // One change per statement: SQLite's ALTER TABLE takes one.
        for (from, to) in [("page_id", "content_id"), ("section_id", "part_id")] {
            manager
                .alter_table(
                    Table::alter().table(Alias::new(NEW)).rename_column(Alias::new(from), Alias::new(to)).to_owned(),
                )
                .await?;
        }
        manager
            .create_index(
                Index::create()
                    .name("ix_content_part_keys_content")
                    .table(Alias::new(NEW))
                    .col(Alias::new("content_id"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(Index::drop().name("ix_content_part_keys_content").table(Alias::new(NEW)).to_owned())
            .await?;
        for (from, to) in [("content_id", "page_id"), ("part_id", "section_id")] {
            manager
                .alter_table(
                    Table::alter().table(Alias::new(NEW)).rename_column(Alias::new(from), Alias::new(to)).to_owned(),
                )
                .await?;
        }
        manager.rename_table(Table::rename().table(Alias::new(NEW), Alias::new(OLD)).to_owned()).await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_page_section_keys_page")
                    .table(Alias::new(OLD))
                    .col(Alias::new("page_id"))
                    .to_owned(),
            )
            .await
    }
}
