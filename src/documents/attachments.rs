//! Documents attached to blog posts, and the `documents` array of a post's detail.

use std::collections::HashMap;

use plinth_entities::{blog_document, content, content_site, document, document_localization};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

use super::model::{AttachDocument, BlogDocumentResponse, DocumentLocalizationResponse};
use super::service::response;
use crate::db::Touched;
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::state::AppState;

/// The sites of the live blog post `blog_id` (ENTITY_NOT_FOUND when there is
/// none); the caller's rights on them are the handler's to check.
pub async fn blog_sites(state: &AppState, blog_id: Uuid) -> ApiResult<Vec<Uuid>> {
    let blog = content::Entity::find_by_id(blog_id)
        .filter(content::Column::Kind.eq("blog"))
        .filter(content::Column::IsDeleted.eq(false))
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("blog", blog_id))?;
    Ok(content_site::Entity::find()
        .filter(content_site::Column::ContentId.eq(blog.id))
        .all(&state.db)
        .await?
        .into_iter()
        .map(|s| s.site_id)
        .collect())
}

/// The post's live documents in display order, with their localizations:
/// three queries whatever their number.
pub async fn list(state: &AppState, blog_id: Uuid) -> ApiResult<Vec<BlogDocumentResponse>> {
    let links = blog_document::Entity::find()
        .filter(blog_document::Column::BlogId.eq(blog_id))
        .order_by_asc(blog_document::Column::DisplayOrder)
        .order_by_asc(blog_document::Column::CreatedAt)
        .all(&state.db)
        .await?;
    let ids: Vec<Uuid> = links.iter().map(|l| l.document_id).collect();
    let docs: HashMap<Uuid, document::Model> = document::Entity::find()
        .filter(document::Column::Id.is_in(ids))
        .filter(document::Column::IsDeleted.eq(false))
        .all(&state.db)
        .await?
        .into_iter()
        .map(|d| (d.id, d))
        .collect();
    let mut localizations = localizations_of_each(state, docs.keys().copied().collect()).await?;
    Ok(links
        .into_iter()
        .filter_map(|l| {
            let doc = docs.get(&l.document_id)?;
            let names = localizations.remove(&doc.id).unwrap_or_default();
            Some(BlogDocumentResponse::new(&l, response(state, doc, None), names))
        })
        .collect())
}

/// For a post's detail: its attachments as JSON.
pub async fn for_detail(state: &AppState, blog_id: Uuid) -> ApiResult<Vec<serde_json::Value>> {
    Ok(list(state, blog_id).await?.into_iter().filter_map(|a| serde_json::to_value(a).ok()).collect())
}

pub async fn attach(
    state: &AppState,
    blog_id: Uuid,
    sites: &[Uuid],
    body: AttachDocument,
) -> ApiResult<BlogDocumentResponse> {
    let doc = document::Entity::find_by_id(body.document_id)
        .one(&state.db)
        .await?
        .filter(|d| !d.is_deleted && sites.contains(&d.site_id))
        .ok_or_else(|| {
            ApiError::validation(vec![FieldError::new(
                "document_id",
                ErrorCode::ValidationInvalidFormat,
                "no such document on the post's sites",
            )])
        })?;
    let row = blog_document::ActiveModel {
        id: Set(Uuid::new_v4()),
        blog_id: Set(blog_id),
        document_id: Set(doc.id),
        display_order: Set(body.display_order),
        created_at: Set(state.clock.now()),
    };
    let touched: Vec<Touched> = sites.iter().map(|s| Touched::Content(*s)).collect();
    let stored = state
        .db
        .write(&touched, async |txn| blog_document::Entity::insert(row).exec_with_returning(txn).await)
        .await
        .map_err(on_constraint(Constraint::Unique, || {
            ApiError::new(ErrorCode::Conflict, "the document is attached to this post already")
        }))?;
    let names = localizations_of_each(state, vec![doc.id]).await?.remove(&doc.id).unwrap_or_default();
    Ok(BlogDocumentResponse::new(&stored, response(state, &doc, None), names))
}

/// The localizations of each of `documents`, in one query.
async fn localizations_of_each(
    state: &AppState,
    documents: Vec<Uuid>,
) -> ApiResult<HashMap<Uuid, Vec<DocumentLocalizationResponse>>> {
    let rows = document_localization::Entity::find()
        .filter(document_localization::Column::DocumentId.is_in(documents))
        .order_by_asc(document_localization::Column::CreatedAt)
        .all(&state.db)
        .await?;
    let mut by_document: HashMap<Uuid, Vec<DocumentLocalizationResponse>> = HashMap::new();
    for row in &rows {
        by_document.entry(row.document_id).or_default().push(DocumentLocalizationResponse::from(row));
    }
    Ok(by_document)
}

/// Detaches the document from the post on `sites` (the post's).
pub async fn detach(state: &AppState, blog_id: Uuid, sites: &[Uuid], document_id: Uuid) -> ApiResult<()> {
    let touched: Vec<Touched> = sites.iter().map(|s| Touched::Content(*s)).collect();
    let detach = blog_document::Entity::delete_many()
        .filter(blog_document::Column::BlogId.eq(blog_id))
        .filter(blog_document::Column::DocumentId.eq(document_id));
    let removed = state.db.write(&touched, async |txn| detach.exec(txn).await).await?;
    if removed.rows_affected == 0 {
        return Err(ApiError::not_found("blog_document", document_id));
    }
    Ok(())
}
