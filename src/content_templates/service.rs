//! Content template rules and writes: a name unique per site, fields within
//! the origin's limits, every write audited in its transaction.

use chrono::{DateTime, Utc};
use plinth_entities::content_template;
use sea_orm::sea_query::{Condition, Expr};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, Select};
use serde_json::{json, Value};
use uuid::Uuid;

use super::model::{
    ContentTemplateResponse, CreateContentTemplate, TemplateOrder, TemplateQuery, UpdateContentTemplate,
};
use crate::audit::{Action, Actor};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::pagination::{fetch_page, PageParams, Paginated, SortDir};
use crate::site_rows::{self, SiteRow};
use crate::state::AppState;
use crate::values::{contains_any_case, optional_line, required_line};

impl SiteRow for content_template::Model {
    type Table = content_template::Entity;
    const KIND: &'static str = "content_template";

    fn id(&self) -> Uuid {
        self.id
    }

    fn site_id(&self) -> Uuid {
        self.site_id
    }
}

/// The longest `search`.
const SEARCH_MAX: usize = 200;

fn name_taken(name: &str) -> ApiError {
    ApiError::new(ErrorCode::Conflict, format!("the site has a template named {name}"))
}

/// A site's templates in `query`'s order, each order walked on its index
/// (the name's unique index, or site, time and id).
fn list_query(site_id: Uuid, query: &TemplateQuery) -> ApiResult<Select<content_template::Entity>> {
    use content_template::Column;
    let order = query.sort_by.unwrap_or_default();
    let dir = query.sort_dir.unwrap_or(if order == TemplateOrder::Name { SortDir::Asc } else { SortDir::Desc });
    let mut select = content_template::Entity::find().filter(Column::SiteId.eq(site_id));
    if let Some(term) = query.search.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        if term.chars().count() > SEARCH_MAX {
            let detail = format!("at most {SEARCH_MAX} characters");
            return Err(ApiError::validation(vec![FieldError::new("search", ErrorCode::ValidationOutOfRange, detail)]));
        }
        select = select.filter(
            Condition::any()
                .add(contains_any_case(Expr::col(Column::Name), term))
                .add(contains_any_case(Expr::col(Column::Description), term)),
        );
    }
    let sort = match dir {
        SortDir::Asc => sea_orm::Order::Asc,
        SortDir::Desc => sea_orm::Order::Desc,
    };
    let select = match order {
        TemplateOrder::Name => select.order_by(Column::Name, sort),
        TemplateOrder::CreatedAt => select.order_by(Column::CreatedAt, sort.clone()).order_by(Column::Id, sort),
        TemplateOrder::UpdatedAt => select.order_by(Column::UpdatedAt, sort.clone()).order_by(Column::Id, sort),
    };
    Ok(select)
}

pub async fn list(
    state: &AppState,
    site_id: Uuid,
    query: &TemplateQuery,
) -> ApiResult<Paginated<ContentTemplateResponse>> {
    state.site_state(site_id).await?;
    let page = PageParams { page: query.page, per_page: query.per_page }.resolve();
    let select = list_query(site_id, query)?;
    Ok(fetch_page(&state.db, select, page).await?.map(|m| ContentTemplateResponse::from(&m)))
}

/// The template's fields after `body`'s, checked; errors name each field.
struct Checked {
    name: String,
    description: Option<String>,
    icon: String,
    slug_prefix: String,
    texts: [String; 6],
}

fn limited(field: &str, value: String, max: usize, errors: &mut Vec<FieldError>) -> String {
    if let Err(e) = crate::values::bounded_text(field, &value, max) {
        errors.push(e);
    }
    value
}

fn slug_prefix(raw: &str, errors: &mut Vec<FieldError>) -> String {
    let prefix = raw.trim().to_string();
    if prefix.chars().count() > 100 || !prefix.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        let detail = "lowercase letters, digits and hyphens, at most 100";
        errors.push(FieldError::new("slug_prefix", ErrorCode::ValidationInvalidFormat, detail));
    }
    prefix
}

/// Lays `changes` over `current` (a new template's defaults for a create).
fn check(current: &content_template::Model, changes: UpdateContentTemplate) -> ApiResult<Checked> {
    let mut errors = Vec::new();
    let name = match &changes.name {
        Some(raw) => required_line("name", raw, 200).map_err(|e| errors.push(e)).unwrap_or_default(),
        None => current.name.clone(),
    };
    let description = match changes.description {
        Some(given) => {
            given.map(|d| limited("description", d.trim().to_string(), 2000, &mut errors)).filter(|d| !d.is_empty())
        }
        None => current.description.clone(),
    };
    let icon = match &changes.icon {
        Some(raw) => optional_line("icon", Some(raw), 50)
            .map_err(|e| errors.push(e))
            .ok()
            .flatten()
            .unwrap_or_else(|| "Article".into()),
        None => current.icon.clone(),
    };
    let slug_prefix = changes.slug_prefix.map_or_else(|| current.slug_prefix.clone(), |p| slug_prefix(&p, &mut errors));
    let mut text = |field: &str, given: Option<String>, stored: &str, max: usize| match given {
        Some(value) => limited(field, value, max, &mut errors),
        None => stored.to_string(),
    };
    let texts = [
        text("title", changes.title, &current.title, 300),
        text("subtitle", changes.subtitle, &current.subtitle, 300),
        text("excerpt", changes.excerpt, &current.excerpt, 2000),
        text("body", changes.body, &current.body, 200_000),
        text("meta_title", changes.meta_title, &current.meta_title, 500),
        text("meta_description", changes.meta_description, &current.meta_description, 500),
    ];
    if errors.is_empty() {
        Ok(Checked { name, description, icon, slug_prefix, texts })
    } else {
        Err(ApiError::validation(errors))
    }
}

fn apply(
    row: &mut content_template::ActiveModel,
    checked: Checked,
    changes_flags: [Option<bool>; 3],
    now: DateTime<Utc>,
) {
    let Checked {
        name,
        description,
        icon,
        slug_prefix,
        texts: [title, subtitle, excerpt, body, meta_title, meta_description],
    } = checked;
    row.name = Set(name);
    row.description = Set(description);
    row.icon = Set(icon);
    row.slug_prefix = Set(slug_prefix);
    row.title = Set(title);
    row.subtitle = Set(subtitle);
    row.excerpt = Set(excerpt);
    row.body = Set(body);
    row.meta_title = Set(meta_title);
    row.meta_description = Set(meta_description);
    let [featured, comments, active] = changes_flags;
    if let Some(featured) = featured {
        row.is_featured = Set(featured);
    }
    if let Some(comments) = comments {
        row.allow_comments = Set(comments);
    }
    if let Some(active) = active {
        row.is_active = Set(active);
    }
    row.updated_at = Set(now);
}

pub async fn create(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    site_id: Uuid,
    body: CreateContentTemplate,
) -> ApiResult<ContentTemplateResponse> {
    state.site_state(site_id).await?;
    if body.site_id.is_some_and(|given| given != site_id) {
        let detail = "must be the site of the path";
        return Err(ApiError::validation(vec![FieldError::new("site_id", ErrorCode::ValidationInvalidFormat, detail)]));
    }
    let defaults = content_template::Model {
        id: Uuid::new_v4(),
        site_id,
        name: String::new(),
        description: None,
        icon: "Article".into(),
        slug_prefix: "post".into(),
        is_featured: false,
        allow_comments: true,
        title: String::new(),
        subtitle: String::new(),
        excerpt: String::new(),
        body: String::new(),
        meta_title: String::new(),
        meta_description: String::new(),
        is_active: true,
        created_at: now,
        updated_at: now,
    };
    let flags = [body.is_featured, body.allow_comments, body.is_active];
    let changes = UpdateContentTemplate {
        name: Some(body.name),
        description: Some(body.description),
        icon: body.icon,
        slug_prefix: body.slug_prefix,
        title: body.title,
        subtitle: body.subtitle,
        excerpt: body.excerpt,
        body: body.body,
        meta_title: body.meta_title,
        meta_description: body.meta_description,
        ..UpdateContentTemplate::default()
    };
    let checked = check(&defaults, changes)?;
    let name = checked.name.clone();
    let mut row: content_template::ActiveModel = defaults.into();
    apply(&mut row, checked, flags, now);
    let row = sea_orm::ActiveModelTrait::reset_all(row);
    site_rows::audited_write(&state.db, now, actor, Action::Create, Value::Null)
        .run(row, |m| ContentTemplateResponse::from(m), on_constraint(Constraint::Unique, || name_taken(&name)))
        .await
}

pub async fn update(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    current: content_template::Model,
    body: UpdateContentTemplate,
) -> ApiResult<ContentTemplateResponse> {
    let flags = [body.is_featured, body.allow_comments, body.is_active];
    let checked = check(&current, body)?;
    let name = checked.name.clone();
    let before = json!(ContentTemplateResponse::from(&current));
    let mut row: content_template::ActiveModel = current.into();
    apply(&mut row, checked, flags, now);
    site_rows::audited_write(&state.db, now, actor, Action::Update, before)
        .run(row, |m| ContentTemplateResponse::from(m), on_constraint(Constraint::Unique, || name_taken(&name)))
        .await
}

pub async fn delete(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    current: content_template::Model,
) -> ApiResult<()> {
    let before = json!(ContentTemplateResponse::from(&current));
    site_rows::audited_write(&state.db, now, actor, Action::Delete, before).remove(current).await
}
