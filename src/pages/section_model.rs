//! The shapes of a page's sections as the origin service's admin reads and
//! writes them one by one.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::content::model::{PageSection, SectionLocalization};
use crate::values::double_option;

/// One section of a page.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SectionResponse {
    /// The page.
    pub page_id: Uuid,
    #[serde(flatten)]
    pub section: PageSection,
}

/// One section's text in one locale.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SectionLocalizationResponse {
    /// The section.
    pub page_section_id: Uuid,
    #[serde(flatten)]
    pub text: SectionLocalization,
}

/// Only the fields sent change; `null` clears the nullable ones.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateSection {
    /// At most 100 characters.
    #[schema(max_length = 100)]
    pub section_type: Option<String>,
    /// 0 to 9999; the sections are kept in this order.
    #[schema(minimum = 0, maximum = 9999)]
    pub display_order: Option<i32>,
    /// At most 500 characters.
    #[schema(max_length = 500)]
    pub title: Option<String>,
    /// At most 100,000 characters.
    #[schema(max_length = 100000)]
    pub body: Option<String>,
    /// A media file; null for none.
    #[serde(default, deserialize_with = "double_option")]
    pub cover_image_id: Option<Option<Uuid>>,
    /// At most 500 characters; null for none.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(max_length = 500)]
    pub call_to_action_route: Option<Option<String>>,
    /// A JSON object, at most 16 KiB and 5 levels deep; null for none.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Object>)]
    pub settings: Option<Option<Value>>,
}

impl UpdateSection {
    /// Lays the fields sent over `section`.
    pub fn apply(self, section: &mut PageSection) {
        if let Some(section_type) = self.section_type {
            section.section_type = section_type;
        }
        if let Some(order) = self.display_order {
            section.display_order = Some(order);
        }
        if let Some(title) = self.title {
            section.title = title;
        }
        if let Some(body) = self.body {
            section.body = body;
        }
        if let Some(cover) = self.cover_image_id {
            section.cover_image_id = cover;
        }
        if let Some(route) = self.call_to_action_route {
            section.call_to_action_route = route;
        }
        if let Some(settings) = self.settings {
            section.settings = settings;
        }
    }
}

/// A section's text in one locale, replaced whole (fields not sent are null).
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct UpsertSectionLocalization {
    /// A locale of one of the page's sites, by UUID or code (`de`); the
    /// section's text in it is replaced, or added when it has none.
    pub locale_id: crate::values::LocaleName,
    /// At most 500 characters.
    #[schema(max_length = 500)]
    pub title: Option<String>,
    /// At most 100,000 characters.
    #[schema(max_length = 100000)]
    pub text: Option<String>,
    /// At most 200 characters.
    #[schema(max_length = 200)]
    pub button_text: Option<String>,
}

/// One section's new position.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct SectionOrder {
    /// A section of the page.
    pub id: Uuid,
    /// Its new position, 0 to 9999.
    #[schema(minimum = 0, maximum = 9999)]
    pub display_order: i32,
}

/// `{"items": [{id, display_order}, …]}`: the sections named move, the
/// others keep their positions.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct ReorderSections {
    /// At most 1,000 sections, each named once.
    #[schema(max_items = 1000)]
    pub items: Vec<SectionOrder>,
}
