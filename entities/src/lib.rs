//! sea-orm entities of Plinth. One module per table; the migrations crate creates
//! the same tables for SQLite and PostgreSQL.

pub mod api_key;
pub mod audit_log;
pub mod content;
pub mod content_category;
pub mod content_localization;
pub mod content_site;
pub mod content_tag;
pub mod environment;
pub mod event_outbox;
pub mod locale;
pub mod media_file;
pub mod media_folder;
pub mod media_metadata;
pub mod media_site;
pub mod media_variant;
pub mod nav_item;
pub mod nav_menu;
pub mod notification;
pub mod redirect;
pub mod site;
pub mod site_favicon;
pub mod site_locale;
pub mod site_member;
pub mod site_onboarding_step;
pub mod site_setting;
pub mod social_link;
pub mod term;
pub mod term_localization;
pub mod user_moderation;
pub mod user_setting;
pub mod webhook;
pub mod webhook_attempt;
pub mod webhook_buffer;
pub mod webhook_delivery;
