//! Forms: definitions with fields and localizations, templates, submissions
//! with their notes and status history, the indexed values of `queryable`
//! forms, each site's bot-protection settings, and spent ALTCHA solutions (the
//! replay store: in the database so a solution stays spent across restarts and
//! instances).

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

fn index(name: &str, table: &str, cols: &[&str]) -> IndexCreateStatement {
    let mut ix = Index::create();
    ix.name(name).table(Alias::new(table));
    for col in cols {
        ix.col(Alias::new(*col));
    }
    ix.to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("forms")
                    .col(pk_uuid("id"))
                    .col(uuid("site_id"))
                    .col(string("slug"))
                    .col(string("name"))
                    .col(text_null("description"))
                    .col(boolean("is_active"))
                    .col(boolean("requires_consent"))
                    // none, optional, mandatory
                    .col(string("bot_protection"))
                    // simple, queryable
                    .col(string("storage_mode"))
                    .col(integer_null("retention_days"))
                    .col(string_null("created_by"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .col(timestamp_with_time_zone_null("deleted_at"))
                    .foreign_key(&mut cascade("forms", "site_id", "sites"))
                    .to_owned(),
            )
            .await?;
        let db = manager.get_connection();
        // A slug names one live form of a site; deleted forms free theirs.
        db.execute_unprepared("CREATE UNIQUE INDEX ux_forms_slug ON forms (site_id, slug) WHERE deleted_at IS NULL")
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("form_fields")
                    .col(pk_uuid("id"))
                    .col(uuid("form_id"))
                    .col(string("label"))
                    .col(string("field_type"))
                    .col(boolean("required"))
                    .col(json_binary_null("options"))
                    .col(integer_null("min_length"))
                    .col(integer_null("max_length"))
                    .col(string_null("pattern"))
                    .col(double_null("min"))
                    .col(double_null("max"))
                    .col(string_null("placeholder"))
                    .col(string_null("help_text"))
                    .col(integer("display_order"))
                    .foreign_key(&mut cascade("form_fields", "form_id", "forms"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("ux_form_fields_label", "form_fields", &["form_id", "label"]).unique().to_owned())
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("form_localizations")
                    .col(uuid("form_id"))
                    .col(uuid("locale_id"))
                    .col(string("name"))
                    .col(text_null("description"))
                    .col(text_null("consent_text"))
                    .primary_key(Index::create().col("form_id").col("locale_id"))
                    .foreign_key(&mut cascade("form_localizations", "form_id", "forms"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("form_field_localizations")
                    .col(uuid("form_field_id"))
                    .col(uuid("locale_id"))
                    .col(string_null("display_label"))
                    .col(string_null("placeholder"))
                    .col(text_null("help_text"))
                    .primary_key(Index::create().col("form_field_id").col("locale_id"))
                    .foreign_key(&mut cascade("form_field_localizations", "form_field_id", "form_fields"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("form_templates")
                    .col(pk_uuid("id"))
                    .col(uuid("site_id"))
                    .col(string("name"))
                    .col(text_null("description"))
                    // {fields, requires_consent?, bot_protection?, storage_mode?, retention_days?}
                    .col(json_binary("definition"))
                    .col(string_null("created_by"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut cascade("form_templates", "site_id", "sites"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("ux_form_templates_name", "form_templates", &["site_id", "name"]).unique().to_owned())
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("form_submissions")
                    .col(pk_uuid("id"))
                    .col(uuid("form_id"))
                    .col(uuid("site_id"))
                    .col(string("reference_code").unique_key())
                    // new, in_review, resolved, archived
                    .col(string("status"))
                    .col(json_binary("data"))
                    .col(boolean("consent_given"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .col(timestamp_with_time_zone_null("deleted_at"))
                    .foreign_key(&mut cascade("form_submissions", "form_id", "forms"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("ix_form_submissions_form", "form_submissions", &["form_id", "status", "created_at"]))
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("form_submission_values")
                    .col(uuid("submission_id"))
                    .col(uuid("form_id"))
                    .col(string("field_label"))
                    // The value as text (lowercased for case-insensitive search), capped.
                    .col(string("value"))
                    .primary_key(Index::create().col("submission_id").col("field_label").col("value"))
                    .foreign_key(&mut cascade("form_submission_values", "submission_id", "form_submissions"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "ix_form_submission_values_lookup",
                "form_submission_values",
                &["form_id", "field_label", "value"],
            ))
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("form_submission_notes")
                    .col(pk_uuid("id"))
                    .col(uuid("submission_id"))
                    .col(text("body"))
                    .col(string_null("author"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut cascade("form_submission_notes", "submission_id", "form_submissions"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("ix_form_submission_notes", "form_submission_notes", &["submission_id", "created_at"]))
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("form_submission_history")
                    .col(pk_uuid("id"))
                    .col(uuid("submission_id"))
                    .col(string_null("from_status"))
                    .col(string("to_status"))
                    .col(string_null("actor"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut cascade("form_submission_history", "submission_id", "form_submissions"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "ix_form_submission_history",
                "form_submission_history",
                &["submission_id", "created_at"],
            ))
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("site_bot_protection")
                    .col(uuid("site_id").primary_key())
                    // altcha, remote
                    .col(string("mode"))
                    // hex HMAC key of ALTCHA challenges
                    .col(string("altcha_key"))
                    .col(string_null("verify_url"))
                    .col(string_null("remote_secret"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut cascade("site_bot_protection", "site_id", "sites"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("altcha_spent")
                    .col(string("replay_key").primary_key())
                    .col(timestamp_with_time_zone("expires_at"))
                    .to_owned(),
            )
            .await?;
        manager.create_index(index("ix_altcha_spent_expiry", "altcha_spent", &["expires_at"])).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            "altcha_spent",
            "site_bot_protection",
            "form_submission_history",
            "form_submission_notes",
            "form_submission_values",
            "form_submissions",
            "form_templates",
            "form_field_localizations",
            "form_localizations",
            "form_fields",
            "forms",
        ] {
            manager.drop_table(Table::drop().table(Alias::new(table)).if_exists().to_owned()).await?;
        }
        Ok(())
    }
}
