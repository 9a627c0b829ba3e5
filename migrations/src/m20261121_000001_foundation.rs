//! Sites, locales, settings, memberships, API keys and the audit trail.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("sites")
                    .col(pk_uuid("id"))
                    .col(string("name"))
                    .col(string_uniq("slug"))
                    .col(text("description"))
                    .col(string_null("base_url"))
                    .col(boolean("is_active"))
                    .col(string_null("logo_url"))
                    .col(string_null("favicon_url"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .col(timestamp_with_time_zone_null("deleted_at"))
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("locales")
                    .col(pk_uuid("id"))
                    .col(string_uniq("code"))
                    .col(string("name"))
                    .col(string("native_name"))
                    .col(string("direction"))
                    .col(timestamp_with_time_zone("created_at"))
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("site_locales")
                    .col(uuid("site_id"))
                    .col(uuid("locale_id"))
                    .col(boolean("is_default"))
                    .col(boolean("is_active"))
                    .col(string("url_prefix"))
                    .col(timestamp_with_time_zone("created_at"))
                    .primary_key(Index::create().col("site_id").col("locale_id"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("site_locales", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    // Restrict: a locale still assigned to a site cannot be deleted.
                    .foreign_key(
                        ForeignKey::create()
                            .from("site_locales", "locale_id")
                            .to("locales", "id")
                            .on_delete(ForeignKeyAction::Restrict),
                    )
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("site_settings")
                    .col(pk_uuid("site_id"))
                    .col(json_binary("overrides"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("site_settings", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("site_members")
                    .col(pk_uuid("id"))
                    .col(uuid("site_id"))
                    .col(string("idp_user_id"))
                    .col(string("role"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("site_members", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ux_site_members_site_user")
                    .table("site_members")
                    .col("site_id")
                    .col("idp_user_id")
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create().name("ix_site_members_user").table("site_members").col("idp_user_id").to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("api_keys")
                    .col(pk_uuid("id"))
                    .col(string("name"))
                    .col(string_uniq("key_hash"))
                    .col(string("key_prefix"))
                    .col(string("permission"))
                    .col(uuid_null("site_id"))
                    .col(integer_null("rate_limit_per_second"))
                    .col(integer_null("rate_limit_per_minute"))
                    .col(integer_null("rate_limit_per_hour"))
                    .col(integer_null("rate_limit_per_day"))
                    .col(string_null("created_by"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone_null("revoked_at"))
                    .col(timestamp_with_time_zone_null("last_used_at"))
                    .col(big_integer("usage_count").default(0))
                    .foreign_key(
                        ForeignKey::create()
                            .from("api_keys", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("audit_log")
                    .col(pk_uuid("id"))
                    .col(uuid_null("site_id"))
                    .col(string("actor"))
                    .col(string("action"))
                    .col(string("entity_type"))
                    .col(string("entity_id"))
                    .col(json_binary("changes"))
                    .col(timestamp_with_time_zone("created_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_audit_log_site_created")
                    .table("audit_log")
                    .col("site_id")
                    .col("created_at")
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_audit_log_entity")
                    .table("audit_log")
                    .col("entity_type")
                    .col("entity_id")
                    .to_owned(),
            )
            .await?;

        seed_locales(manager).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in ["audit_log", "api_keys", "site_members", "site_settings", "site_locales", "locales", "sites"] {
            manager.drop_table(Table::drop().table(table).if_exists().to_owned()).await?;
        }
        Ok(())
    }
}

/// The global locales every installation starts with.
async fn seed_locales(manager: &SchemaManager<'_>) -> Result<(), DbErr> {
    let seeds = [("en", "English", "English"), ("de", "German", "Deutsch")];
    let now = chrono::Utc::now();
    let mut insert = Query::insert();
    insert.into_table("locales").columns(["id", "code", "name", "native_name", "direction", "created_at"]);
    for (code, name, native_name) in seeds {
        insert
            .values([
                uuid::Uuid::new_v4().into(),
                code.into(),
                name.into(),
                native_name.into(),
                "ltr".into(),
                now.into(),
            ])
            .map_err(|e| DbErr::Migration(e.to_string()))?;
    }
    manager.exec_stmt(insert.to_owned()).await
}
