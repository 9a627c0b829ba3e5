//! A site's effective settings, as the site cache holds them: the spec's
//! defaults with the site's stored overrides laid over them. Editing them is
//! the sites family's (`sites::settings`).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::{ApiError, ApiResult};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RobotsRule {
    /// `Allow` or `Disallow`.
    pub directive: String,
    pub path: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RobotsRuleGroup {
    pub user_agent: String,
    pub rules: Vec<RobotsRule>,
}

/// A preview link template; `{slug}` and `{locale}` in `url` are replaced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PreviewTemplate {
    pub name: String,
    pub url: String,
}

/// SiteSettingsResponse: the effective settings of a site.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SiteSettings {
    pub max_document_file_size: i64,
    pub max_media_file_size: i64,
    pub analytics_enabled: bool,
    pub maintenance_mode: bool,
    pub contact_email: String,
    pub editorial_workflow_enabled: bool,
    pub preview_templates: Vec<PreviewTemplate>,
    pub module_blog_enabled: bool,
    pub module_pages_enabled: bool,
    pub module_portfolio_enabled: bool,
    pub module_legal_enabled: bool,
    pub module_documents_enabled: bool,
    pub module_ai_enabled: bool,
    pub module_forms_enabled: bool,
    pub robots_txt_rules: Vec<RobotsRuleGroup>,
    pub seo_title_template: String,
    pub seo_default_description: String,
    pub seo_default_og_image_id: Option<Uuid>,
    pub theme_color: String,
    pub background_color: String,
    pub code_injection_head: String,
    pub code_injection_footer: String,
}

impl SiteSettings {
    /// MODULE_NOT_ENABLED unless the documents module is on.
    pub fn require_documents(&self) -> ApiResult<()> {
        if self.module_documents_enabled {
            Ok(())
        } else {
            Err(ApiError::new(
                crate::error::ErrorCode::ModuleNotEnabled,
                "the documents module is not enabled for this site (module_documents_enabled)",
            ))
        }
    }

    /// MODULE_NOT_ENABLED unless the AI module is on.
    pub fn require_ai(&self) -> ApiResult<()> {
        if self.module_ai_enabled {
            Ok(())
        } else {
            Err(ApiError::new(
                crate::error::ErrorCode::ModuleNotEnabled,
                "the AI module is not enabled for this site (module_ai_enabled)",
            ))
        }
    }
}

impl Default for SiteSettings {
    /// The spec's defaults, as an unconfigured site reflects them.
    fn default() -> Self {
        Self {
            max_document_file_size: 10_485_760,
            max_media_file_size: 52_428_800,
            analytics_enabled: false,
            maintenance_mode: false,
            contact_email: String::new(),
            editorial_workflow_enabled: false,
            preview_templates: Vec::new(),
            module_blog_enabled: true,
            module_pages_enabled: true,
            module_portfolio_enabled: false,
            module_legal_enabled: false,
            module_documents_enabled: false,
            module_ai_enabled: false,
            module_forms_enabled: false,
            robots_txt_rules: vec![RobotsRuleGroup {
                user_agent: "*".into(),
                rules: vec![RobotsRule { directive: "Allow".into(), path: "/".into() }],
            }],
            seo_title_template: "{{title}} | {{site_name}}".into(),
            seo_default_description: String::new(),
            seo_default_og_image_id: None,
            theme_color: "#ffffff".into(),
            background_color: "#ffffff".into(),
            code_injection_head: String::new(),
            code_injection_footer: String::new(),
        }
    }
}

impl SiteSettings {
    /// Defaults with `overrides` (a JSON object of stored fields) laid over them.
    /// Stored fields this version no longer knows are ignored.
    pub fn effective(overrides: Option<&Value>) -> ApiResult<Self> {
        let mut merged = match serde_json::to_value(Self::default()) {
            Ok(Value::Object(map)) => map,
            _ => return Err(ApiError::internal("settings defaults are not an object")),
        };
        if let Some(Value::Object(stored)) = overrides {
            for (key, value) in stored {
                if merged.contains_key(key) {
                    merged.insert(key.clone(), value.clone());
                }
            }
        }
        serde_json::from_value(Value::Object(merged))
            .map_err(|e| ApiError::internal(format!("stored settings are invalid: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn effective_settings_lay_overrides_over_defaults() -> ApiResult<()> {
        let s = SiteSettings::effective(Some(&json!({"analytics_enabled": true, "retired_field": 1})))?;
        assert!(s.analytics_enabled);
        assert_eq!(s.max_media_file_size, 52_428_800);
        assert_eq!(s.seo_title_template, "{{title}} | {{site_name}}");
        assert_eq!(SiteSettings::effective(None)?, SiteSettings::default());
        Ok(())
    }
}
