//! The content engine: items of every kind (blog, page, …), the sites they are
//! published on, their localizations, taxonomy and environments.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

fn cascade(from_table: &'static str, from_col: &'static str, to_table: &'static str) -> ForeignKeyCreateStatement {
    ForeignKey::create().from(from_table, from_col).to(to_table, "id").on_delete(ForeignKeyAction::Cascade).to_owned()
}

async fn index(
    manager: &SchemaManager<'_>,
    name: &str,
    table: &'static str,
    cols: &[&'static str],
    unique: bool,
) -> Result<(), DbErr> {
    let mut stmt = Index::create();
    stmt.name(name).table(table);
    for col in cols {
        stmt.col(*col);
    }
    if unique {
        stmt.unique();
    }
    manager.create_index(stmt.to_owned()).await
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("contents")
                    .col(pk_uuid("id"))
                    .col(string("kind"))
                    // A kind's own classification, filterable: a CV entry's entry_type.
                    .col(string_null("subtype"))
                    .col(string("slug"))
                    .col(string("title"))
                    .col(text("excerpt"))
                    .col(text("body"))
                    .col(string("status"))
                    .col(string_null("author"))
                    .col(string_null("created_by"))
                    .col(timestamp_with_time_zone_null("publish_start"))
                    .col(timestamp_with_time_zone_null("publish_end"))
                    .col(timestamp_with_time_zone_null("published_at"))
                    .col(uuid_null("cover_image_id"))
                    .col(uuid_null("header_image_id"))
                    .col(boolean("is_featured"))
                    .col(boolean("is_sample"))
                    .col(json_binary("fields"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .col(timestamp_with_time_zone_null("deleted_at"))
                    .col(boolean("is_deleted"))
                    .to_owned(),
            )
            .await?;
        index(manager, "ix_contents_kind_status", "contents", &["kind", "status", "published_at"], false).await?;
        index(manager, "ix_contents_kind_subtype", "contents", &["kind", "subtype"], false).await?;
        index(manager, "ix_contents_deleted", "contents", &["is_deleted", "deleted_at"], false).await?;

        // The sites an item appears on. Slug (and page route) are repeated here so
        // that "one slug per kind per site" is a unique index, not a race.
        manager
            .create_table(
                Table::create()
                    .table("content_sites")
                    .col(uuid("content_id"))
                    .col(uuid("site_id"))
                    .col(string("kind"))
                    .col(string("slug"))
                    .col(string_null("route"))
                    .primary_key(Index::create().col("content_id").col("site_id"))
                    .foreign_key(&mut cascade("content_sites", "content_id", "contents"))
                    .foreign_key(&mut cascade("content_sites", "site_id", "sites"))
                    .to_owned(),
            )
            .await?;
        index(manager, "ux_content_sites_slug", "content_sites", &["site_id", "kind", "slug"], true).await?;
        // Pages have routes; other kinds leave it null (nulls never collide).
        index(manager, "ux_content_sites_route", "content_sites", &["site_id", "kind", "route"], true).await?;

        manager
            .create_table(
                Table::create()
                    .table("content_localizations")
                    .col(pk_uuid("id"))
                    .col(uuid("content_id"))
                    .col(uuid("locale_id"))
                    .col(string("title"))
                    .col(text("excerpt"))
                    .col(text("body"))
                    .col(string("meta_title"))
                    .col(text("meta_description"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut cascade("content_localizations", "content_id", "contents"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("content_localizations", "locale_id")
                            .to("locales", "id")
                            .on_delete(ForeignKeyAction::Restrict),
                    )
                    .to_owned(),
            )
            .await?;
        index(manager, "ux_content_localizations", "content_localizations", &["content_id", "locale_id"], true).await?;

        // Categories and tags: one table, told apart by `taxonomy`.
        manager
            .create_table(
                Table::create()
                    .table("terms")
                    .col(pk_uuid("id"))
                    .col(uuid("site_id"))
                    .col(string("taxonomy"))
                    .col(string("slug"))
                    .col(string("name"))
                    .col(text("description"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut cascade("terms", "site_id", "sites"))
                    .to_owned(),
            )
            .await?;
        index(manager, "ux_terms_site_taxonomy_slug", "terms", &["site_id", "taxonomy", "slug"], true).await?;
        manager
            .create_table(
                Table::create()
                    .table("content_categories")
                    .col(uuid("content_id"))
                    .col(uuid("category_id"))
                    .col(boolean("is_primary"))
                    .primary_key(Index::create().col("content_id").col("category_id"))
                    .foreign_key(&mut cascade("content_categories", "content_id", "contents"))
                    .foreign_key(&mut cascade("content_categories", "category_id", "terms"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("content_tags")
                    .col(uuid("content_id"))
                    .col(uuid("tag_id"))
                    .primary_key(Index::create().col("content_id").col("tag_id"))
                    .foreign_key(&mut cascade("content_tags", "content_id", "contents"))
                    .foreign_key(&mut cascade("content_tags", "tag_id", "terms"))
                    .to_owned(),
            )
            .await?;
        index(manager, "ix_content_tags_tag", "content_tags", &["tag_id"], false).await?;
        index(manager, "ix_content_categories_category", "content_categories", &["category_id"], false).await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            "content_tags",
            "content_categories",
            "tags",
            "categories",
            "content_localizations",
            "content_sites",
            "contents",
        ] {
            manager.drop_table(Table::drop().table(table).if_exists().to_owned()).await?;
        }
        Ok(())
    }
}
