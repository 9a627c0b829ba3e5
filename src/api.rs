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
