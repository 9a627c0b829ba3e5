//! Wire shapes of documents.

use chrono::{DateTime, Utc};
use plinth_entities::{document, document_localization};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::values::double_option;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct DocumentLocalizationResponse {
    pub id: Uuid,
    /// The document.
    pub document_id: Uuid,
    /// The global locale it is in.
    pub locale_id: Uuid,
    /// The document's name in this locale.
    pub name: String,
    /// Null when none.
    pub description: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&document_localization::Model> for DocumentLocalizationResponse {
    fn from(l: &document_localization::Model) -> Self {
        Self {
            id: l.id,
            document_id: l.document_id,
            locale_id: l.locale_id,
            name: l.name.clone(),
            description: l.description.clone(),
            created_at: l.created_at,
            updated_at: l.updated_at,
        }
    }
}

/// A document; `localizations` only in the detail.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct DocumentResponse {
    pub id: Uuid,
    /// The site it belongs to.
    pub site_id: Uuid,
    /// Its document folder; null for none.
    pub folder_id: Option<Uuid>,
    /// An outside document's address.
    pub url: Option<String>,
    /// A short type such as `pdf` (from the file name when not given).
    pub document_type: String,
    /// Position in lists, ascending.
    pub display_order: i32,
    /// The uploaded file's name; null for outside documents.
    pub file_name: Option<String>,
    /// The uploaded file's size in bytes; null for outside documents.
    pub file_size: Option<i64>,
    /// The uploaded file's type; null for outside documents.
    pub mime_type: Option<String>,
    /// Whether the document is an uploaded file (which can be made private).
    pub has_file: bool,
    /// Where the file is downloaded (a private one needs an access token).
    pub download_url: Option<String>,
    /// Downloads need the password (an access token).
    pub is_private: bool,
    /// Private documents: when access ends.
    pub expires_at: Option<DateTime<Utc>>,
    /// Private documents: locked after 3 wrong passwords until an admin unlocks.
    pub is_locked: bool,
    /// Names and descriptions per locale (detail only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub localizations: Option<Vec<DocumentLocalizationResponse>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl DocumentResponse {
    pub fn new(d: &document::Model, base: &str, localizations: Option<Vec<DocumentLocalizationResponse>>) -> Self {
        Self {
            id: d.id,
            site_id: d.site_id,
            folder_id: d.folder_id,
            url: d.url.clone(),
            document_type: d.document_type.clone(),
            display_order: d.display_order,
            file_name: d.file_name.clone(),
            file_size: d.file_size,
            mime_type: d.mime_type.clone(),
            has_file: d.storage_key.is_some(),
            download_url: d.storage_key.as_ref().map(|_| format!("{base}/api/v1/documents/{}/download", d.id)),
            is_private: d.is_private,
            expires_at: d.expires_at,
            is_locked: d.locked_at.is_some(),
            localizations,
            created_at: d.created_at,
            updated_at: d.updated_at,
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DocumentListQuery {
    /// Only documents in this folder.
    pub folder_id: Option<Uuid>,
    #[param(schema_with = crate::pagination::page_number_schema)]
    pub page: Option<u64>,
    /// Items per page (default 10, at most 100). Also accepted as `page_size`.
    #[serde(alias = "page_size")]
    #[param(schema_with = crate::pagination::per_page_schema)]
    pub per_page: Option<u32>,
}

/// Either `url`, or an inline file: `file_data` (base64) with `file_name` and
/// `mime_type` (DESIGN §8).
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateDocument {
    /// e.g. `pdf`; default: from the file name or `file`.
    #[schema(max_length = 50)]
    pub document_type: Option<String>,
    /// An outside document's address: an absolute http(s) URL with a host. Send it or `file_data`, not both.
    pub url: Option<String>,
    /// The file, base64; at most the site's max_document_file_size once decoded.
    pub file_data: Option<String>,
    /// Required with `file_data`: one line of 1 to 255 characters; any directory part is dropped.
    pub file_name: Option<String>,
    /// The file's type (with a `/`); `application/octet-stream` otherwise.
    pub mime_type: Option<String>,
    /// Accepted for compatibility; the decoded size is what counts.
    pub file_size: Option<i64>,
    /// A document folder of the site.
    pub folder_id: Option<Uuid>,
    /// Position in lists, ascending (default 0).
    #[serde(default)]
    pub display_order: i32,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateDocument {
    /// One line of 1 to 50 characters.
    #[schema(max_length = 50)]
    pub document_type: Option<String>,
    /// Outside documents only.
    pub url: Option<String>,
    /// Replaces the file (public documents only).
    pub file_data: Option<String>,
    /// With `file_data`: one line of 1 to 255 characters.
    pub file_name: Option<String>,
    /// With `file_data`: the file's type.
    pub mime_type: Option<String>,
    /// Accepted for compatibility; the decoded size is what counts.
    pub file_size: Option<i64>,
    /// A document folder of the site; `null` takes it out of its folder.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>)]
    pub folder_id: Option<Option<Uuid>>,
    /// Position in lists, ascending.
    pub display_order: Option<i32>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateDocumentLocalization {
    /// A global locale, by UUID or code (`de`).
    pub locale_id: crate::values::LocaleName,
    /// One line of 1 to 500 characters (trimmed).
    #[schema(min_length = 1, max_length = 500)]
    pub name: String,
    /// At most 2,000 characters.
    #[schema(max_length = 2000)]
    pub description: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateDocumentLocalization {
    /// One line of 1 to 500 characters (trimmed).
    #[schema(min_length = 1, max_length = 500)]
    pub name: Option<String>,
    /// At most 2,000 characters.
    #[schema(max_length = 2000)]
    pub description: Option<String>,
}

/// `POST /documents/{id}/privacy`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct MakePrivate {
    /// 8 to 1024 characters.
    pub password: String,
    /// End of access: in the future and at most a year ahead.
    pub expires_at: Option<DateTime<Utc>>,
}

/// `DELETE /documents/{id}/privacy`: the password, or nothing when the
/// server's recovery key is configured.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct MakePublic {
    /// The document's password; may be left out when the server has a recovery key.
    pub password: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct VerifyAccess {
    /// The document's password.
    pub password: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AccessToken {
    /// Pass as `?token=` to the download; valid 1 hour.
    pub access_token: String,
    /// When the token stops working.
    pub expires_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DownloadQuery {
    /// A private document's access token (`POST /documents/{id}/verify-access`);
    /// public documents need none.
    pub token: Option<String>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct AttachDocument {
    /// A document of one of the post's sites.
    pub document_id: Uuid,
    /// Position among the attachments, ascending (default 0).
    #[serde(default)]
    pub display_order: i32,
}

/// A document attached to a blog post.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BlogDocumentResponse {
    pub id: Uuid,
    /// The post.
    pub blog_id: Uuid,
    /// The document.
    pub document_id: Uuid,
    /// Position among the attachments, ascending.
    pub display_order: i32,
    /// The document itself.
    pub document: DocumentResponse,
    pub created_at: DateTime<Utc>,
    /// The document's address, type, file name and whether it is a file,
    /// beside the attachment (as the origin admin's `BlogDocumentResponse`
    /// reads them; the same as under `document`).
    pub url: Option<String>,
    pub document_type: String,
    pub file_name: Option<String>,
    pub has_file: bool,
    /// The document's names and descriptions per locale.
    pub localizations: Vec<DocumentLocalizationResponse>,
}

impl BlogDocumentResponse {
    /// The attachment `link` of `document`, with the document's localizations.
    pub fn new(
        link: &plinth_entities::blog_document::Model,
        document: DocumentResponse,
        localizations: Vec<DocumentLocalizationResponse>,
    ) -> Self {
        Self {
            id: link.id,
            blog_id: link.blog_id,
            document_id: link.document_id,
            display_order: link.display_order,
            url: document.url.clone(),
            document_type: document.document_type.clone(),
            file_name: document.file_name.clone(),
            has_file: document.has_file,
            document,
            created_at: link.created_at,
            localizations,
        }
    }
}
