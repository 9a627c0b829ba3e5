//! AI assist: each site's provider settings (an OpenAI-compatible endpoint,
//! its models, the API key sealed under a server secret) and its usage
//! counters.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("ai_settings")
                    .col(uuid("site_id").primary_key())
                    // a label: every provider is called through the chat-completions API
                    .col(string("provider"))
                    .col(string("base_url"))
                    .col(string("model"))
                    .col(string_null("vision_model"))
                    // base64(nonce ‖ XChaCha20-Poly1305 ciphertext) under the server secret `ai_settings_key`
                    .col(text_null("api_key_sealed"))
                    .col(double_null("temperature"))
                    .col(integer_null("max_tokens"))
                    .col(integer("timeout_secs"))
                    .col(big_integer("tokens_used").default(0))
                    .col(big_integer("requests").default(0))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("ai_settings", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("ai_settings").if_exists().to_owned()).await
    }
}
