//! Database migrations. The same migrations run on SQLite and PostgreSQL; each one
//! is a module named `m<date>_<number>_<what>` and is never edited once shipped.

/// The listing columns a `content_sites` row copies from its item (`contents`).
pub use m20261125_000024_content_listing::COPIED as CONTENT_SITES_COPIED;
pub use m20261126_000028_content_search_unweighted::POSTGRES_SEARCH_VECTOR;
pub use sea_orm_migration::prelude::*;

mod m20261121_000001_foundation;
mod m20261121_000002_content;
mod m20261121_000003_environments;
mod m20261121_000004_term_localizations;
mod m20261121_000005_notifications;
mod m20261121_000006_webhooks;
mod m20261121_000007_event_outbox;
mod m20261121_000008_redirects;
mod m20261121_000009_social_links;
mod m20261121_000010_navigation;
mod m20261121_000011_user_settings;
mod m20261121_000012_site_onboarding;
mod m20261121_000013_user_moderation;
mod m20261123_000014_bare_url_prefixes;
mod m20261124_000015_delivery_claims;
mod m20261124_000016_media;
mod m20261124_000017_documents;
mod m20261124_000018_analytics;
mod m20261124_000019_export_jobs;
mod m20261124_000020_forms;
mod m20261124_000021_audit_sites;
mod m20261124_000022_ai;
mod m20261125_000023_cluster;
mod m20261125_000024_content_listing;
mod m20261126_000025_family_lists;
mod m20261126_000026_site_imports;
mod m20261126_000027_content_search;
mod m20261126_000028_content_search_unweighted;
mod m20261126_000029_content_search_scopes;
mod m20261126_000030_api_key_lifecycle;
mod m20261127_000031_site_notifications;
mod m20261127_000032_api_key_requests;
mod m20261128_000033_social_link_alt_text;
mod m20261128_000034_localization_subtitle_status;
mod m20261128_000035_navigation_origin_fields;
mod m20261129_000036_page_section_keys;
mod m20261129_000037_search_index_without_pending_list;
mod m20261129_000038_content_templates;
mod m20261129_000039_ai_system_prompts;
mod m20261129_000040_analytics_path_index;
mod m20261130_000041_content_part_keys;
mod m20261130_000042_event_outbox_by_site;
mod m20261207_000043_audit_by_entity_id;
mod m20261207_000044_edit_leases;
mod m20261207_000045_edit_leases_in_order;
mod m20261208_000046_content_sites_filled_once;

pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261121_000001_foundation::Migration),
            Box::new(m20261121_000002_content::Migration),
            Box::new(m20261121_000003_environments::Migration),
            Box::new(m20261121_000004_term_localizations::Migration),
            Box::new(m20261121_000005_notifications::Migration),
            Box::new(m20261121_000006_webhooks::Migration),
            Box::new(m20261121_000007_event_outbox::Migration),
            Box::new(m20261121_000008_redirects::Migration),
            Box::new(m20261121_000009_social_links::Migration),
            Box::new(m20261121_000010_navigation::Migration),
            Box::new(m20261121_000011_user_settings::Migration),
            Box::new(m20261121_000012_site_onboarding::Migration),
            Box::new(m20261121_000013_user_moderation::Migration),
            Box::new(m20261123_000014_bare_url_prefixes::Migration),
            Box::new(m20261124_000015_delivery_claims::Migration),
            Box::new(m20261124_000016_media::Migration),
            Box::new(m20261124_000017_documents::Migration),
            Box::new(m20261124_000018_analytics::Migration),
            Box::new(m20261124_000019_export_jobs::Migration),
            Box::new(m20261124_000020_forms::Migration),
            Box::new(m20261124_000021_audit_sites::Migration),
            Box::new(m20261124_000022_ai::Migration),
            Box::new(m20261125_000023_cluster::Migration),
            Box::new(m20261125_000024_content_listing::Migration),
            Box::new(m20261126_000025_family_lists::Migration),
            Box::new(m20261126_000026_site_imports::Migration),
            Box::new(m20261126_000027_content_search::Migration),
            Box::new(m20261126_000028_content_search_unweighted::Migration),
            Box::new(m20261126_000029_content_search_scopes::Migration),
            Box::new(m20261126_000030_api_key_lifecycle::Migration),
            Box::new(m20261127_000031_site_notifications::Migration),
            Box::new(m20261127_000032_api_key_requests::Migration),
            Box::new(m20261128_000033_social_link_alt_text::Migration),
            Box::new(m20261128_000034_localization_subtitle_status::Migration),
            Box::new(m20261128_000035_navigation_origin_fields::Migration),
            Box::new(m20261129_000036_page_section_keys::Migration),
            Box::new(m20261129_000037_search_index_without_pending_list::Migration),
            Box::new(m20261129_000038_content_templates::Migration),
            Box::new(m20261129_000039_ai_system_prompts::Migration),
            Box::new(m20261129_000040_analytics_path_index::Migration),
            Box::new(m20261130_000041_content_part_keys::Migration),
            Box::new(m20261130_000042_event_outbox_by_site::Migration),
            Box::new(m20261207_000043_audit_by_entity_id::Migration),
            Box::new(m20261207_000044_edit_leases::Migration),
            Box::new(m20261207_000045_edit_leases_in_order::Migration),
            Box::new(m20261208_000046_content_sites_filled_once::Migration),
        ]
    }
}
