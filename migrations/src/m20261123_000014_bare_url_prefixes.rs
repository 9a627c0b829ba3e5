//! Site locale URL prefixes are stored bare (`de`, not `/de`), as the service the
//! spec was written from writes them; the API accepts both spellings.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // `TRIM(x, '/')` is SQLite's; PostgreSQL spells it BTRIM. Stored prefixes
        // were validated as `/seg[/seg…]`, so one leading slash is all there is.
        manager
            .get_connection()
            .execute_unprepared("UPDATE site_locales SET url_prefix = SUBSTR(url_prefix, 2) WHERE url_prefix LIKE '/%'")
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared("UPDATE site_locales SET url_prefix = '/' || url_prefix WHERE url_prefix <> ''")
            .await?;
        Ok(())
    }
}
