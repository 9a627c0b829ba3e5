use sea_orm::entity::prelude::*;

/// A site's AI provider settings and usage counters.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "ai_settings")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub site_id: Uuid,
    /// A label (`openai`, `ollama`, …); every provider speaks chat completions.
    pub provider: String,
    /// The API root that `/chat/completions` is appended to.
    pub base_url: String,
    pub model: String,
    /// For alt text and tags; `model` when unset.
    pub vision_model: Option<String>,
    /// base64(nonce ‖ ciphertext): the API key sealed under a server secret.
    pub api_key_sealed: Option<String>,
    pub temperature: Option<f64>,
    pub max_tokens: Option<i32>,
    pub timeout_secs: i32,
    /// The site's own instructions per content-assist action (`seo`,
    /// `excerpt`, …): a JSON object of strings; null for the defaults.
    pub system_prompts: Option<Json>,
    /// Sum of the provider's `usage.total_tokens`.
    pub tokens_used: i64,
    /// Calls the provider answered.
    pub requests: i64,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
