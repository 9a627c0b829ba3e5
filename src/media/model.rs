//! Wire shapes of the media library.

use chrono::{DateTime, Utc};
use plinth_entities::{media_file, media_metadata, media_variant};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::values::double_option;

/// A resized copy of an image.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MediaVariantResponse {
    pub id: Uuid,
    /// `thumbnail` (square, 150), `small` (480), `medium` (1024), `large` (1920):
    /// the longest edge in pixels, never larger than the original.
    pub variant_name: String,
    pub width: i32,
    pub height: i32,
    pub file_size: i64,
    pub mime_type: String,
    pub public_url: String,
}

/// A file of the media library with its variants.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MediaResponse {
    pub id: Uuid,
    pub filename: String,
    pub original_filename: String,
    /// Detected from the content at upload.
    pub mime_type: String,
    pub file_size: i64,
    /// `local` or `s3` for uploaded files, `external` for records of files elsewhere.
    pub storage_provider: String,
    /// Where the file is served (uploads) or lives (external records).
    pub public_url: Option<String>,
    /// SHA-256 of the uploaded bytes (hex).
    pub checksum: Option<String>,
    pub width: Option<i32>,
    pub height: Option<i32>,
    pub duration: Option<i32>,
    /// A ~25-byte placeholder to paint before the image loads (base64 ThumbHash).
    pub thumbhash: Option<String>,
    /// The image's average colour, `#rrggbb`.
    pub dominant_color: Option<String>,
    /// Focal point (0..1 from the left and top) the square thumbnail is cropped around.
    pub focal_x: Option<f64>,
    pub focal_y: Option<f64>,
    pub tags: Vec<String>,
    pub is_global: bool,
    pub folder_id: Option<Uuid>,
    pub site_ids: Vec<Uuid>,
    pub is_deleted: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub variants: Vec<MediaVariantResponse>,
}

impl MediaResponse {
    pub fn new(
        file: &media_file::Model,
        site_ids: Vec<Uuid>,
        variants: &[media_variant::Model],
        base: &str,
        provider: &str,
    ) -> Self {
        let public_url = match (&file.storage_key, &file.external_url) {
            (Some(key), _) => Some(super::files::url_of(base, key)),
            (None, url) => url.clone(),
        };
        let mut variants: Vec<_> = variants
            .iter()
            .map(|v| MediaVariantResponse {
                id: v.id,
                variant_name: v.variant_name.clone(),
                width: v.width,
                height: v.height,
                file_size: v.file_size,
                mime_type: v.mime_type.clone(),
                public_url: super::files::url_of(base, &v.storage_key),
            })
            .collect();
        variants.sort_by_key(|v| v.width * v.height);
        Self {
            id: file.id,
            filename: file.filename.clone(),
            original_filename: file.original_filename.clone(),
            mime_type: file.mime_type.clone(),
            file_size: file.file_size,
            storage_provider: if file.storage_key.is_some() { provider.to_string() } else { "external".into() },
            public_url,
            checksum: file.checksum.clone(),
            width: file.width,
            height: file.height,
            duration: file.duration,
            thumbhash: file.thumbhash.clone(),
            dominant_color: file.dominant_color.clone(),
            focal_x: file.focal_x,
            focal_y: file.focal_y,
            tags: serde_json::from_value(file.tags.clone()).unwrap_or_default(),
            is_global: file.is_global,
            folder_id: file.folder_id,
            site_ids,
            is_deleted: file.is_deleted,
            created_at: file.created_at,
            updated_at: file.updated_at,
            variants,
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MediaListQuery {
    #[param(schema_with = crate::pagination::page_number_schema)]
    pub page: Option<u64>,
    /// Items per page (default 10, at most 100). Also accepted as `page_size`.
    #[serde(alias = "page_size")]
    #[param(schema_with = crate::pagination::per_page_schema)]
    pub per_page: Option<u32>,
    /// Matches filename, alt text, caption and title.
    pub search: Option<String>,
    /// `image`, `video`, `audio` or `document` (`application/pdf` and `text/*`); anything else is
    /// VALIDATION_INVALID_FORMAT.
    #[param(schema_with = mime_categories)]
    pub mime_category: Option<String>,
    pub folder_id: Option<Uuid>,
}

/// A record of a file stored elsewhere (`POST /media`).
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateMedia {
    #[schema(min_length = 1, max_length = 255)]
    pub filename: String,
    /// Defaults to `filename`.
    pub original_filename: Option<String>,
    /// Defaults to the type the filename's extension names.
    pub mime_type: Option<String>,
    pub file_size: Option<i64>,
    /// Where the file is (http or https).
    pub public_url: Option<String>,
    /// Accepted for compatibility; a URL here is used as `public_url`.
    pub storage_path: Option<String>,
    /// Accepted for compatibility and ignored (the record is `external`).
    pub storage_provider: Option<String>,
    pub width: Option<i32>,
    pub height: Option<i32>,
    pub duration: Option<i32>,
    #[serde(default)]
    pub is_global: bool,
    pub folder_id: Option<Uuid>,
    #[schema(min_items = 1)]
    pub site_ids: Vec<Uuid>,
    #[schema(max_items = 20)]
    pub tags: Option<Vec<String>>,
}

/// Fields to change; omitted ones stay. `folder_id: null` takes the file out of its folder.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateMedia {
    pub filename: Option<String>,
    /// External records only.
    pub public_url: Option<String>,
    pub is_global: Option<bool>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>)]
    pub folder_id: Option<Option<Uuid>>,
    /// At most 20 tags of 1-50 characters (letters, digits, space, `-`, `_`).
    pub tags: Option<Vec<String>>,
    /// 0..1; `null` resets to the centre. Re-crops the thumbnail.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<f64>)]
    pub focal_x: Option<Option<f64>>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<f64>)]
    pub focal_y: Option<Option<f64>>,
}

#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DeleteMediaQuery {
    /// Delete even when content still refers to the file (it still goes to the trash).
    pub force: Option<bool>,
}

/// One place a file is used.
#[derive(Clone, Debug, Serialize, ToSchema, PartialEq, Eq)]
pub struct MediaReference {
    /// `blog`, `page`, or `site` (logo, favicon).
    pub content_type: String,
    pub content_id: Uuid,
    pub title: String,
    /// `cover_image`, `header_image`, `section_cover`, `attachment`, `logo`, `favicon`.
    pub usage: String,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MediaUsage {
    pub usage_count: u64,
    pub references: Vec<MediaReference>,
}

/// Alt text, caption and title in one locale.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MediaMetadataResponse {
    pub id: Uuid,
    pub media_id: Uuid,
    pub locale_id: Uuid,
    pub alt_text: Option<String>,
    pub caption: Option<String>,
    pub title: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&media_metadata::Model> for MediaMetadataResponse {
    fn from(m: &media_metadata::Model) -> Self {
        Self {
            id: m.id,
            media_id: m.media_id,
            locale_id: m.locale_id,
            alt_text: m.alt_text.clone(),
            caption: m.caption.clone(),
            title: m.title.clone(),
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateMediaMetadata {
    pub locale_id: Uuid,
    /// At most 500 characters.
    pub alt_text: Option<String>,
    /// At most 1000 characters.
    pub caption: Option<String>,
    /// At most 200 characters.
    pub title: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateMediaMetadata {
    pub alt_text: Option<String>,
    pub caption: Option<String>,
    pub title: Option<String>,
}

/// A site's favicon package.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct FaviconVariant {
    pub name: String,
    pub url: String,
    pub width: u32,
    pub height: u32,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct FaviconPackage {
    pub variants: Vec<FaviconVariant>,
    /// `<link>` tags for a page's `<head>`.
    pub head_snippet: String,
}

/// The multipart form of `POST /media/upload`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct UploadMediaForm {
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
    /// JSON array of site UUIDs, e.g. `["5f0c…"]`.
    pub site_ids: String,
    pub folder_id: Option<Uuid>,
    /// Default false.
    pub is_global: Option<bool>,
}

/// The multipart form of `POST /sites/{site_id}/favicon`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct UploadFaviconForm {
    /// PNG, JPEG, GIF or WebP, at most 10 MB; 512x512 or larger recommended.
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
}

fn mime_categories() -> utoipa::openapi::Object {
    crate::values::one_of(&["image", "video", "audio", "document"])
}
