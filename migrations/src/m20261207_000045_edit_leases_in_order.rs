//! A site's live leases in the order they are listed (`leases::live_on_site`:
//! soonest to end first, then by item): with `item_id` in the index, the list
//! is one range read in its order, with no sort of the ties. The index of
//! migration 044 is replaced by one of a new name: on SQLite, a drop and a
//! create of one name in one migration is refused ("already exists").

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

fn index(name: &str, columns: &[&'static str]) -> IndexCreateStatement {
    let mut index = Index::create();
    index.name(name).table("edit_leases");
    for column in columns {
        index.col(*column);
    }
    index.to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.create_index(index("ix_edit_leases_live", &["site_id", "expires_at", "item_id"])).await?;
        manager.drop_index(Index::drop().name("ix_edit_leases_site").table("edit_leases").to_owned()).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.create_index(index("ix_edit_leases_site", &["site_id", "expires_at"])).await?;
        manager.drop_index(Index::drop().name("ix_edit_leases_live").table("edit_leases").to_owned()).await
    }
}
