//! Categories and tags of a site: one implementation, two URL families.

mod access;
mod localizations;
mod origin;
mod routes;

pub use localizations::{CreateTermLocalization, TermLocalizationResponse, UpdateTermLocalization};
pub(crate) use routes::*;

use chrono::{DateTime, Utc};
use plinth_entities::term;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, Select};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use self::access::GrantedTerm;
use crate::audit::{self, Action, Actor, AuditEntry};
use crate::auth::SiteGrant;
use crate::content::slugify;
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::pagination::{fetch_page, PageParams, Paginated};
use crate::routes::Routes;
use crate::state::AppState;
use crate::values::{required_line, Slug};

pub fn routes(r: &mut Routes) {
    // Documented for categories; tags are the same endpoints with their own data.
    for (taxonomy, plural) in [(Taxonomy::Category, "categories"), (Taxonomy::Tag, "tags")] {
        r.variant("categories", plural, taxonomy, |r| {
            crate::mount!(r, routes => [list_terms, create_term, update_term_localization, delete_term_localization,
                update_term, delete_term, list_term_localizations, create_term_localization]);
            crate::mount!(r, origin => [create_term_with_site]);
        });
    }
    crate::mount!(r, origin => [category_blog_counts, assign_category, remove_category]);
}

/// Which of the two taxonomies a request is about; set per resource as app data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taxonomy {
    Category,
    Tag,
}

impl Taxonomy {
    fn as_str(self) -> &'static str {
        match self {
            Taxonomy::Category => "category",
            Taxonomy::Tag => "tag",
        }
    }
}

/// A category or tag.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TermResponse {
    pub id: Uuid,
    /// The site it belongs to.
    pub site_id: Uuid,
    /// Unique per taxonomy on the site.
    pub slug: String,
    /// Always false: a term belongs to its site. (The origin service also has
    /// terms shared by every site; Plinth refuses to create one.)
    pub is_global: bool,
    /// Its name.
    pub name: String,
    /// Free text; may be empty.
    pub description: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&term::Model> for TermResponse {
    fn from(m: &term::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            slug: m.slug.clone(),
            is_global: false,
            name: m.name.clone(),
            description: m.description.clone(),
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

/// Documented by hand ([`create_term_schema`]): `name` may be blank only when
/// `slug` is given, which one object schema cannot say.
#[derive(Clone, Debug, Deserialize)]
pub struct CreateTerm {
    /// The slug's text when omitted.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub name: String,
    /// Generated from the name when omitted.
    pub slug: Option<String>,
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub description: String,
    /// Accepted as the origin service's admin sends it: `false` or absent
    /// (a term belongs to its site).
    #[serde(default)]
    pub is_global: Option<bool>,
    /// Accepted as the origin service's admin sends it: absent or null (the
    /// categories of a site are flat).
    #[serde(default)]
    pub parent_id: Option<Uuid>,
}

impl utoipa::PartialSchema for CreateTerm {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::RefOr::T(utoipa::openapi::schema::Schema::AnyOf(create_term_schema(false)))
    }
}

impl ToSchema for CreateTerm {}

/// `{name, slug?, description?}` with a name that is one line of 1 to 200
/// characters, or `{slug, name?, description?}` where a blank name becomes the
/// slug's text; with `site_id` as well where the path names no site.
pub(super) fn create_term_schema(with_site: bool) -> utoipa::openapi::schema::AnyOf {
    use utoipa::openapi::{ObjectBuilder, Type};
    let text = |pattern: &str, min: Option<usize>, max: usize, description: &str| {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .min_length(min)
            .max_length(Some(max))
            .pattern(Some(pattern))
            .description(Some(description))
    };
    let name = || text("<line>", Some(1), 200, "One line of 1 to 200 characters (trimmed), without control characters");
    let blank_or_name = || text("<optional line>", None, 200, "Blank: the slug's text; else as `name` above");
    let slug = || {
        text("<slug>", Some(1), 100, "1 to 100 lowercase letters, digits and single hyphens, no hyphen at either end; made from the name when omitted")
    };
    let description =
        || ObjectBuilder::new().schema_type(Type::String).description(Some("Free text; empty when omitted"));
    let is_global = || {
        ObjectBuilder::new()
            .schema_type(Type::Boolean)
            .enum_values(Some([false]))
            .description(Some("Only `false`: a term belongs to its site"))
    };
    let parent_id = || {
        ObjectBuilder::new().schema_type(Type::Null).description(Some("Only null: the categories of a site are flat"))
    };
    let origin_fields = |object: ObjectBuilder| {
        let object = object.property("is_global", is_global()).property("parent_id", parent_id());
        match with_site {
            true => object
                .property(
                    "site_id",
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(utoipa::openapi::KnownFormat::Uuid)))
                        .description(Some("The site the term belongs to")),
                )
                .required("site_id"),
            false => object,
        }
    };
    let named = ObjectBuilder::new()
        .property("name", name())
        .required("name")
        .property("slug", slug())
        .property("description", description());
    let by_slug = ObjectBuilder::new()
        .property("name", blank_or_name())
        .property("slug", slug())
        .required("slug")
        .property("description", description());
    utoipa::openapi::schema::AnyOfBuilder::new().item(origin_fields(named)).item(origin_fields(by_slug)).build()
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateTerm {
    /// One line of 1 to 200 characters (trimmed), without control characters.
    #[schema(min_length = 1, max_length = 200, pattern = "<line>")]
    pub name: Option<String>,
    /// 1 to 100 lowercase letters, digits and single hyphens, no hyphen at either end.
    #[schema(min_length = 1, max_length = 100, pattern = "<slug>")]
    pub slug: Option<String>,
    /// Free text.
    pub description: Option<String>,
    /// Only `false`, as the origin service's admin may send it.
    pub is_global: Option<bool>,
    /// Only null, as the origin service's admin may send it.
    #[schema(value_type = Option<()>)]
    pub parent_id: Option<Uuid>,
}

/// The origin service's shared terms and parent categories, which Plinth
/// does not keep: accepted only as "not shared" and "no parent".
fn refuse_origin_only(is_global: Option<bool>, parent_id: Option<Uuid>, errors: &mut Vec<FieldError>) {
    if is_global == Some(true) {
        let message = "a term belongs to its site; shared terms are not kept";
        errors.push(FieldError::new("is_global", ErrorCode::ValidationOutOfRange, message));
    }
    if parent_id.is_some() {
        let message = "the categories of a site are flat; a parent is not kept";
        errors.push(FieldError::new("parent_id", ErrorCode::ValidationOutOfRange, message));
    }
}

fn audit_entry<'a>(actor: &'a Actor, action: Action, taxonomy: Taxonomy, term: &term::Model) -> AuditEntry<'a> {
    AuditEntry {
        actor,
        action,
        entity_type: taxonomy.as_str(),
        entity_id: term.id.to_string(),
        site_id: Some(term.site_id),
    }
}

/// A site's terms of one taxonomy by name (`ix_terms_site_name`).
pub fn list_query(site_id: Uuid, taxonomy: Taxonomy) -> Select<term::Entity> {
    term::Entity::find()
        .filter(term::Column::SiteId.eq(site_id))
        .filter(term::Column::Taxonomy.eq(taxonomy.as_str()))
        .order_by_asc(term::Column::Name)
        .order_by_asc(term::Column::Id)
}

/// `site` is a grant of Read on the site.
async fn list(
    state: &AppState,
    site: &SiteGrant,
    taxonomy: Taxonomy,
    query: &TermListQuery,
) -> ApiResult<Paginated<TermResponse>> {
    let site_id = site.site_id();
    let cached = state.site_state(site_id).await?;
    let locale_id =
        query.locale_id.as_deref().map(|named| crate::content::localized::locale_filter(&cached, "locale_id", named));
    let locale_id = locale_id.transpose()?;
    let page = PageParams { page: query.page, per_page: query.per_page }.resolve();
    let mut terms = fetch_page(&state.db, list_query(site_id, taxonomy), page).await?.map(|t| TermResponse::from(&t));
    if let Some(locale_id) = locale_id {
        localizations::localize(state, &mut terms.data, locale_id).await?;
    }
    Ok(terms)
}

/// `site` is a grant of EditAnyContent on the site.
pub(super) async fn create(
    state: &AppState,
    site: &SiteGrant,
    taxonomy: Taxonomy,
    body: CreateTerm,
) -> ApiResult<TermResponse> {
    let site_id = site.site_id();
    state.site_state(site_id).await?;
    let mut errors = Vec::new();
    // A term may be created from its slug alone, as the service the spec was
    // written from does (it has no names).
    let given_name = match (body.name.trim(), body.slug.as_deref()) {
        ("", Some(slug)) => slug,
        _ => body.name.as_str(),
    };
    let name = required_line("name", given_name, 200).map_err(|e| errors.push(e)).ok();
    let slug = body.slug.as_deref().and_then(|s| Slug::parse("slug", s).map_err(|e| errors.push(e)).ok());
    refuse_origin_only(body.is_global, body.parent_id, &mut errors);
    let (Some(name), true) = (name, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let slug = slug.map(Slug::into_inner).unwrap_or_else(|| slugify(&name));
    let now = state.clock.now();
    audit::write(&state.db, async |txn| {
        let created = term::ActiveModel {
            id: Set(Uuid::new_v4()),
            site_id: Set(site_id),
            taxonomy: Set(taxonomy.as_str().to_string()),
            slug: Set(slug.clone()),
            name: Set(name),
            description: Set(body.description),
            created_at: Set(now),
            updated_at: Set(now),
        }
        .insert(txn)
        .await
        .map_err(on_constraint(Constraint::Unique, || ApiError::slug_taken(taxonomy.as_str(), &slug)))?;
        let response = TermResponse::from(&created);
        audit::record(txn, now, audit_entry(site.actor(), Action::Create, taxonomy, &created), &(), &response).await?;
        Ok(response)
    })
    .await
}

/// `granted` is the term with EditAnyContent on its site.
async fn update(
    state: &AppState,
    granted: GrantedTerm,
    taxonomy: Taxonomy,
    body: UpdateTerm,
) -> ApiResult<TermResponse> {
    let now = state.clock.now();
    let (current, grant) = granted.into_parts();
    let mut errors = Vec::new();
    let name = body.name.as_deref().and_then(|n| required_line("name", n, 200).map_err(|e| errors.push(e)).ok());
    let slug = body.slug.as_deref().and_then(|s| Slug::parse("slug", s).map_err(|e| errors.push(e)).ok());
    refuse_origin_only(body.is_global, body.parent_id, &mut errors);
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let before = TermResponse::from(&current);
    let mut row: term::ActiveModel = current.into();
    if let Some(name) = name {
        row.name = Set(name);
    }
    let new_slug = slug.map(Slug::into_inner);
    if let Some(slug) = &new_slug {
        row.slug = Set(slug.clone());
    }
    if let Some(description) = body.description {
        row.description = Set(description);
    }
    row.updated_at = Set(now);
    audit::write(&state.db, async |txn| {
        let updated = row.update(txn).await.map_err(on_constraint(Constraint::Unique, || {
            ApiError::slug_taken(taxonomy.as_str(), new_slug.as_deref().unwrap_or_default())
        }))?;
        let after = TermResponse::from(&updated);
        audit::record(txn, now, audit_entry(grant.actor(), Action::Update, taxonomy, &updated), &before, &after)
            .await?;
        Ok(after)
    })
    .await
}

/// Removes the term (granted EditAnyContent on its site); items lose it (their
/// link rows cascade).
async fn remove(state: &AppState, granted: GrantedTerm, taxonomy: Taxonomy) -> ApiResult<()> {
    let (current, grant) = granted.into_parts();
    audit::write(&state.db, async |txn| {
        term::Entity::delete_by_id(current.id).exec(txn).await?;
        audit::record(
            txn,
            state.clock.now(),
            audit_entry(grant.actor(), Action::Delete, taxonomy, &current),
            &TermResponse::from(&current),
            &(),
        )
        .await?;
        Ok(())
    })
    .await
}
