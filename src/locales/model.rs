//! Global locale request and response bodies.

use chrono::Utc;
use plinth_entities::locale;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct LocaleResponse {
    pub id: Uuid,
    pub code: String,
    pub name: String,
    pub native_name: String,
    /// `ltr` or `rtl`.
    pub direction: String,
    pub created_at: chrono::DateTime<Utc>,
}

impl From<&locale::Model> for LocaleResponse {
    fn from(m: &locale::Model) -> Self {
        Self {
            id: m.id,
            code: m.code.clone(),
            name: m.name.clone(),
            native_name: m.native_name.clone(),
            direction: m.direction.clone(),
            created_at: m.created_at,
        }
    }
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateLocale {
    /// BCP 47 language tag, e.g. `en`, `pt-BR`.
    pub code: String,
    pub name: String,
    /// `name` when omitted.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub native_name: String,
    /// `ltr` (default) or `rtl`, in any letter case.
    #[serde(default)]
    pub direction: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateLocale {
    pub code: Option<String>,
    pub name: Option<String>,
    pub native_name: Option<String>,
    pub direction: Option<String>,
}
