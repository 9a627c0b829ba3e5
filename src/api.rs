//! The API under `/api/v1`: every family's routes, in mount order. `app.rs` mounts
//! them and `openapi.rs` documents the same list.

use crate::routes::Routes;
use crate::{
    account, analytics, api_keys, audit_api, blogs, content_templates, documents, environments, export, folders, forms,
    idp, legal, locales, media, members, moderation, navigation, notifications, pages, portfolio, public_files,
    redirects, sites, social_links, system, taxonomy, trash, webhooks,
};

/// Every route of the API, relative to `/api/v1`. Literal paths of one family
/// come before another family's patterns that would match them (`/sites/{id}`).
pub fn routes() -> Routes {
    mount_every_family(Routes::default())
}

/// [`routes`] to serve: the same routes, without building their documentation
/// again in every server worker (the document is built once, `openapi::served`).
pub fn served_routes() -> Routes {
    mount_every_family(Routes::without_documentation())
}

fn mount_every_family(mut r: Routes) -> Routes {
    for family in [
        system::routes,
        api_keys::routes,
        locales::routes,
        public_files::routes,
        sites::routes,
        blogs::routes,
        pages::routes,
        portfolio::routes,
        legal::routes,
        redirects::routes,
        content_templates::routes,
        social_links::routes,
        media::routes,
        folders::routes,
        documents::routes,
        forms::routes,
        crate::ai::routes,
        analytics::routes,
        export::routes,
        navigation::routes,
        members::routes,
        account::routes,
        moderation::routes,
        idp::routes,
        taxonomy::routes,
        trash::routes,
        environments::routes,
        notifications::routes,
        webhooks::routes,
        crate::event_stream::routes,
        audit_api::routes,
    ] {
        family(&mut r);
    }
    r
}

/// What the families add to a content item's life (`content::hooks`).
pub fn content_hooks() -> crate::content::hooks::ContentHooks {
    crate::content::hooks::ContentHooks {
        post_attachments: |state, post_id| Box::pin(crate::documents::attachments::for_detail(state, post_id)),
        submitted_for_review: |txn, submitted| Box::pin(crate::notifications::notify_reviewers(txn, submitted)),
    }
}

/// The trash's `entity_type` parameter: a type one of [`trash_sources`]
/// answers for. Declared by hand, as a derive takes only a literal pattern.
impl utoipa::IntoParams for crate::trash::EntityTypeQuery {
    fn into_params(
        _: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        use utoipa::openapi::path::{ParameterBuilder, ParameterIn};
        let types: Vec<&str> = trash_sources().entity_types().collect();
        let schema = utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::Type::String)
            .pattern(Some(format!("^({})$", types.join("|"))));
        vec![ParameterBuilder::new()
            .name("entity_type")
            .parameter_in(ParameterIn::Query)
            .required(utoipa::openapi::Required::True)
            .description(Some("What the item is; anything else is CONTENT_UNKNOWN_ENTITY_TYPE."))
            .schema(Some(schema))
            .build()]
    }
}

/// The families whose soft-deleted items the trash lists, restores and purges.
pub fn trash_sources() -> crate::trash::TrashSources {
    crate::trash::TrashSources(vec![
        &crate::content::trash::ContentTrash,
        &crate::social_links::trash::SocialTrash,
        &crate::media::trash::MediaTrash,
        &crate::documents::trash::DocumentTrash,
        &crate::navigation::trash::NavigationTrash,
    ])
}

#[cfg(test)]
mod tests {
    /// The spec's `entity_type` values: each is one family's trash source's,
    /// and no source answers for another, so the documented pattern and the
    /// 422's list (both derived from the sources) are the spec's.
    #[test]
    fn every_entity_type_of_the_spec_has_one_trash_source() {
        const SPEC: [&str; 11] = [
            "blog",
            "page",
            "project",
            "cv_entry",
            "skill",
            "media",
            "document",
            "legal",
            "social",
            "menu",
            "menu_item",
        ];
        let sources = super::trash_sources();
        let mut served: Vec<&str> = sources.entity_types().collect();
        served.sort_unstable();
        let mut spec = SPEC.to_vec();
        spec.sort_unstable();
        assert_eq!(served, spec, "a type twice, missing or beyond the spec");
    }
}
