//! Wire shapes of folders (the same for both libraries).

use chrono::{DateTime, Utc};
use plinth_entities::folder;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::values::double_option;

/// A folder of a site's media or document library.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MediaFolderResponse {
    pub id: Uuid,
    /// The site it belongs to.
    pub site_id: Uuid,
    /// The parent folder; null at the top.
    pub parent_id: Option<Uuid>,
    /// The folder's name.
    pub name: String,
    /// Position among its siblings, ascending.
    pub display_order: i32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&folder::Model> for MediaFolderResponse {
    fn from(f: &folder::Model) -> Self {
        Self {
            id: f.id,
            site_id: f.site_id,
            parent_id: f.parent_id,
            name: f.name.clone(),
            display_order: f.display_order,
            created_at: f.created_at,
            updated_at: f.updated_at,
        }
    }
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateMediaFolder {
    /// One line of 1 to 100 characters (trimmed), without control characters.
    #[schema(min_length = 1, max_length = 100, pattern = "<line>")]
    pub name: String,
    /// A folder of the same site and library (folders nest at most 32 deep); null for the top.
    pub parent_id: Option<Uuid>,
    /// Position among its siblings, ascending (default 0).
    #[serde(default)]
    pub display_order: i32,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateMediaFolder {
    /// One line of 1 to 100 characters (trimmed), without control characters.
    #[schema(min_length = 1, max_length = 100, pattern = "<line>")]
    pub name: Option<String>,
    /// A folder of the same site and library, not this one or one below it (at most 32 deep); `null` moves
    /// it to the top.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>)]
    pub parent_id: Option<Option<Uuid>>,
    /// Position among its siblings, ascending.
    pub display_order: Option<i32>,
}
