//! Menus and items as the origin service's admin edits them. A menu gets a
//! `description`, a `max_depth` (1 to 10 levels of items, 3 by default as
//! there), `is_active` and its names per locale (`names`, by locale code, as
//! items keep their `labels`). An item gets an `icon` and `open_in_new_tab`.
//! Existing menus get a depth of 10, so no tree made before the limit existed
//! is refused its next edit.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

fn menu_columns() -> [ColumnDef; 4] {
    [
        ColumnDef::new(Alias::new("description")).text().null().to_owned(),
        ColumnDef::new(Alias::new("max_depth")).integer().not_null().default(10).to_owned(),
        ColumnDef::new(Alias::new("is_active")).boolean().not_null().default(true).to_owned(),
        ColumnDef::new(Alias::new("names")).json_binary().not_null().default("{}").to_owned(),
    ]
}

fn item_columns() -> [ColumnDef; 2] {
    [
        ColumnDef::new(Alias::new("icon")).text().null().to_owned(),
        ColumnDef::new(Alias::new("open_in_new_tab")).boolean().not_null().default(false).to_owned(),
    ]
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite's ALTER TABLE adds one at a time.
        for (table, columns) in [("nav_menus", menu_columns().to_vec()), ("nav_items", item_columns().to_vec())] {
            for column in columns {
                manager.alter_table(Table::alter().table(Alias::new(table)).add_column(column).to_owned()).await?;
            }
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (table, columns) in [("nav_menus", menu_columns().to_vec()), ("nav_items", item_columns().to_vec())] {
            for column in columns {
                let name = Alias::new(column.get_column_name());
                manager.alter_table(Table::alter().table(Alias::new(table)).drop_column(name).to_owned()).await?;
            }
        }
        Ok(())
    }
}
