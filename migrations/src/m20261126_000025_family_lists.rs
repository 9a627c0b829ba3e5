//! Every family's list is an index range scan in its own order, as the content
//! lists are since `content_listing`.
//!
//! Each index below leads with what its list matches by equality (the site, a
//! parent, a deletion flag, a status) and ends with the list's sort key and the
//! id as the tie-breaker, in the order and directions the query asks for, so
//! a page walks index entries instead of sorting the site's rows. Indexes that
//! a new one extends are dropped: their prefix is still there.
//!
//! A site's media library is found through `media_sites` (a file may be shared
//! by several sites), so those rows carry copies of what the library lists
//! filter and sort on: deletion, creation and deletion times and the file's
//! category (image, video, audio, document, other). The database keeps the
//! copies, as it does for `content_sites`: a trigger fills a new row from its
//! file, another copies a file's changes to all of its sites, in the same
//! statement and so in the same transaction, whichever code path wrote.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// (name, table, columns): created by this migration.
const INDEXES: [(&str, &str, &str); 24] = [
    ("ix_webhooks_site_created", "webhooks", "site_id, created_at, id"),
    ("ix_webhook_attempts_webhook_time", "webhook_attempts", "webhook_id, created_at, attempt, id"),
    ("ix_notifications_user_time", "notifications", "idp_user_id, created_at, id"),
    ("ix_api_keys_site_created", "api_keys", "site_id, created_at, id"),
    ("ix_api_keys_created", "api_keys", "created_at, id"),
    ("ix_audit_log_sites_page", "audit_log_sites", "site_id, created_at, audit_id"),
    ("ix_documents_list", "documents", "site_id, is_deleted, display_order, created_at DESC, id DESC"),
    ("ix_documents_folder_list", "documents", "folder_id, is_deleted, display_order, created_at DESC, id DESC"),
    ("ix_documents_trash", "documents", "site_id, is_deleted, deleted_at, id"),
    ("ix_forms_site_created", "forms", "site_id, created_at, id"),
    ("ix_forms_site_updated", "forms", "site_id, updated_at, id"),
    ("ix_forms_site_name", "forms", "site_id, name, id"),
    ("ix_forms_site_slug", "forms", "site_id, slug, id"),
    ("ix_form_submissions_form_time", "form_submissions", "form_id, created_at, id"),
    ("ix_form_submissions_form_status", "form_submissions", "form_id, status, created_at, id"),
    ("ix_site_members_site_created", "site_members", "site_id, created_at, id"),
    ("ix_social_links_site_order", "social_links", "site_id, is_deleted, display_order, created_at, id"),
    ("ix_social_links_trash", "social_links", "site_id, is_deleted, deleted_at, id"),
    ("ix_nav_menus_site_name", "nav_menus", "site_id, name, id"),
    ("ix_nav_items_menu_order", "nav_items", "menu_id, display_order, created_at, id"),
    ("ix_nav_menus_trash", "nav_menus", "site_id, is_deleted, deleted_at, id"),
    ("ix_nav_items_trash", "nav_items", "site_id, is_deleted, deleted_at, id"),
    ("ix_folders_site_order", "folders", "site_id, library, display_order, name, id"),
    ("ix_terms_site_name", "terms", "site_id, taxonomy, name, id"),
];

/// (name, table, columns): the indexes above make these redundant.
const REPLACED: [(&str, &str, &str); 7] = [
    ("ix_webhooks_site", "webhooks", "site_id"),
    ("ix_webhook_attempts_webhook", "webhook_attempts", "webhook_id, created_at"),
    ("ix_notifications_user", "notifications", "idp_user_id, created_at"),
    ("ix_audit_log_sites_time", "audit_log_sites", "site_id, created_at"),
    ("ix_form_submissions_form", "form_submissions", "form_id, status, created_at"),
    ("ix_social_links_site", "social_links", "site_id, display_order"),
    ("ix_nav_items_menu", "nav_items", "menu_id, display_order"),
];

/// The media library's lists, on the copies in `media_sites`: partial, each
/// holding exactly its list's rows, so no statistics are needed to choose
/// them (the queries write the predicates as literals, `media::listing`).
const MEDIA_INDEXES: [(&str, &str, &str, &str); 4] = [
    ("ix_media_sites_live", "media_sites", "site_id, created_at, media_id", "is_deleted = FALSE"),
    ("ix_media_sites_category", "media_sites", "site_id, mime_category, created_at, media_id", "is_deleted = FALSE"),
    ("ix_media_sites_trash", "media_sites", "site_id, deleted_at, media_id", "is_deleted = TRUE"),
    // A folder belongs to one site: its files are listed from `media_files`.
    ("ix_media_files_folder_live", "media_files", "folder_id, created_at, id", "is_deleted = FALSE"),
];

/// The library's category of a MIME type, as `media::sniff::category_prefixes`
/// names them.
const CATEGORY: &str = "CASE WHEN f.mime_type LIKE 'image/%' THEN 'image' \
    WHEN f.mime_type LIKE 'video/%' THEN 'video' WHEN f.mime_type LIKE 'audio/%' THEN 'audio' \
    WHEN f.mime_type LIKE 'application/pdf%' OR f.mime_type LIKE 'text/%' THEN 'document' ELSE 'other' END";

fn sqlite_triggers() -> String {
    format!(
        r#"
CREATE TRIGGER media_sites_fill AFTER INSERT ON media_sites BEGIN
  UPDATE media_sites SET (is_deleted, created_at, deleted_at, mime_category) =
    (SELECT f.is_deleted, f.created_at, f.deleted_at, {CATEGORY} FROM media_files f WHERE f.id = NEW.media_id)
    WHERE media_id = NEW.media_id AND site_id = NEW.site_id;
END;

CREATE TRIGGER media_files_to_sites AFTER UPDATE ON media_files
WHEN OLD.is_deleted IS NOT NEW.is_deleted OR OLD.created_at IS NOT NEW.created_at
  OR OLD.deleted_at IS NOT NEW.deleted_at OR OLD.mime_type IS NOT NEW.mime_type
BEGIN
  UPDATE media_sites SET (is_deleted, created_at, deleted_at, mime_category) =
    (SELECT f.is_deleted, f.created_at, f.deleted_at, {CATEGORY} FROM media_files f WHERE f.id = NEW.id)
    WHERE media_id = NEW.id;
END;
"#
    )
}

fn postgres_triggers() -> String {
    format!(
        r#"
CREATE FUNCTION media_sites_fill() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT f.is_deleted, f.created_at, f.deleted_at, {CATEGORY}
    INTO NEW.is_deleted, NEW.created_at, NEW.deleted_at, NEW.mime_category
    FROM media_files f WHERE f.id = NEW.media_id;
  RETURN NEW;
END $$;
CREATE TRIGGER media_sites_fill BEFORE INSERT ON media_sites FOR EACH ROW EXECUTE FUNCTION media_sites_fill();

CREATE FUNCTION media_files_to_sites() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE media_sites SET (is_deleted, created_at, deleted_at, mime_category) =
    (SELECT f.is_deleted, f.created_at, f.deleted_at, {CATEGORY} FROM media_files f WHERE f.id = NEW.id)
    WHERE media_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER media_files_to_sites AFTER UPDATE ON media_files FOR EACH ROW
  WHEN (OLD.is_deleted IS DISTINCT FROM NEW.is_deleted OR OLD.created_at IS DISTINCT FROM NEW.created_at
    OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.mime_type IS DISTINCT FROM NEW.mime_type)
  EXECUTE FUNCTION media_files_to_sites();
"#
    )
}

fn backfill() -> String {
    format!(
        "UPDATE media_sites SET (is_deleted, created_at, deleted_at, mime_category) = \
         (SELECT f.is_deleted, f.created_at, f.deleted_at, {CATEGORY} FROM media_files f \
          WHERE f.id = media_sites.media_id)"
    )
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let columns = [
            ColumnDef::new("is_deleted").boolean().not_null().default(false).to_owned(),
            ColumnDef::new("created_at").timestamp_with_time_zone().null().to_owned(),
            ColumnDef::new("deleted_at").timestamp_with_time_zone().null().to_owned(),
            ColumnDef::new("mime_category").string().not_null().default("other").to_owned(),
        ];
        // SQLite adds one column per ALTER TABLE.
        for mut column in columns {
            manager.alter_table(Table::alter().table("media_sites").add_column(&mut column).to_owned()).await?;
        }
        let db = manager.get_connection();
        db.execute_unprepared(&backfill()).await?;
        for (name, table, columns) in INDEXES {
            db.execute_unprepared(&format!("CREATE INDEX {name} ON {table} ({columns})")).await?;
        }
        for (name, table, columns, rows) in MEDIA_INDEXES {
            db.execute_unprepared(&format!("CREATE INDEX {name} ON {table} ({columns}) WHERE {rows}")).await?;
        }
        for (name, table, _) in REPLACED {
            manager.drop_index(Index::drop().name(name).table(table).to_owned()).await?;
        }
        let triggers = match manager.get_database_backend() {
            DbBackend::Postgres => postgres_triggers(),
            _ => sqlite_triggers(),
        };
        db.execute_unprepared(&triggers).await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        let drops = match manager.get_database_backend() {
            DbBackend::Postgres => {
                "DROP TRIGGER IF EXISTS media_sites_fill ON media_sites; \
                 DROP TRIGGER IF EXISTS media_files_to_sites ON media_files; \
                 DROP FUNCTION IF EXISTS media_sites_fill(); DROP FUNCTION IF EXISTS media_files_to_sites();"
            }
            _ => "DROP TRIGGER IF EXISTS media_sites_fill; DROP TRIGGER IF EXISTS media_files_to_sites;",
        };
        db.execute_unprepared(drops).await?;
        for (name, table, columns) in REPLACED {
            db.execute_unprepared(&format!("CREATE INDEX {name} ON {table} ({columns})")).await?;
        }
        for (name, table, _) in INDEXES {
            manager.drop_index(Index::drop().name(name).table(table).if_exists().to_owned()).await?;
        }
        for (name, table, _, _) in MEDIA_INDEXES {
            manager.drop_index(Index::drop().name(name).table(table).if_exists().to_owned()).await?;
        }
        for column in ["is_deleted", "created_at", "deleted_at", "mime_category"] {
            manager.alter_table(Table::alter().table("media_sites").drop_column(column).to_owned()).await?;
        }
        Ok(())
    }
}
