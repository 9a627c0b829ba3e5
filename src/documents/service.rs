//! Document records: rules, inline files, localizations, events and audit.

use base64::Engine;
use chrono::{DateTime, Utc};
use plinth_entities::{document, document_localization};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, Select};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::model::{
    CreateDocument, CreateDocumentLocalization, DocumentListQuery, DocumentLocalizationResponse, DocumentResponse,
    UpdateDocument, UpdateDocumentLocalization,
};
use crate::audit::{self, Action, Actor};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::events::{DomainEvent, EventAction, EventName, Subject};
use crate::folders::{service::check_folder, Library};
use crate::pagination::{fetch_page, PageParams, Paginated};
use crate::site_rows::SiteRow;
use crate::state::AppState;
use crate::values::required_line;

impl SiteRow for document::Model {
    type Table = document::Entity;
    const KIND: &'static str = "document";
    const IS_DELETED: Option<document::Column> = Some(document::Column::IsDeleted);

    fn id(&self) -> Uuid {
        self.id
    }

    fn site_id(&self) -> Uuid {
        self.site_id
    }
}

pub fn response(
    state: &AppState,
    doc: &document::Model,
    localizations: Option<Vec<DocumentLocalizationResponse>>,
) -> DocumentResponse {
    DocumentResponse::new(doc, &state.config.public_url(), localizations)
}

pub async fn localizations_of(state: &AppState, id: Uuid) -> ApiResult<Vec<DocumentLocalizationResponse>> {
    let rows = document_localization::Entity::find()
        .filter(document_localization::Column::DocumentId.eq(id))
        .order_by_asc(document_localization::Column::CreatedAt)
        .all(&state.db)
        .await?;
    Ok(rows.iter().map(DocumentLocalizationResponse::from).collect())
}

/// A site's (or one of its folders') live documents, in the order of
/// `ix_documents_list` / `ix_documents_folder_list`.
pub fn list_query(site_id: Uuid, folder_id: Option<Uuid>) -> Select<document::Entity> {
    let select = document::Entity::find()
        .filter(document::Column::SiteId.eq(site_id))
        .filter(document::Column::IsDeleted.eq(false))
        .order_by_asc(document::Column::DisplayOrder)
        .order_by_desc(document::Column::CreatedAt)
        .order_by_desc(document::Column::Id);
    match folder_id {
        Some(folder) => select.filter(document::Column::FolderId.eq(folder)),
        None => select,
    }
}

pub async fn list(state: &AppState, site_id: Uuid, query: DocumentListQuery) -> ApiResult<Paginated<DocumentResponse>> {
    let page = PageParams { page: query.page, per_page: query.per_page }.resolve();
    let found = fetch_page(&state.db, list_query(site_id, query.folder_id), page).await?;
    Ok(found.map(|d| response(state, &d, None)))
}

pub fn document_event(what: EventAction, at: DateTime<Utc>, doc: &document::Model) -> DomainEvent {
    DomainEvent {
        event: EventName::new(Subject::Document, what),
        timestamp: at,
        site_id: doc.site_id,
        data: json!({
            "id": doc.id,
            "document_type": doc.document_type,
            "file_name": doc.file_name,
            "url": doc.url,
            "is_private": doc.is_private,
        }),
    }
}

/// Stores a change of a document with its audit entry and event, in one transaction.
pub async fn save(
    state: &AppState,
    actor: &Actor,
    action: Action,
    before: &Value,
    row: document::ActiveModel,
    event: Option<EventAction>,
) -> ApiResult<document::Model> {
    let now = state.clock.now();
    audit::write(&state.db, async |txn| {
        let stored = match action {
            Action::Create => document::Entity::insert(row).exec_with_returning(txn).await?,
            _ => document::Entity::update(row).exec(txn).await?,
        };
        let events: Vec<DomainEvent> = event.map(|e| document_event(e, now, &stored)).into_iter().collect();
        crate::events::store(txn, &state.events, &events).await?;
        let after = response(state, &stored, None);
        audit::record(txn, now, stored.audit_entry(actor, action), before, &after).await?;
        Ok(stored)
    })
    .await
}

fn field(field: &str, message: &str) -> ApiError {
    ApiError::validation(vec![FieldError::new(field, ErrorCode::ValidationInvalidFormat, message)])
}

/// An inline file, decoded and stored: `(key, size, checksum)`.
async fn store_inline(state: &AppState, id: Uuid, data: &str, max: i64) -> ApiResult<(String, i64, String)> {
    let data = data.trim();
    // The decoded size, known before decoding.
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count();
    let decoded_len = (data.len() / 4 * 3).saturating_sub(padding) as i64;
    if decoded_len > max {
        return Err(ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!("the file is {decoded_len} bytes; this site accepts documents up to {max} bytes"),
        ));
    }
    let bytes =
        base64::engine::general_purpose::STANDARD.decode(data).map_err(|_| field("file_data", "must be base64"))?;
    if bytes.is_empty() {
        return Err(field("file_data", "the file is empty"));
    }
    let checksum = hex::encode(Sha256::digest(&bytes));
    let key = format!("documents/{id}/{}", Uuid::new_v4().simple());
    let size = bytes.len() as i64;
    state.storage.put(&key, bytes).await.map_err(|e| {
        tracing::error!(error = %e, "storing a document failed");
        ApiError::new(ErrorCode::StorageError, "the document could not be stored")
    })?;
    Ok((key, size, checksum))
}

fn check_type(raw: Option<&str>, file_name: Option<&str>) -> ApiResult<String> {
    let guessed = file_name.and_then(|n| n.rsplit_once('.')).map(|(_, ext)| ext.to_ascii_lowercase());
    let value = raw.map(str::to_string).or(guessed).unwrap_or_else(|| "file".into());
    required_line("document_type", &value, 50).map_err(|e| ApiError::validation(vec![e]))
}

fn check_file_name(raw: Option<&str>) -> ApiResult<String> {
    let name = raw.ok_or_else(|| field("file_name", "is required with file_data"))?;
    let name = required_line("file_name", name, 255).map_err(|e| ApiError::validation(vec![e]))?;
    Ok(name.rsplit(['/', '\\']).next().unwrap_or(&name).to_string())
}

fn mime_of(raw: Option<&str>) -> String {
    raw.map(|m| m.trim().to_ascii_lowercase())
        .filter(|m| m.contains('/'))
        .unwrap_or_else(|| "application/octet-stream".into())
}

pub async fn create(
    state: &AppState,
    actor: &Actor,
    site_id: Uuid,
    body: CreateDocument,
) -> ApiResult<DocumentResponse> {
    let settings = state.site_state(site_id).await?.settings.clone();
    let id = Uuid::new_v4();
    let now = state.clock.now();
    check_folder(&state.db, Library::Documents, body.folder_id, &[site_id], "folder_id").await?;
    let mut row = document::ActiveModel {
        id: Set(id),
        site_id: Set(site_id),
        folder_id: Set(body.folder_id),
        url: Set(None),
        document_type: Set(String::new()),
        display_order: Set(body.display_order),
        file_name: Set(None),
        file_size: Set(None),
        mime_type: Set(None),
        storage_key: Set(None),
        checksum: Set(None),
        is_private: Set(false),
        key_id: Set(None),
        kdf_salt: Set(None),
        kdf_params: Set(None),
        sealed_key: Set(None),
        recovery_sealed_key: Set(None),
        expires_at: Set(None),
        failed_attempts: Set(0),
        locked_at: Set(None),
        created_by: Set(Some(actor.clone())),
        created_at: Set(now),
        updated_at: Set(now),
        deleted_at: Set(None),
        is_deleted: Set(false),
    };
    match (body.url.as_deref(), body.file_data.as_deref()) {
        (Some(_), Some(_)) => return Err(field("url", "send either url or file_data, not both")),
        (None, None) => return Err(field("url", "send url or file_data")),
        (Some(url), None) => {
            row.url =
                Set(Some(crate::values::link_target("url", url, false).map_err(|e| ApiError::validation(vec![e]))?));
            row.document_type = Set(check_type(body.document_type.as_deref(), Some(url))?);
        }
        (None, Some(data)) => {
            let name = check_file_name(body.file_name.as_deref())?;
            row.document_type = Set(check_type(body.document_type.as_deref(), Some(&name))?);
            let (key, size, checksum) = store_inline(state, id, data, settings.max_document_file_size).await?;
            row.file_name = Set(Some(name));
            row.mime_type = Set(Some(mime_of(body.mime_type.as_deref())));
            row.storage_key = Set(Some(key));
            row.file_size = Set(Some(size));
            row.checksum = Set(Some(checksum));
        }
    }
    let stored = save(state, actor, Action::Create, &Value::Null, row, Some(EventAction::Created)).await?;
    Ok(response(state, &stored, None))
}

pub async fn update(
    state: &AppState,
    actor: &Actor,
    current: document::Model,
    body: UpdateDocument,
) -> ApiResult<DocumentResponse> {
    let before = json!(response(state, &current, None));
    let settings = state.site_state(current.site_id).await?.settings.clone();
    let old_key = current.storage_key.clone();
    let mut replaced = false;
    let mut row: document::ActiveModel = current.clone().into();
    if let Some(kind) = body.document_type.as_deref() {
        row.document_type = Set(check_type(Some(kind), None)?);
    }
    if let Some(url) = body.url.as_deref() {
        if body.file_data.is_some() {
            return Err(field("url", "send either url or file_data, not both"));
        }
        if current.is_private {
            return Err(ApiError::new(ErrorCode::Conflict, "a private document keeps its file; make it public first"));
        }
        row.url = Set(Some(crate::values::link_target("url", url, false).map_err(|e| ApiError::validation(vec![e]))?));
        row.storage_key = Set(None);
        row.file_name = Set(None);
        row.file_size = Set(None);
        row.mime_type = Set(None);
        row.checksum = Set(None);
        replaced = true;
    }
    if let Some(data) = body.file_data.as_deref() {
        if current.is_private {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                "a private document's file cannot be replaced; make it public first",
            ));
        }
        let name = check_file_name(body.file_name.as_deref().or(current.file_name.as_deref()))?;
        let (key, size, checksum) = store_inline(state, current.id, data, settings.max_document_file_size).await?;
        row.url = Set(None);
        row.file_name = Set(Some(name));
        row.mime_type = Set(Some(mime_of(body.mime_type.as_deref().or(current.mime_type.as_deref()))));
        row.storage_key = Set(Some(key));
        row.file_size = Set(Some(size));
        row.checksum = Set(Some(checksum));
        replaced = true;
    }
    if let Some(folder) = body.folder_id {
        check_folder(&state.db, Library::Documents, folder, &[current.site_id], "folder_id").await?;
        row.folder_id = Set(folder);
    }
    if let Some(order) = body.display_order {
        row.display_order = Set(order);
    }
    row.updated_at = Set(state.clock.now());
    let stored = save(state, actor, Action::Update, &before, row, Some(EventAction::Updated)).await?;
    if let (true, Some(old)) = (replaced, old_key) {
        if let Err(e) = state.storage.delete(&old).await {
            tracing::warn!(error = %e, "could not remove a replaced document file");
        }
    }
    Ok(response(state, &stored, None))
}

/// Soft delete: the document goes to the trash (`entity_type=document`).
pub async fn delete(state: &AppState, actor: &Actor, current: document::Model) -> ApiResult<()> {
    let now = state.clock.now();
    let before = json!(response(state, &current, None));
    let mut row: document::ActiveModel = current.into();
    row.is_deleted = Set(true);
    row.deleted_at = Set(Some(now));
    save(state, actor, Action::Delete, &before, row, Some(EventAction::Deleted)).await?;
    Ok(())
}

pub async fn create_localization(
    state: &AppState,
    actor: &Actor,
    doc: &document::Model,
    body: CreateDocumentLocalization,
) -> ApiResult<DocumentLocalizationResponse> {
    let name = required_line("name", &body.name, 500).map_err(|e| ApiError::validation(vec![e]))?;
    let description = check_description(body.description.as_deref())?;
    let locale_id = crate::locales::named(&state.db, &body.locale_id, "locale_id").await?.id;
    let now = state.clock.now();
    let row = document_localization::ActiveModel {
        id: Set(Uuid::new_v4()),
        document_id: Set(doc.id),
        locale_id: Set(locale_id),
        name: Set(name),
        description: Set(description.flatten()),
        created_at: Set(now),
        updated_at: Set(now),
    };
    audit::write(&state.db, async |txn| {
        let stored =
            document_localization::Entity::insert(row)
                .exec_with_returning(txn)
                .await
                .map_err(on_constraint(Constraint::Unique, || {
                    ApiError::new(ErrorCode::Conflict, "the document has a localization in this locale already")
                }))?;
        let response = DocumentLocalizationResponse::from(&stored);
        audit::record(txn, now, doc.audit_entry(actor, Action::Update), &Value::Null, &response).await?;
        Ok(response)
    })
    .await
}

fn check_description(raw: Option<&str>) -> ApiResult<Option<Option<String>>> {
    match raw.map(str::trim) {
        Some(d) if d.chars().count() > 2000 => Err(ApiError::validation(vec![FieldError::new(
            "description",
            ErrorCode::ValidationOutOfRange,
            "must be at most 2000 characters",
        )])),
        Some(d) => Ok(Some((!d.is_empty()).then(|| d.to_string()))),
        None => Ok(None),
    }
}

pub async fn find_localization(state: &AppState, id: Uuid) -> ApiResult<document_localization::Model> {
    document_localization::Entity::find_by_id(id)
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("document_localization", id))
}

pub async fn update_localization(
    state: &AppState,
    actor: &Actor,
    doc: &document::Model,
    current: document_localization::Model,
    body: UpdateDocumentLocalization,
) -> ApiResult<DocumentLocalizationResponse> {
    let name = body
        .name
        .as_deref()
        .map(|n| required_line("name", n, 500))
        .transpose()
        .map_err(|e| ApiError::validation(vec![e]))?;
    let description = check_description(body.description.as_deref())?;
    let now = state.clock.now();
    let before = DocumentLocalizationResponse::from(&current);
    let mut row: document_localization::ActiveModel = current.into();
    if let Some(name) = name {
        row.name = Set(name);
    }
    if let Some(description) = description {
        row.description = Set(description);
    }
    row.updated_at = Set(now);
    audit::write(&state.db, async |txn| {
        let stored = document_localization::Entity::update(row).exec(txn).await?;
        let response = DocumentLocalizationResponse::from(&stored);
        audit::record(txn, now, doc.audit_entry(actor, Action::Update), &before, &response).await?;
        Ok(response)
    })
    .await
}

pub async fn delete_localization(
    state: &AppState,
    actor: &Actor,
    doc: &document::Model,
    current: document_localization::Model,
) -> ApiResult<()> {
    let now = state.clock.now();
    audit::write(&state.db, async |txn| {
        document_localization::Entity::delete_by_id(current.id).exec(txn).await?;
        let before = DocumentLocalizationResponse::from(&current);
        audit::record(txn, now, doc.audit_entry(actor, Action::Update), &before, &Value::Null).await?;
        Ok(())
    })
    .await
}
