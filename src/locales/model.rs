//! Global locale request and response bodies.

use chrono::Utc;
use plinth_entities::locale;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct LocaleResponse {
    pub id: Uuid,
    /// The locale's code (`de`, `pt-BR`, …).
    pub code: String,
    /// Its English name.
    pub name: String,
    /// Its name in itself.
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
    /// BCP 47 language tag, e.g. `en`, `pt-BR`: 2 or 3 lowercase letters, then `-` subtags of 2 to 8 letters or
    /// digits.
    #[schema(pattern = "^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")]
    pub code: String,
    /// One line of 1 to 100 characters (trimmed), without control characters.
    #[schema(min_length = 1, max_length = 100, pattern = "<line>")]
    pub name: String,
    /// `name` when omitted or blank; else as `name`.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(max_length = 100, pattern = "<optional line>")]
    pub native_name: String,
    /// `ltr` (default) or `rtl`, in any letter case.
    #[serde(default)]
    #[schema(pattern = "^([lL][tT][rR]|[rR][tT][lL])$")]
    pub direction: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateLocale {
    /// As when creating.
    #[schema(pattern = "^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")]
    pub code: Option<String>,
    /// One line of 1 to 100 characters (trimmed), without control characters.
    #[schema(min_length = 1, max_length = 100, pattern = "<line>")]
    pub name: Option<String>,
    /// One line of 1 to 100 characters (trimmed), without control characters.
    #[schema(min_length = 1, max_length = 100, pattern = "<line>")]
    pub native_name: Option<String>,
    /// `ltr` or `rtl`, in any letter case.
    #[schema(pattern = "^([lL][tT][rR]|[rR][tT][lL])$")]
    pub direction: Option<String>,
}
