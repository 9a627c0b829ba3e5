//! Lists that cost the same at 100,000 items per site as at 100.
//!
//! A site's items are listed from its own rows in `content_sites`, so those rows
//! carry copies of what lists filter and sort on (status, deletion, subtype,
//! featured, title and the four times), and every list is an index range scan
//! in its own order, led by the site and the filters. The database keeps the
//! copies: a trigger fills a new `content_sites` row from its item and another
//! copies an item's changes to all of its sites, in the same statement and so
//! the same transaction, whichever code path wrote it (the content engine,
//! scheduled publishing, moderation, imports).
//!
//! `content_counts` holds how many items each site has per kind, subtype,
//! status and deletion, kept by triggers on `content_sites`, so a list's total
//! is a sum over a few rows instead of a count over the site.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The copied columns, as `content_sites` and `contents` both name them.
pub const COPIED: [&str; 9] = [
    "status",
    "is_deleted",
    "subtype",
    "is_featured",
    "title",
    "created_at",
    "updated_at",
    "published_at",
    "deleted_at",
];

/// Each list's index: partial, holding only the rows its list can show
/// (live ones, one status, the trash), led by the site and the kind and
/// followed by the sort key and the id as the tie-breaker (scanned backwards
/// for descending orders). Partial indexes are what make a plan not depend on
/// statistics: the index that holds exactly the list's rows is also the
/// smallest one that gives its order, so PostgreSQL picks it on a table never
/// analyzed, and no two indexes of one list compete. The queries write these
/// predicates as literals (`listing::rows`), so both planners prove them.
const INDEXES: [(&str, &str, &str); 13] = [
    ("ix_content_sites_live_created", "site_id, kind, created_at, content_id", "is_deleted = FALSE"),
    ("ix_content_sites_live_updated", "site_id, kind, updated_at, content_id", "is_deleted = FALSE"),
    ("ix_content_sites_live_published", "site_id, kind, published_at, content_id", "is_deleted = FALSE"),
    ("ix_content_sites_live_title", "site_id, kind, title, content_id", "is_deleted = FALSE"),
    ("ix_content_sites_live_subtype", "site_id, kind, subtype, created_at, content_id", "is_deleted = FALSE"),
    ("ix_content_sites_draft", "site_id, kind, created_at, content_id", "is_deleted = FALSE AND status = 'Draft'"),
    (
        "ix_content_sites_in_review",
        "site_id, kind, created_at, content_id",
        "is_deleted = FALSE AND status = 'InReview'",
    ),
    (
        "ix_content_sites_scheduled",
        "site_id, kind, created_at, content_id",
        "is_deleted = FALSE AND status = 'Scheduled'",
    ),
    (
        "ix_content_sites_archived",
        "site_id, kind, created_at, content_id",
        "is_deleted = FALSE AND status = 'Archived'",
    ),
    (
        "ix_content_sites_published",
        "site_id, kind, published_at, content_id",
        "is_deleted = FALSE AND status = 'Published'",
    ),
    (
        "ix_content_sites_published_created",
        "site_id, kind, created_at, content_id",
        "is_deleted = FALSE AND status = 'Published'",
    ),
    (
        "ix_content_sites_featured",
        "site_id, kind, published_at, content_id",
        "is_deleted = FALSE AND status = 'Published' AND is_featured = TRUE",
    ),
    // Per kind, as every list: with only the site to match, PostgreSQL's guess
    // for an unanalyzed table (11 rows) makes sorting look cheaper than the order.
    ("ix_content_sites_trash", "site_id, kind, deleted_at, content_id", "is_deleted = TRUE"),
];

/// Slugs and routes are unique per site and kind.
const UNIQUE_PER_SITE: [(&str, &str); 2] = [("ux_content_sites_slug", "slug"), ("ux_content_sites_route", "route")];

const SQLITE_TRIGGERS: &str = r#"
CREATE TRIGGER content_sites_fill AFTER INSERT ON content_sites BEGIN
  INSERT INTO content_counts (site_id, kind, subtype, status, is_deleted, n)
    VALUES (NEW.site_id, NEW.kind, COALESCE(NEW.subtype, ''), NEW.status, NEW.is_deleted, 1)
    ON CONFLICT (site_id, kind, subtype, status, is_deleted) DO UPDATE SET n = n + 1;
  UPDATE content_sites
    SET (status, is_deleted, subtype, is_featured, title, created_at, updated_at, published_at, deleted_at) =
      (SELECT status, is_deleted, subtype, is_featured, title, created_at, updated_at, published_at, deleted_at
         FROM contents WHERE id = NEW.content_id)
    WHERE content_id = NEW.content_id AND site_id = NEW.site_id;
END;

CREATE TRIGGER contents_to_sites AFTER UPDATE ON contents
WHEN OLD.status IS NOT NEW.status OR OLD.is_deleted IS NOT NEW.is_deleted OR OLD.subtype IS NOT NEW.subtype
  OR OLD.is_featured IS NOT NEW.is_featured OR OLD.title IS NOT NEW.title OR OLD.created_at IS NOT NEW.created_at
  OR OLD.updated_at IS NOT NEW.updated_at OR OLD.published_at IS NOT NEW.published_at
  OR OLD.deleted_at IS NOT NEW.deleted_at
BEGIN
  UPDATE content_sites
    SET status = NEW.status, is_deleted = NEW.is_deleted, subtype = NEW.subtype, is_featured = NEW.is_featured,
        title = NEW.title, created_at = NEW.created_at, updated_at = NEW.updated_at,
        published_at = NEW.published_at, deleted_at = NEW.deleted_at
    WHERE content_id = NEW.id;
END;

CREATE TRIGGER content_counts_moved AFTER UPDATE ON content_sites
WHEN OLD.status IS NOT NEW.status OR OLD.is_deleted IS NOT NEW.is_deleted OR OLD.subtype IS NOT NEW.subtype
  OR OLD.kind IS NOT NEW.kind OR OLD.site_id IS NOT NEW.site_id
BEGIN
  UPDATE content_counts SET n = n - 1
    WHERE site_id = OLD.site_id AND kind = OLD.kind AND subtype = COALESCE(OLD.subtype, '')
      AND status = OLD.status AND is_deleted = OLD.is_deleted;
  INSERT INTO content_counts (site_id, kind, subtype, status, is_deleted, n)
    VALUES (NEW.site_id, NEW.kind, COALESCE(NEW.subtype, ''), NEW.status, NEW.is_deleted, 1)
    ON CONFLICT (site_id, kind, subtype, status, is_deleted) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER content_counts_removed AFTER DELETE ON content_sites BEGIN
  UPDATE content_counts SET n = n - 1
    WHERE site_id = OLD.site_id AND kind = OLD.kind AND subtype = COALESCE(OLD.subtype, '')
      AND status = OLD.status AND is_deleted = OLD.is_deleted;
END;
"#;

/// PostgreSQL fills a new row before it is written, so the count triggers after
/// the statement see its real status. Counts move once per statement and key
/// (transition tables), not once per row: under MVCC a counter row updated
/// 100,000 times in one import's transaction grows a chain of versions each
/// update must walk. Keys are touched in one order, so two statements moving
/// counts opposite ways cannot deadlock.
const POSTGRES_TRIGGERS: &str = r#"
CREATE FUNCTION content_sites_fill() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT c.status, c.is_deleted, c.subtype, c.is_featured, c.title, c.created_at, c.updated_at, c.published_at, c.deleted_at
    INTO NEW.status, NEW.is_deleted, NEW.subtype, NEW.is_featured, NEW.title, NEW.created_at, NEW.updated_at,
         NEW.published_at, NEW.deleted_at
    FROM contents c WHERE c.id = NEW.content_id;
  RETURN NEW;
END $$;
CREATE TRIGGER content_sites_fill BEFORE INSERT ON content_sites FOR EACH ROW EXECUTE FUNCTION content_sites_fill();

CREATE FUNCTION contents_to_sites() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE content_sites
    SET status = NEW.status, is_deleted = NEW.is_deleted, subtype = NEW.subtype, is_featured = NEW.is_featured,
        title = NEW.title, created_at = NEW.created_at, updated_at = NEW.updated_at,
        published_at = NEW.published_at, deleted_at = NEW.deleted_at
    WHERE content_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER contents_to_sites AFTER UPDATE ON contents FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.is_deleted IS DISTINCT FROM NEW.is_deleted
    OR OLD.subtype IS DISTINCT FROM NEW.subtype OR OLD.is_featured IS DISTINCT FROM NEW.is_featured
    OR OLD.title IS DISTINCT FROM NEW.title OR OLD.created_at IS DISTINCT FROM NEW.created_at
    OR OLD.updated_at IS DISTINCT FROM NEW.updated_at OR OLD.published_at IS DISTINCT FROM NEW.published_at
    OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
  EXECUTE FUNCTION contents_to_sites();

CREATE FUNCTION content_counts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO content_counts (site_id, kind, subtype, status, is_deleted, n)
      SELECT site_id, kind, COALESCE(subtype, ''), status, is_deleted, COUNT(*) FROM new_rows
      GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT (site_id, kind, subtype, status, is_deleted) DO UPDATE SET n = content_counts.n + EXCLUDED.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO content_counts (site_id, kind, subtype, status, is_deleted, n)
      SELECT site_id, kind, COALESCE(subtype, ''), status, is_deleted, -COUNT(*) FROM old_rows
      GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT (site_id, kind, subtype, status, is_deleted) DO UPDATE SET n = content_counts.n + EXCLUDED.n;
  ELSE
    INSERT INTO content_counts (site_id, kind, subtype, status, is_deleted, n)
      SELECT site_id, kind, subtype, status, is_deleted, SUM(delta) FROM (
        SELECT site_id, kind, COALESCE(subtype, '') AS subtype, status, is_deleted, -1 AS delta FROM old_rows
        UNION ALL
        SELECT site_id, kind, COALESCE(subtype, ''), status, is_deleted, 1 FROM new_rows
      ) AS moves
      GROUP BY 1, 2, 3, 4, 5 HAVING SUM(delta) <> 0 ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT (site_id, kind, subtype, status, is_deleted) DO UPDATE SET n = content_counts.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER content_counts_inserted AFTER INSERT ON content_sites
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION content_counts_changed();
CREATE TRIGGER content_counts_deleted AFTER DELETE ON content_sites
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION content_counts_changed();
CREATE TRIGGER content_counts_moved AFTER UPDATE ON content_sites
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION content_counts_changed();
"#;

const BACKFILL: &str = r#"
UPDATE content_sites
  SET (status, is_deleted, subtype, is_featured, title, created_at, updated_at, published_at, deleted_at) =
    (SELECT status, is_deleted, subtype, is_featured, title, created_at, updated_at, published_at, deleted_at
       FROM contents WHERE contents.id = content_sites.content_id)
"#;

const COUNT_BACKFILL: &str = r#"
INSERT INTO content_counts (site_id, kind, subtype, status, is_deleted, n)
  SELECT site_id, kind, COALESCE(subtype, ''), status, is_deleted, COUNT(*)
  FROM content_sites GROUP BY site_id, kind, COALESCE(subtype, ''), status, is_deleted
"#;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let columns = [
            ColumnDef::new("status").string().not_null().default("Draft").to_owned(),
            ColumnDef::new("is_deleted").boolean().not_null().default(false).to_owned(),
            ColumnDef::new("subtype").string().null().to_owned(),
            ColumnDef::new("is_featured").boolean().not_null().default(false).to_owned(),
            ColumnDef::new("title").string().not_null().default("").to_owned(),
            ColumnDef::new("created_at").timestamp_with_time_zone().null().to_owned(),
            ColumnDef::new("updated_at").timestamp_with_time_zone().null().to_owned(),
            ColumnDef::new("published_at").timestamp_with_time_zone().null().to_owned(),
            ColumnDef::new("deleted_at").timestamp_with_time_zone().null().to_owned(),
        ];
        debug_assert_eq!(columns.len(), COPIED.len());
        // SQLite adds one column per ALTER TABLE.
        for mut column in columns {
            manager.alter_table(Table::alter().table("content_sites").add_column(&mut column).to_owned()).await?;
        }
        manager
            .create_table(
                Table::create()
                    .table("content_counts")
                    .col(ColumnDef::new("site_id").uuid().not_null())
                    .col(ColumnDef::new("kind").string().not_null())
                    .col(ColumnDef::new("subtype").string().not_null())
                    .col(ColumnDef::new("status").string().not_null())
                    .col(ColumnDef::new("is_deleted").boolean().not_null())
                    .col(ColumnDef::new("n").big_integer().not_null())
                    .primary_key(
                        Index::create().col("site_id").col("kind").col("subtype").col("status").col("is_deleted"),
                    )
                    .to_owned(),
            )
            .await?;
        let db = manager.get_connection();
        db.execute_unprepared(BACKFILL).await?;
        db.execute_unprepared(COUNT_BACKFILL).await?;
        for (name, columns, rows) in INDEXES {
            db.execute_unprepared(&format!("CREATE INDEX {name} ON content_sites ({columns}) WHERE {rows}")).await?;
        }
        // The uniqueness indexes of slugs and routes are only ever probed with all
        // three columns; led by the site and kind, they competed with the list
        // indexes for the lists' `(site_id, kind)` prefix, and a planner without
        // statistics took one of them and sorted the whole site.
        // One batch per index: on SQLite each call may take another pooled
        // connection, whose schema could still hold the dropped index.
        for (name, column) in UNIQUE_PER_SITE {
            let sql =
                format!("DROP INDEX {name}; CREATE UNIQUE INDEX {name} ON content_sites ({column}, site_id, kind)");
            db.execute_unprepared(&sql).await?;
        }
        let triggers = match manager.get_database_backend() {
            DbBackend::Postgres => POSTGRES_TRIGGERS,
            _ => SQLITE_TRIGGERS,
        };
        db.execute_unprepared(triggers).await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        let drops = match manager.get_database_backend() {
            DbBackend::Postgres => {
                "DROP TRIGGER IF EXISTS content_sites_fill ON content_sites; \
                 DROP TRIGGER IF EXISTS content_counts_inserted ON content_sites; \
                 DROP TRIGGER IF EXISTS content_counts_deleted ON content_sites; \
                 DROP TRIGGER IF EXISTS content_counts_moved ON content_sites; \
                 DROP TRIGGER IF EXISTS contents_to_sites ON contents; \
                 DROP FUNCTION IF EXISTS content_sites_fill(); DROP FUNCTION IF EXISTS contents_to_sites(); \
                 DROP FUNCTION IF EXISTS content_counts_changed();"
            }
            _ => {
                "DROP TRIGGER IF EXISTS content_sites_fill; DROP TRIGGER IF EXISTS contents_to_sites; \
                 DROP TRIGGER IF EXISTS content_counts_moved; DROP TRIGGER IF EXISTS content_counts_removed;"
            }
        };
        db.execute_unprepared(drops).await?;
        for (name, _, _) in INDEXES {
            manager.drop_index(Index::drop().name(name).table("content_sites").if_exists().to_owned()).await?;
        }
        for (name, column) in UNIQUE_PER_SITE {
            let sql =
                format!("DROP INDEX {name}; CREATE UNIQUE INDEX {name} ON content_sites (site_id, kind, {column})");
            db.execute_unprepared(&sql).await?;
        }
        manager.drop_table(Table::drop().table("content_counts").if_exists().to_owned()).await?;
        for column in COPIED {
            manager.alter_table(Table::alter().table("content_sites").drop_column(column).to_owned()).await?;
        }
        Ok(())
    }
}
