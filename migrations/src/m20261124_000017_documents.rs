//! Documents: folders become one table for both libraries (`library` =
//! `media` or `documents`), documents with their localizations and blog
//! attachments, and server secrets (the key document access tokens are sealed
//! with, shared by every instance on the database).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

fn cascade(from: &str, col: &str, to: &str) -> ForeignKeyCreateStatement {
    ForeignKey::create()
        .from(Alias::new(from), Alias::new(col))
        .to(Alias::new(to), "id")
        .on_delete(ForeignKeyAction::Cascade)
        .to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.rename_table(Table::rename().table("media_folders", "folders").to_owned()).await?;
        manager
            .alter_table(Table::alter().table("folders").add_column(string("library").default("media")).to_owned())
            .await?;
        manager
            .create_index(
                Index::create().name("ix_folders_library").table("folders").col("site_id").col("library").to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("documents")
                    .col(pk_uuid("id"))
                    .col(uuid("site_id"))
                    .col(uuid_null("folder_id"))
                    .col(string_null("url"))
                    .col(string("document_type"))
                    .col(integer("display_order"))
                    .col(string_null("file_name"))
                    .col(big_integer_null("file_size"))
                    .col(string_null("mime_type"))
                    .col(string_null("storage_key"))
                    .col(string_null("checksum"))
                    .col(boolean("is_private"))
                    // Privacy: the data key sealed under the password's key
                    // (argon2id salt and parameters beside it) and, when an
                    // operator key is configured, under that key too.
                    .col(string_null("key_id"))
                    .col(string_null("kdf_salt"))
                    .col(string_null("kdf_params"))
                    .col(string_null("sealed_key"))
                    .col(string_null("recovery_sealed_key"))
                    .col(timestamp_with_time_zone_null("expires_at"))
                    .col(integer("failed_attempts").default(0))
                    .col(timestamp_with_time_zone_null("locked_at"))
                    .col(string_null("created_by"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .col(timestamp_with_time_zone_null("deleted_at"))
                    .col(boolean("is_deleted"))
                    .foreign_key(&mut cascade("documents", "site_id", "sites"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create().name("ix_documents_site").table("documents").col("site_id").col("folder_id").to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("document_localizations")
                    .col(pk_uuid("id"))
                    .col(uuid("document_id"))
                    .col(uuid("locale_id"))
                    .col(string("name"))
                    .col(text_null("description"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut cascade("document_localizations", "document_id", "documents"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ux_document_localizations_locale")
                    .table("document_localizations")
                    .col("document_id")
                    .col("locale_id")
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("blog_documents")
                    .col(pk_uuid("id"))
                    .col(uuid("blog_id"))
                    .col(uuid("document_id"))
                    .col(integer("display_order"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut cascade("blog_documents", "blog_id", "contents"))
                    .foreign_key(&mut cascade("blog_documents", "document_id", "documents"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ux_blog_documents")
                    .table("blog_documents")
                    .col("blog_id")
                    .col("document_id")
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("server_secrets")
                    .col(string("name").primary_key())
                    .col(string("value"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in ["server_secrets", "blog_documents", "document_localizations", "documents"] {
            manager.drop_table(Table::drop().table(Alias::new(table)).if_exists().to_owned()).await?;
        }
        manager.drop_index(Index::drop().name("ix_folders_library").table("folders").to_owned()).await?;
        manager.alter_table(Table::alter().table("folders").drop_column("library").to_owned()).await?;
        manager.rename_table(Table::rename().table("folders", "media_folders").to_owned()).await
    }
}
