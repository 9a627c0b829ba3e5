//! Site settings. Only overridden fields are stored; the effective settings are
//! the spec's defaults with the overrides laid over them.

use chrono::{DateTime, Utc};
use plinth_entities::site_setting;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, EntityTrait};
use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::audit::{self, Action, Actor, AuditEntry};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::state::site_settings::{PreviewTemplate, RobotsRuleGroup, SiteSettings};
use crate::state::AppState;
use crate::values::{double_option, is_email, parse_hex_color};

/// Every field optional; only the given ones change. `null` clears
/// `seo_default_og_image_id`.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateSiteSettings {
    /// Largest document upload, in bytes: 1 to 5 GiB.
    #[schema(minimum = 1, maximum = 5_368_709_120_i64)]
    pub max_document_file_size: Option<i64>,
    /// Largest media upload, in bytes: 1 to 5 GiB.
    #[schema(minimum = 1, maximum = 5_368_709_120_i64)]
    pub max_media_file_size: Option<i64>,
    /// Collect page views.
    pub analytics_enabled: Option<bool>,
    /// A flag for the front end; the API serves as usual.
    pub maintenance_mode: Option<bool>,
    /// An e-mail address (trimmed), or empty for none.
    pub contact_email: Option<String>,
    /// Content needs review before it is published.
    pub editorial_workflow_enabled: Option<bool>,
    /// Replaces the preview templates: each a non-blank `name` and a `url` that is an http(s) URL with a host or a path starting with `/`.
    pub preview_templates: Option<Vec<PreviewTemplate>>,
    /// Blog posts.
    pub module_blog_enabled: Option<bool>,
    /// Pages.
    pub module_pages_enabled: Option<bool>,
    /// Projects, CV entries and skills.
    pub module_portfolio_enabled: Option<bool>,
    /// Legal documents.
    pub module_legal_enabled: Option<bool>,
    /// Documents.
    pub module_documents_enabled: Option<bool>,
    /// AI assist.
    pub module_ai_enabled: Option<bool>,
    /// Forms.
    pub module_forms_enabled: Option<bool>,
    /// Federation (ActivityPub), a module of the origin service's admin, is not offered by this server: `false` is
    /// accepted and changes nothing, `true` is 422 (not silently dropped). Not among the settings answered.
    pub module_federation_enabled: Option<bool>,
    /// Replaces the robots.txt groups: each `user_agent` one non-empty line, each rule `Allow` or `Disallow` with a path starting with `/`.
    pub robots_txt_rules: Option<Vec<RobotsRuleGroup>>,
    /// Template of page titles for the front end. Free text.
    pub seo_title_template: Option<String>,
    /// Meta description where an item has none. Free text.
    pub seo_default_description: Option<String>,
    /// Media file used as the social-card image; `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>)]
    pub seo_default_og_image_id: Option<Option<Uuid>>,
    /// `#rgb` or `#rrggbb` (any letter case; stored lowercase).
    #[schema(pattern = "^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")]
    pub theme_color: Option<String>,
    /// `#rgb` or `#rrggbb` (any letter case; stored lowercase).
    #[schema(pattern = "^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")]
    pub background_color: Option<String>,
    /// Markup for each page's `<head>`, stored as given.
    pub code_injection_head: Option<String>,
    /// Markup for the end of each page, stored as given.
    pub code_injection_footer: Option<String>,
}

/// Largest accepted per-site file size limit: 5 GiB.
const MAX_FILE_SIZE_LIMIT: i64 = 5 * 1024 * 1024 * 1024;

impl UpdateSiteSettings {
    /// Checks every given field and returns them, normalized, as a JSON object.
    fn into_overrides(self) -> Result<Map<String, Value>, Vec<FieldError>> {
        let mut errors = Vec::new();
        let mut out = Map::new();
        let mut put = |key: &str, value: Value| {
            out.insert(key.to_string(), value);
        };
        for (field, size) in
            [("max_document_file_size", self.max_document_file_size), ("max_media_file_size", self.max_media_file_size)]
        {
            if let Some(size) = size {
                if (1..=MAX_FILE_SIZE_LIMIT).contains(&size) {
                    put(field, size.into());
                } else {
                    errors.push(FieldError::new(
                        field,
                        ErrorCode::ValidationOutOfRange,
                        format!("must be between 1 and {MAX_FILE_SIZE_LIMIT} bytes"),
                    ));
                }
            }
        }
        for (field, flag) in [
            ("analytics_enabled", self.analytics_enabled),
            ("maintenance_mode", self.maintenance_mode),
            ("editorial_workflow_enabled", self.editorial_workflow_enabled),
            ("module_blog_enabled", self.module_blog_enabled),
            ("module_pages_enabled", self.module_pages_enabled),
            ("module_portfolio_enabled", self.module_portfolio_enabled),
            ("module_legal_enabled", self.module_legal_enabled),
            ("module_documents_enabled", self.module_documents_enabled),
            ("module_ai_enabled", self.module_ai_enabled),
            ("module_forms_enabled", self.module_forms_enabled),
        ] {
            if let Some(flag) = flag {
                put(field, flag.into());
            }
        }
        // The origin's admin saves every module flag at once, federation's too.
        if self.module_federation_enabled == Some(true) {
            errors.push(FieldError::new(
                "module_federation_enabled",
                ErrorCode::ValidationInvalidFormat,
                "federation (ActivityPub) is not offered by this server",
            ));
        }
        if let Some(email) = self.contact_email {
            let email = email.trim().to_string();
            if email.is_empty() || is_email(&email) {
                put("contact_email", email.into());
            } else {
                errors.push(FieldError::new(
                    "contact_email",
                    ErrorCode::ValidationInvalidFormat,
                    "must be an e-mail address or empty",
                ));
            }
        }
        for (field, color) in [("theme_color", self.theme_color), ("background_color", self.background_color)] {
            if let Some(color) = color {
                match parse_hex_color(field, &color) {
                    Ok(c) => put(field, c.into()),
                    Err(e) => errors.push(e),
                }
            }
        }
        if let Some(templates) = self.preview_templates {
            for (i, t) in templates.iter().enumerate() {
                if t.name.trim().is_empty() {
                    errors.push(FieldError::new(
                        format!("preview_templates[{i}].name"),
                        ErrorCode::ValidationRequiredField,
                        "must not be empty",
                    ));
                }
                if let Err(e) = crate::values::link_target(&format!("preview_templates[{i}].url"), &t.url, true) {
                    errors.push(e);
                }
            }
            put("preview_templates", serde_json::to_value(templates).unwrap_or_default());
        }
        if let Some(groups) = self.robots_txt_rules {
            for (i, group) in groups.iter().enumerate() {
                if group.user_agent.trim().is_empty() || group.user_agent.contains('\n') {
                    errors.push(FieldError::new(
                        format!("robots_txt_rules[{i}].user_agent"),
                        ErrorCode::ValidationInvalidFormat,
                        "must be one non-empty line",
                    ));
                }
                for (j, rule) in group.rules.iter().enumerate() {
                    if !matches!(rule.directive.as_str(), "Allow" | "Disallow") {
                        errors.push(FieldError::new(
                            format!("robots_txt_rules[{i}].rules[{j}].directive"),
                            ErrorCode::ValidationInvalidFormat,
                            "must be Allow or Disallow",
                        ));
                    }
                    if !rule.path.starts_with('/') || rule.path.contains(char::is_whitespace) {
                        errors.push(FieldError::new(
                            format!("robots_txt_rules[{i}].rules[{j}].path"),
                            ErrorCode::ValidationInvalidFormat,
                            "must be a path starting with /",
                        ));
                    }
                }
            }
            put("robots_txt_rules", serde_json::to_value(groups).unwrap_or_default());
        }
        for (field, text) in [
            ("seo_title_template", self.seo_title_template),
            ("seo_default_description", self.seo_default_description),
            ("code_injection_head", self.code_injection_head),
            ("code_injection_footer", self.code_injection_footer),
        ] {
            if let Some(text) = text {
                put(field, text.into());
            }
        }
        if let Some(image) = self.seo_default_og_image_id {
            put("seo_default_og_image_id", image.map(|id| id.to_string()).into());
        }
        if errors.is_empty() {
            Ok(out)
        } else {
            Err(errors)
        }
    }
}

/// Lays the given fields over the stored overrides, with its audit entry, and
/// answers with the full effective settings.
pub async fn update(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    site_id: Uuid,
    body: UpdateSiteSettings,
) -> ApiResult<SiteSettings> {
    let before = state.site_state(site_id).await?.settings.clone();
    let changes = body.into_overrides().map_err(ApiError::validation)?;

    audit::write(&state.db, async |txn| {
        let stored = site_setting::Entity::find_by_id(site_id).one(txn).await?;
        let mut overrides = match stored.as_ref().map(|s| &s.overrides) {
            Some(Value::Object(map)) => map.clone(),
            _ => Map::new(),
        };
        overrides.extend(changes);
        let after = SiteSettings::effective(Some(&Value::Object(overrides.clone())))?;
        let row = site_setting::ActiveModel {
            site_id: Set(site_id),
            overrides: Set(Value::Object(overrides)),
            updated_at: Set(now),
        };
        if stored.is_some() {
            row.update(txn).await?;
        } else {
            row.insert(txn).await?;
        }
        let entry = AuditEntry {
            actor,
            action: Action::Update,
            entity_type: "site_settings",
            entity_id: site_id.to_string(),
            site_id: Some(site_id),
        };
        audit::record(txn, now, entry, &before, &after).await?;
        Ok(after)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updates_are_validated_field_by_field() {
        let update = UpdateSiteSettings {
            theme_color: Some("red".into()),
            max_media_file_size: Some(0),
            contact_email: Some("nope".into()),
            ..Default::default()
        };
        let errors = update.into_overrides().err().unwrap_or_default();
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["max_media_file_size", "contact_email", "theme_color"]);
    }
}
