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
    /// Width in pixels.
    pub width: i32,
    /// Height in pixels.
    pub height: i32,
    /// Size in bytes.
    pub file_size: i64,
    /// The variant's type (`image/webp`, …).
    pub mime_type: String,
    /// Where the variant is served.
    pub public_url: String,
}

/// A file of the media library with its variants.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MediaResponse {
    pub id: Uuid,
    /// The stored name (the client's name with the extension of the detected type).
    pub filename: String,
    /// The name as the client sent it.
    pub original_filename: String,
    /// Detected from the content at upload.
    pub mime_type: String,
    /// Size in bytes.
    pub file_size: i64,
    /// `local` or `s3` for uploaded files, `external` for records of files elsewhere.
    pub storage_provider: String,
    /// Where the file is served (uploads) or lives (external records).
    pub public_url: Option<String>,
    /// SHA-256 of the uploaded bytes (hex).
    pub checksum: Option<String>,
    /// Width in pixels (images; external records as given); null when unknown.
    pub width: Option<i32>,
    /// Height in pixels; null when unknown.
    pub height: Option<i32>,
    /// Length in seconds (external audio and video records, as given); null when unknown.
    pub duration: Option<i32>,
    /// A ~25-byte placeholder to paint before the image loads (base64 ThumbHash).
    pub thumbhash: Option<String>,
    /// The image's average colour, `#rrggbb`.
    pub dominant_color: Option<String>,
    /// Focal point (0..1 from the left and top) the square thumbnail is cropped around.
    pub focal_x: Option<f64>,
    /// Focal point from the top, 0..1; null for the centre.
    pub focal_y: Option<f64>,
    /// Its tags.
    pub tags: Vec<String>,
    /// Shared with every site.
    pub is_global: bool,
    /// Its media folder; null for none.
    pub folder_id: Option<Uuid>,
    /// The sites it belongs to.
    pub site_ids: Vec<Uuid>,
    /// In the trash.
    pub is_deleted: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Resized copies (raster images).
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
    /// Only files in this folder.
    pub folder_id: Option<Uuid>,
}

/// A record of a file stored elsewhere (`POST /media`).
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateMedia {
    /// The file's name: one line of 1 to 255 characters (trimmed) without `/`
    /// or `\`.
    #[schema(min_length = 1, max_length = 255)]
    pub filename: String,
    /// Defaults to `filename`.
    pub original_filename: Option<String>,
    /// Defaults to the type the filename's extension names.
    pub mime_type: Option<String>,
    /// Size in bytes, not negative (default 0).
    pub file_size: Option<i64>,
    /// Where the file is (http or https).
    pub public_url: Option<String>,
    /// Accepted for compatibility; a URL here is used as `public_url`.
    pub storage_path: Option<String>,
    /// Accepted for compatibility and ignored (the record is `external`).
    pub storage_provider: Option<String>,
    /// Width in pixels, not negative.
    pub width: Option<i32>,
    /// Height in pixels, not negative.
    pub height: Option<i32>,
    /// Length in seconds, not negative.
    pub duration: Option<i32>,
    /// Share with every site (default false).
    #[serde(default)]
    pub is_global: bool,
    /// A media folder of one of the sites.
    pub folder_id: Option<Uuid>,
    /// The sites it belongs to: at least one, each existing.
    #[schema(min_items = 1)]
    pub site_ids: Vec<Uuid>,
    /// At most 20 tags of 1-50 characters (letters, digits, space, `-`, `_`), trimmed; repeats (any letter case) count once.
    #[schema(max_items = 20)]
    pub tags: Option<Vec<String>>,
}

/// Fields to change; omitted ones stay. `folder_id: null` takes the file out of its folder.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateMedia {
    /// One line of 1 to 255 characters without `/` or `\`.
    pub filename: Option<String>,
    /// External records only.
    pub public_url: Option<String>,
    /// Share with every site.
    pub is_global: Option<bool>,
    /// A media folder of one of its sites; `null` takes it out of its folder.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>)]
    pub folder_id: Option<Option<Uuid>>,
    /// At most 20 tags of 1-50 characters (letters, digits, space, `-`, `_`).
    pub tags: Option<Vec<String>>,
    /// 0..1; `null` resets to the centre. Re-crops the thumbnail.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<f64>)]
    pub focal_x: Option<Option<f64>>,
    /// 0..1 from the top; `null` resets to the centre.
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
    /// The id of the item (or site) using it.
    pub content_id: Uuid,
    /// The item's title (or the site's name).
    pub title: String,
    /// `cover_image`, `header_image`, `section_cover`, `attachment`, `logo`, `favicon`.
    pub usage: String,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MediaUsage {
    /// How many places use it.
    pub usage_count: u64,
    /// Those places.
    pub references: Vec<MediaReference>,
}

/// Alt text, caption and title in one locale.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MediaMetadataResponse {
    pub id: Uuid,
    /// The media file.
    pub media_id: Uuid,
    /// The global locale the texts are in.
    pub locale_id: Uuid,
    /// Alternative text; null when unset.
    pub alt_text: Option<String>,
    /// Caption; null when unset.
    pub caption: Option<String>,
    /// Title; null when unset.
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
    /// A global locale, by UUID or code (`de`); one record per file and locale.
    pub locale_id: crate::values::LocaleName,
    /// At most 500 characters (trimmed); empty for none.
    #[schema(max_length = 500)]
    pub alt_text: Option<String>,
    /// At most 1000 characters (trimmed); empty for none.
    #[schema(max_length = 1000)]
    pub caption: Option<String>,
    /// At most 200 characters (trimmed); empty for none.
    #[schema(max_length = 200)]
    pub title: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateMediaMetadata {
    /// At most 500 characters (trimmed); empty clears it.
    #[schema(max_length = 500)]
    pub alt_text: Option<String>,
    /// At most 1000 characters (trimmed); empty clears it.
    #[schema(max_length = 1000)]
    pub caption: Option<String>,
    /// At most 200 characters (trimmed); empty clears it.
    #[schema(max_length = 200)]
    pub title: Option<String>,
}

/// A site's favicon package.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct FaviconVariant {
    /// The file's name (`favicon-32x32.png`, …).
    pub name: String,
    /// Where it is served.
    pub url: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct FaviconPackage {
    /// The generated sizes.
    pub variants: Vec<FaviconVariant>,
    /// `<link>` tags for a page's `<head>`.
    pub head_snippet: String,
}

/// The multipart form of `POST /media/upload`.
#[derive(ToSchema)]
#[allow(dead_code)]
// Other parts are read and ignored, but a part name the multipart parser
// cannot read (a control character) fails the whole form: the document
// names only these parts (`additionalProperties: false`).
#[serde(deny_unknown_fields)]
pub struct UploadMediaForm {
    /// The file's bytes; its type is detected from them, not from the name or
    /// the part's content type.
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
    /// The sites the file belongs to: a JSON array of site UUIDs
    /// (`["5f0c…", "…"]`), or one UUID, or UUIDs separated by commas (blank
    /// entries are skipped). The part may be repeated, also named `site_ids[]`:
    /// the ids add up, repeats count once. At least one site in all (else 422
    /// VALIDATION_REQUIRED_FIELD), each an existing site; send it before `file`
    /// so the size limit of those sites applies while the file streams. Text
    /// parts hold at most 64 KiB.
    #[schema(pattern = "<site ids>")]
    pub site_ids: String,
    /// A media folder of one of the sites; empty or `null` for none.
    pub folder_id: Option<Uuid>,
    /// `true`, `1` or `on` shares the file with every site; `false`, `0`, `off`,
    /// `null` or empty do not (default false).
    pub is_global: Option<bool>,
}

/// The multipart form of `POST /sites/{site_id}/favicon`.
#[derive(ToSchema)]
#[allow(dead_code)]
// Other parts are read and ignored, but a part name the multipart parser
// cannot read (a control character) fails the whole form: the document
// names only these parts (`additionalProperties: false`).
#[serde(deny_unknown_fields)]
pub struct UploadFaviconForm {
    /// PNG, JPEG, GIF or WebP, at most 10 MB; 512x512 or larger recommended.
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
}

fn mime_categories() -> utoipa::openapi::Object {
    crate::values::one_of(
        "Only files of this kind: `document` is `application/pdf` and `text/*`",
        &["image", "video", "audio", "document"],
    )
}
