//! Folder rules, one engine for both libraries: names, nesting within one
//! site and library without cycles, and deletion that leaves the files
//! unassigned and the sub-folders in the parent.

use chrono::{DateTime, Utc};
use plinth_entities::{document, folder as media_folder, media_file};
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::{json, Value};
use uuid::Uuid;

use super::model::{CreateMediaFolder, MediaFolderResponse, UpdateMediaFolder};
use super::Library;
use crate::audit::{self, Action, Actor};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::site_rows::{self, SiteRow};
use crate::state::AppState;
use crate::values::required_line;

impl SiteRow for media_folder::Model {
    type Table = media_folder::Entity;
    const KIND: &'static str = "folder";

    fn id(&self) -> Uuid {
        self.id
    }

    fn site_id(&self) -> Uuid {
        self.site_id
    }
}

const MAX_NAME: usize = 100;
/// Deeper chains are refused (and a cycle could never be walked forever).
const MAX_DEPTH: usize = 32;

fn parent_error(message: &str) -> ApiError {
    ApiError::validation(vec![FieldError::new("parent_id", ErrorCode::ValidationInvalidFormat, message)])
}

/// The parent must be a folder of the same site and library, and (for a
/// move) neither the folder itself nor one of its descendants.
async fn check_parent(
    db: &impl ConnectionTrait,
    library: Library,
    site_id: Uuid,
    parent_id: Uuid,
    moving: Option<Uuid>,
) -> ApiResult<()> {
    let mut current = Some(parent_id);
    let mut depth = 0;
    while let Some(id) = current {
        if Some(id) == moving {
            return Err(parent_error("a folder cannot be moved into itself or one of its sub-folders"));
        }
        depth += 1;
        if depth > MAX_DEPTH {
            return Err(parent_error("folders nest at most 32 deep"));
        }
        let folder = media_folder::Entity::find_by_id(id).one(db).await?;
        match folder {
            Some(f) if f.site_id == site_id && f.library == library.as_str() => current = f.parent_id,
            _ => return Err(parent_error("no such folder on this site")),
        }
    }
    Ok(())
}

/// A folder of `library` on `site_id`, or a 422 naming `field`.
pub async fn check_folder(
    db: &impl ConnectionTrait,
    library: Library,
    folder_id: Option<Uuid>,
    site_ids: &[Uuid],
    field: &str,
) -> ApiResult<()> {
    let Some(folder_id) = folder_id else { return Ok(()) };
    match media_folder::Entity::find_by_id(folder_id).one(db).await? {
        Some(f) if site_ids.contains(&f.site_id) && f.library == library.as_str() => Ok(()),
        _ => Err(ApiError::validation(vec![FieldError::new(
            field,
            ErrorCode::ValidationInvalidFormat,
            "no such folder on the site",
        )])),
    }
}

/// The folder `id` of `library` (the other library's folders are not found).
pub fn of_library(folder: media_folder::Model, library: Library) -> ApiResult<media_folder::Model> {
    if folder.library == library.as_str() {
        Ok(folder)
    } else {
        Err(ApiError::not_found("folder", folder.id))
    }
}

pub async fn list(state: &AppState, library: Library, site_id: Uuid) -> ApiResult<Vec<MediaFolderResponse>> {
    let folders = media_folder::Entity::find()
        .filter(media_folder::Column::SiteId.eq(site_id))
        .filter(media_folder::Column::Library.eq(library.as_str()))
        .order_by_asc(media_folder::Column::DisplayOrder)
        .order_by_asc(media_folder::Column::Name)
        .order_by_asc(media_folder::Column::Id)
        .all(&state.db)
        .await?;
    Ok(folders.iter().map(MediaFolderResponse::from).collect())
}

pub async fn create(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    library: Library,
    site_id: Uuid,
    body: CreateMediaFolder,
) -> ApiResult<MediaFolderResponse> {
    state.site_state(site_id).await?;
    let name = required_line("name", &body.name, MAX_NAME).map_err(|e| ApiError::validation(vec![e]))?;
    if let Some(parent) = body.parent_id {
        check_parent(&state.db, library, site_id, parent, None).await?;
    }
    let row = media_folder::ActiveModel {
        id: Set(Uuid::new_v4()),
        site_id: Set(site_id),
        library: Set(library.as_str().to_string()),
        parent_id: Set(body.parent_id),
        name: Set(name),
        display_order: Set(body.display_order),
        created_at: Set(now),
        updated_at: Set(now),
    };
    site_rows::audited_write(&state.db, now, actor, Action::Create, Value::Null)
        .run(row, |m| MediaFolderResponse::from(m), ApiError::from)
        .await
}

pub async fn update(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    current: media_folder::Model,
    body: UpdateMediaFolder,
) -> ApiResult<MediaFolderResponse> {
    let name = body
        .name
        .as_deref()
        .map(|n| required_line("name", n, MAX_NAME))
        .transpose()
        .map_err(|e| ApiError::validation(vec![e]))?;
    if let Some(Some(parent)) = body.parent_id {
        let library = if current.library == Library::Documents.as_str() { Library::Documents } else { Library::Media };
        check_parent(&state.db, library, current.site_id, parent, Some(current.id)).await?;
    }
    let before = MediaFolderResponse::from(&current);
    let mut row: media_folder::ActiveModel = current.into();
    if let Some(name) = name {
        row.name = Set(name);
    }
    if let Some(parent) = body.parent_id {
        row.parent_id = Set(parent);
    }
    if let Some(order) = body.display_order {
        row.display_order = Set(order);
    }
    row.updated_at = Set(now);
    site_rows::audited_write(&state.db, now, actor, Action::Update, json!(before))
        .run(row, |m| MediaFolderResponse::from(m), ApiError::from)
        .await
}

/// Deletes the folder; its files become unassigned and its sub-folders move
/// up to its parent, in one transaction.
pub async fn delete(state: &AppState, actor: &Actor, now: DateTime<Utc>, folder: media_folder::Model) -> ApiResult<()> {
    audit::write(&state.db, async |txn| {
        media_file::Entity::update_many()
            .col_expr(media_file::Column::FolderId, Expr::value(Option::<Uuid>::None))
            .filter(media_file::Column::FolderId.eq(folder.id))
            .exec(txn)
            .await?;
        document::Entity::update_many()
            .col_expr(document::Column::FolderId, Expr::value(Option::<Uuid>::None))
            .filter(document::Column::FolderId.eq(folder.id))
            .exec(txn)
            .await?;
        media_folder::Entity::update_many()
            .col_expr(media_folder::Column::ParentId, Expr::value(folder.parent_id))
            .filter(media_folder::Column::ParentId.eq(folder.id))
            .exec(txn)
            .await?;
        media_folder::Entity::delete_by_id(folder.id).exec(txn).await?;
        let before = MediaFolderResponse::from(&folder);
        audit::record(txn, now, folder.audit_entry(actor, Action::Delete), &before, &Value::Null).await?;
        Ok(())
    })
    .await
}
