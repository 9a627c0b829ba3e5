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
    #[schema(pattern = "^(Allow|Disallow)$")]
    pub directive: String,
    /// A path starting with `/`, without whitespace.
    #[schema(pattern = "<path>")]
    pub path: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RobotsRuleGroup {
    /// The `User-agent` the rules apply to (`*` for all): one non-empty line.
    pub user_agent: String,
    /// The group's `Allow` and `Disallow` lines, in order.
    pub rules: Vec<RobotsRule>,
}

/// A preview link template; `{slug}` and `{locale}` in `url` are replaced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PreviewTemplate {
    /// The template's name (not blank).
    #[schema(min_length = 1, pattern = "\\S")]
    pub name: String,
    /// An absolute http(s) URL with a host, or a path starting with `/`.
    #[schema(pattern = "<link>")]
    pub url: String,
}

/// SiteSettingsResponse: the effective settings of a site.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SiteSettings {
    /// Largest document upload, in bytes (default 10 MiB).
    pub max_document_file_size: i64,
    /// Largest media upload, in bytes (default 50 MiB).
    pub max_media_file_size: i64,
    /// Page views are collected (default false).
    pub analytics_enabled: bool,
    /// A flag for the front end: the site is in maintenance (default false); the API serves as usual.
    pub maintenance_mode: bool,
    /// The site's contact address; empty for none.
    pub contact_email: String,
    /// Content needs review before it is published (default false).
    pub editorial_workflow_enabled: bool,
    /// Preview link templates.
    pub preview_templates: Vec<PreviewTemplate>,
    /// Blog posts (default on).
    pub module_blog_enabled: bool,
    /// Pages (default on).
    pub module_pages_enabled: bool,
    /// Projects, CV entries and skills (default off).
    pub module_portfolio_enabled: bool,
    /// Legal documents (default off).
    pub module_legal_enabled: bool,
    /// Documents (default off).
    pub module_documents_enabled: bool,
    /// AI assist (default off).
    pub module_ai_enabled: bool,
    /// Forms (default off).
    pub module_forms_enabled: bool,
    /// What `robots.txt` says, by user agent (default: allow everything).
    pub robots_txt_rules: Vec<RobotsRuleGroup>,
    /// Template of page titles for the front end (default `{{title}} | {{site_name}}`).
    pub seo_title_template: String,
    /// Meta description where an item has none.
    pub seo_default_description: String,
    /// Media file used as the social-card image where an item has none.
    pub seo_default_og_image_id: Option<Uuid>,
    /// `#rrggbb` or `#rgb`, lowercase (default `#ffffff`).
    pub theme_color: String,
    /// `#rrggbb` or `#rgb`, lowercase (default `#ffffff`).
    pub background_color: String,
    /// Markup the front end puts into each page's `<head>`.
    pub code_injection_head: String,
    /// Markup the front end puts at the end of each page.
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
