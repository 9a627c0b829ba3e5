//! Plinth: a multi-site headless CMS served as a JSON REST API.

pub mod account;
pub mod api;
pub mod api_keys;
pub mod app;
pub mod audit;
pub mod auth;
pub mod blogs;
pub mod config;
pub mod content;
pub mod cors;
pub mod db;
pub mod environments;
pub mod error;
pub mod events;
pub mod http_cache;
pub mod idp;
pub mod legal;
pub mod locales;
pub mod members;
pub mod moderation;
pub mod navigation;
pub mod notifications;
pub mod openapi;
pub mod pages;
pub mod pagination;
pub mod permissions;
pub mod portfolio;
pub mod public_files;
pub mod redirects;
pub mod routes;
pub mod site_rows;
pub mod sites;
pub mod social_links;
#[cfg(test)]
mod source_rules;
pub mod state;
pub mod storage;
pub mod system;
pub mod taxonomy;
pub mod telemetry;
pub mod trash;
pub mod values;
pub mod webhooks;

pub use app::{Plinth, RunningServer};
pub use config::Config;
pub use state::AppState;
