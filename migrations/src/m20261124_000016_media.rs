//! The media library: files (uploaded or external), the sites they belong to,
//! their image variants, per-locale metadata and folders; and each site's
//! favicon package, which lives outside the library.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

fn index(name: &str, table: &str, cols: &[&str]) -> IndexCreateStatement {
    let mut index = Index::create();
    index.name(name).table(Alias::new(table));
    for col in cols {
        index.col(Alias::new(*col));
    }
    index.to_owned()
}

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
        manager
            .create_table(
                Table::create()
                    .table("media_folders")
                    .col(pk_uuid("id"))
                    .col(uuid("site_id"))
                    .col(uuid_null("parent_id"))
                    .col(string("name"))
                    .col(integer("display_order"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut cascade("media_folders", "site_id", "sites"))
                    .to_owned(),
            )
            .await?;
        manager.create_index(index("ix_media_folders_site", "media_folders", &["site_id", "display_order"])).await?;
        manager
            .create_table(
                Table::create()
                    .table("media_files")
                    .col(pk_uuid("id"))
                    .col(string("filename"))
                    .col(string("original_filename"))
                    .col(string("mime_type"))
                    .col(big_integer("file_size"))
                    // Where the bytes are: a key in the object store (uploads) or
                    // an outside URL (records made from metadata).
                    .col(string_null("storage_key"))
                    .col(string_null("external_url"))
                    .col(string_null("checksum"))
                    .col(integer_null("width"))
                    .col(integer_null("height"))
                    .col(integer_null("duration"))
                    .col(string_null("thumbhash"))
                    .col(string_null("dominant_color"))
                    .col(double_null("focal_x"))
                    .col(double_null("focal_y"))
                    .col(json("tags"))
                    .col(string_null("uploaded_by"))
                    .col(boolean("is_global"))
                    .col(uuid_null("folder_id"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .col(timestamp_with_time_zone_null("deleted_at"))
                    .col(boolean("is_deleted"))
                    .to_owned(),
            )
            .await?;
        manager.create_index(index("ix_media_files_checksum", "media_files", &["checksum"])).await?;
        manager.create_index(index("ix_media_files_folder", "media_files", &["folder_id"])).await?;
        manager
            .create_table(
                Table::create()
                    .table("media_sites")
                    .col(uuid("media_id"))
                    .col(uuid("site_id"))
                    .primary_key(Index::create().col("media_id").col("site_id"))
                    .foreign_key(&mut cascade("media_sites", "media_id", "media_files"))
                    .foreign_key(&mut cascade("media_sites", "site_id", "sites"))
                    .to_owned(),
            )
            .await?;
        manager.create_index(index("ix_media_sites_site", "media_sites", &["site_id", "media_id"])).await?;
        manager
            .create_table(
                Table::create()
                    .table("media_variants")
                    .col(pk_uuid("id"))
                    .col(uuid("media_id"))
                    .col(string("variant_name"))
                    .col(integer("width"))
                    .col(integer("height"))
                    .col(big_integer("file_size"))
                    .col(string("mime_type"))
                    .col(string("storage_key"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut cascade("media_variants", "media_id", "media_files"))
                    .to_owned(),
            )
            .await?;
        manager.create_index(index("ix_media_variants_media", "media_variants", &["media_id"])).await?;
        manager
            .create_table(
                Table::create()
                    .table("media_metadata")
                    .col(pk_uuid("id"))
                    .col(uuid("media_id"))
                    .col(uuid("locale_id"))
                    .col(string_null("alt_text"))
                    .col(text_null("caption"))
                    .col(string_null("title"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut cascade("media_metadata", "media_id", "media_files"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                index("ux_media_metadata_locale", "media_metadata", &["media_id", "locale_id"]).unique().to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("site_favicons")
                    .col(pk_uuid("site_id"))
                    .col(json("variants"))
                    .col(text("head_snippet"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut cascade("site_favicons", "site_id", "sites"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in
            ["site_favicons", "media_metadata", "media_variants", "media_sites", "media_files", "media_folders"]
        {
            manager.drop_table(Table::drop().table(Alias::new(table)).if_exists().to_owned()).await?;
        }
        Ok(())
    }
}
