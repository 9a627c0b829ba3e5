//! A user's notifications read per site, as the origin service's admin reads
//! them (its bell counts the unread ones of the open site every few seconds):
//! the site's list is a range scan of `(user, site)` in its order, and the
//! unread count an index-only count over a partial index that holds only the
//! unread ones, so neither grows with the notifications already read.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::ConnectionTrait;

#[derive(DeriveMigrationName)]
pub struct Migration;

const INDEXES: [(&str, &str); 2] = [
    (
        "ix_notifications_user_site_time",
        "CREATE INDEX ix_notifications_user_site_time ON notifications (idp_user_id, site_id, created_at, id)",
    ),
    (
        "ix_notifications_user_site_unread",
        "CREATE INDEX ix_notifications_user_site_unread ON notifications (idp_user_id, site_id) WHERE read_at IS NULL",
    ),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (_, create) in INDEXES {
            manager.get_connection().execute_unprepared(create).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (name, _) in INDEXES {
            manager.get_connection().execute_unprepared(&format!("DROP INDEX IF EXISTS {name}")).await?;
        }
        Ok(())
    }
}
