//! Ids for page sections and their localizations, as the origin service's
//! admin addresses them (`/pages/sections/{id}`). The sections stay in the
//! page's `fields`; `page_section_keys` finds the page of an id (one row per
//! section and per section localization, rewritten with the page). Sections
//! stored before get their ids here, page by page.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, Statement, Value as DbValue};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Pages read per round of the backfill.
const BATCH: u64 = 500;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let table = Alias::new("page_section_keys");
        manager
            .create_table(
                Table::create()
                    .table(table.clone())
                    .col(ColumnDef::new(Alias::new("id")).uuid().not_null().primary_key())
                    .col(ColumnDef::new(Alias::new("page_id")).uuid().not_null())
                    .col(ColumnDef::new(Alias::new("section_id")).uuid().not_null())
                    .foreign_key(
                        ForeignKey::create()
                            .from(table.clone(), Alias::new("page_id"))
                            .to(Alias::new("contents"), Alias::new("id"))
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create().name("ix_page_section_keys_page").table(table).col(Alias::new("page_id")).to_owned(),
            )
            .await?;
        backfill(manager.get_connection()).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table(Alias::new("page_section_keys")).if_exists().to_owned()).await
    }
}

/// Gives every stored section and section localization an id, and its key.
async fn backfill(db: &SchemaManagerConnection<'_>) -> Result<(), DbErr> {
    let backend = db.get_database_backend();
    let mut after = uuid::Uuid::nil();
    loop {
        let pages = db
            .query_all_raw(Statement::from_sql_and_values(
                backend,
                match backend {
                    sea_orm_migration::sea_orm::DbBackend::Postgres => {
                        "SELECT id, fields FROM contents WHERE kind = 'page' AND id > $1 ORDER BY id LIMIT $2"
                    }
                    _ => "SELECT id, fields FROM contents WHERE kind = 'page' AND id > ? ORDER BY id LIMIT ?",
                },
                [after.into(), (BATCH as i64).into()],
            ))
            .await?;
        let Some(last) = pages.last() else { return Ok(()) };
        after = last.try_get("", "id")?;
        for page in &pages {
            let id: uuid::Uuid = page.try_get("", "id")?;
            let mut fields: serde_json::Value = page.try_get("", "fields")?;
            let keys = give_ids(&mut fields);
            if keys.is_empty() {
                continue;
            }
            let (update, insert) = match backend {
                sea_orm_migration::sea_orm::DbBackend::Postgres => (
                    "UPDATE contents SET fields = $1 WHERE id = $2",
                    "INSERT INTO page_section_keys (id, page_id, section_id) VALUES ($1, $2, $3)",
                ),
                _ => (
                    "UPDATE contents SET fields = ? WHERE id = ?",
                    "INSERT INTO page_section_keys (id, page_id, section_id) VALUES (?, ?, ?)",
                ),
            };
            let values: [DbValue; 2] = [DbValue::Json(Some(Box::new(fields))), id.into()];
            db.execute_raw(Statement::from_sql_and_values(backend, update, values)).await?;
            for (key, section) in keys {
                let values: [DbValue; 3] = [key.into(), id.into(), section.into()];
                db.execute_raw(Statement::from_sql_and_values(backend, insert, values)).await?;
            }
        }
    }
}

/// Ids for the sections (and their localizations) of one page's fields, in
/// place; answers each `(id, section id)`.
fn give_ids(fields: &mut serde_json::Value) -> Vec<(uuid::Uuid, uuid::Uuid)> {
    let mut keys = Vec::new();
    let Some(sections) = fields.get_mut("sections").and_then(|s| s.as_array_mut()) else { return keys };
    for (position, section) in sections.iter_mut().enumerate() {
        let Some(section) = section.as_object_mut() else { continue };
        let section_id = uuid::Uuid::new_v4();
        section.insert("id".into(), serde_json::json!(section_id));
        section.entry("display_order").or_insert(serde_json::json!(position));
        keys.push((section_id, section_id));
        if let Some(texts) = section.get_mut("localizations").and_then(|l| l.as_array_mut()) {
            for text in texts.iter_mut().filter_map(|t| t.as_object_mut()) {
                let id = uuid::Uuid::new_v4();
                text.insert("id".into(), serde_json::json!(id));
                keys.push((id, section_id));
            }
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::give_ids;

    #[test]
    fn stored_sections_get_ids_positions_and_a_key_each() {
        let mut fields = json!({"route": "/x", "sections": [
            {"section_type": "hero", "title": "Hi"},
            {"section_type": "faq", "display_order": 7, "localizations": [{"locale_id": "00000000-0000-0000-0000-000000000001"}]}
        ]});
        let keys = give_ids(&mut fields);
        assert_eq!(keys.len(), 3, "two sections and one text");
        let sections = fields["sections"].as_array().unwrap();
        assert_eq!(sections[0]["display_order"], 0);
        assert_eq!(sections[1]["display_order"], 7, "a stored position stays");
        let section_id = sections[1]["id"].as_str().unwrap();
        let text_id = sections[1]["localizations"][0]["id"].as_str().unwrap();
        assert!(keys.iter().any(|(id, section)| id.to_string() == text_id && section.to_string() == section_id));
        assert!(give_ids(&mut json!({"route": "/y"})).is_empty(), "a page without sections has no keys");
    }
}
