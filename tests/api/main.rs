//! Integration tests: each test starts the real app on a random port against its
//! own fresh database (a temp SQLite file, or a fresh PostgreSQL database when
//! `PLINTH_TEST_DATABASE_URL` is set) and speaks HTTP to it.

// Tests may unwrap: a panic is how a test reports a failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod family_plans;
mod generic_plans;
mod helpers;
mod idp;
mod idp_users;
mod import_archives;
mod import_bounds;
mod instances;
mod isolation;
mod leases;
mod legal;
mod listing;
mod test_databases;

mod account;
mod ai;
mod analytics;
mod api_key_usage;
mod api_keys;
mod audit_api;
mod auth;
mod bearer_cache;
mod blogs;
mod cli;
mod conformance;
mod content_templates;
mod cors;
mod crash;
mod deep_pages;
mod documents;
mod empty_writes;
mod environments;
mod errors;
mod event_stream;
mod export;
mod forms;
mod front_end;
mod front_end_plans;
mod locales;
mod media;
mod members;
mod metrics;
mod moderation;
mod navigation;
mod notifications;
mod openapi_examples;
mod origin_blogs;
mod origin_legal_consent;
mod origin_navigation;
mod origin_page_sections;
mod origin_pages;
mod outbound;
mod outbox_plans;
mod pages;
mod portfolio;
mod preconditions;
mod public_files;
mod rate_limits;
mod readme;
mod receiver;
mod redirects;
mod redis_limits;
mod response_cache;
mod role_matrix;
mod routing;
mod s3_storage;
mod shapes;
mod sites;
mod social_links;
mod system;
mod taxonomy;
mod tenants;

mod trash;
mod webhook_claims;
mod webhooks;
mod write_path;
