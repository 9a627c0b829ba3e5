//! The OpenAPI document served at `/api-docs/openapi.json`. Handlers declare
//! paths relative to `/api/v1`; [`PrefixPaths`] adds the prefix.

use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::Paths;
use utoipa::{Modify, OpenApi};

use crate::{
    account, api_keys, blogs, content, environments, legal, locales, members, moderation, navigation, notifications,
    pages, portfolio, public_files, redirects, sites, social_links, system, taxonomy, trash, webhooks,
};

#[derive(OpenApi)]
#[openapi(
    info(title = "Plinth API", description = "Multi-site headless CMS. Every failure is RFC 7807 problem+json with a stable `code`; `GET /api/v1/error-codes` lists them."),
    paths(
        system::version, system::health, system::public_config, system::imprint, system::error_codes,
        api_keys::create_api_key, api_keys::list_api_keys, api_keys::revoke_api_key,
        locales::list_locales, locales::create_locale, locales::update_locale, locales::delete_locale,
        sites::list_sites, sites::create_site, sites::list_deleted_sites, sites::get_site, sites::get_site_by_slug,
        sites::update_site, sites::delete_site, sites::reset_content, sites::restore_site, sites::site_context,
        sites::get_site_onboarding, sites::complete_onboarding_step,
        sites::get_settings, sites::update_settings,
        sites::list_site_locales, sites::add_site_locale, sites::update_site_locale, sites::delete_site_locale,
        sites::set_default_site_locale,
        content::http::list_items, content::http::list_published, content::http::get_by_slug, content::http::get_item,
        content::http::get_detail, content::http::create_item, content::http::update_item, content::http::delete_item,
        content::http::clone_item, content::http::review_item, content::http::bulk_items, content::http::list_localizations,
        content::http::create_localization, content::http::update_localization, content::http::delete_localization,
        content::http::preview_item,
        environments::list_environments, environments::get_default_environment, environments::create_environment,
        environments::update_environment, environments::delete_environment,
        blogs::list_featured_blogs, blogs::similar_blogs, blogs::blog_feed, blogs::seed_blogs, blogs::delete_sample_blogs,
        pages::get_page_by_route,
        legal::create_legal_version,
        portfolio::get_skill_by_slug,
        redirects::list_redirects, redirects::resolve_redirect, redirects::get_redirect, redirects::create_redirect,
        redirects::update_redirect, redirects::delete_redirect,
        social_links::list_social_links, social_links::create_social_link, social_links::update_social_link,
        social_links::delete_social_link,
        public_files::sitemap,
        crate::idp::list_idp_users, crate::idp::get_idp_user, crate::idp::set_idp_user_role,
        moderation::suspend_user, moderation::ban_user, moderation::unsuspend_user, moderation::delete_user,
        account::me, account::get_profile, account::export_account, account::delete_account, account::get_preferences, account::update_preferences, account::get_help_state,
        account::update_help_state, account::reset_help_state, account::get_onboarding, account::complete_onboarding,
        members::my_memberships, members::list_members, members::add_member, members::update_member,
        members::remove_member, members::transfer_ownership,
        navigation::list_menus, navigation::get_menu, navigation::create_menu, navigation::update_menu,
        navigation::delete_menu, navigation::create_menu_item, navigation::update_menu_item, navigation::delete_menu_item,
        taxonomy::list_terms, taxonomy::create_term, taxonomy::update_term, taxonomy::delete_term,
        taxonomy::list_term_localizations, taxonomy::create_term_localization, taxonomy::update_term_localization,
        taxonomy::delete_term_localization,
        notifications::list_notifications, notifications::mark_read, notifications::mark_all_read,
        webhooks::list_webhooks, webhooks::get_webhook, webhooks::create_webhook, webhooks::update_webhook,
        webhooks::delete_webhook, webhooks::test_webhook, webhooks::list_deliveries, webhooks::retry_delivery,
        webhooks::webhook_stats,
        trash::list_trash, trash::count_trash, trash::restore_from_trash, trash::delete_from_trash,
    ),
    components(schemas(crate::error::Problem, crate::error::FieldError, crate::pagination::PageMeta)),
    modifiers(&SecuritySchemes, &DerivedKinds, &PrefixPaths),
)]
struct ApiDoc;

struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components
            .add_security_scheme("api_key", SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("X-API-Key"))));
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).bearer_format("JWT").build()),
        );
    }
}

/// Handlers shared by several kinds are documented once, under the first kind's
/// paths; every other kind gets the same entries with its own paths, tags,
/// operation ids and codes.
struct DerivedKinds;

/// `(operations documented once, word to replace, singular to replace, the other
/// kinds as (singular, plural, tag))`
type Derivation =
    (&'static [&'static str], &'static str, &'static str, &'static [(&'static str, &'static str, &'static str)]);

const DERIVATIONS: [Derivation; 2] = [
    (
        &content::http::SHARED_OPERATIONS,
        "blogs",
        "blog",
        &[
            ("page", "pages", "Pages"),
            ("cv", "cv", "CV entries"),
            ("project", "projects", "Projects"),
            ("legal", "legal", "Legal documents"),
            ("skill", "skills", "Skills"),
        ],
    ),
    (&taxonomy::TAXONOMY_OPERATIONS, "categories", "category", &[("tag", "tags", "Taxonomy")]),
];

impl Modify for DerivedKinds {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (shared_ops, plural_word, singular_word, others) in DERIVATIONS {
            let shared: Vec<(String, utoipa::openapi::PathItem)> = openapi
                .paths
                .paths
                .iter()
                .filter(|(_, item)| {
                    operations(item).any(|op| op.operation_id.as_deref().is_some_and(|id| shared_ops.contains(&id)))
                })
                .map(|(path, item)| (path.clone(), item.clone()))
                .collect();
            let source_tag = if plural_word == "blogs" { "Blogs" } else { "Taxonomy" };
            for (singular, plural, tag) in others {
                for (path, item) in &shared {
                    let json = serde_json::to_string(item).unwrap_or_default();
                    let json = json
                        .replace(&format!("\"{source_tag}\""), &format!("\"{tag}\""))
                        .replace(plural_word, plural)
                        .replace(singular_word, singular)
                        .replace(&singular_word.to_uppercase(), &singular.to_uppercase());
                    if let Ok(item) = serde_json::from_str(&json) {
                        openapi.paths.paths.insert(path.replace(plural_word, plural), item);
                    }
                }
            }
        }
    }
}

fn operations(item: &utoipa::openapi::PathItem) -> impl Iterator<Item = &utoipa::openapi::path::Operation> {
    [&item.get, &item.put, &item.post, &item.delete, &item.patch].into_iter().flatten()
}

struct PrefixPaths;

impl Modify for PrefixPaths {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let old = std::mem::take(&mut openapi.paths.paths);
        let mut paths = Paths::new();
        for (path, item) in old {
            paths.paths.insert(format!("/api/v1{}", if path == "/" { "/" } else { &path }), item);
        }
        openapi.paths = paths;
    }
}

pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// Client generators name methods after operation ids; two operations with
    /// one id make the document unusable for them.
    #[test]
    fn every_operation_id_is_unique() {
        let doc = document();
        let mut seen: HashMap<String, String> = HashMap::new();
        for (path, item) in &doc.paths.paths {
            for op in operations(item) {
                let id = op.operation_id.clone().expect("every operation has an id");
                if let Some(first) = seen.insert(id.clone(), path.clone()) {
                    panic!("operation id {id} is used by {first} and {path}");
                }
            }
        }
        assert!(seen.len() > 100, "the document lists the API ({} operations)", seen.len());
    }
}
