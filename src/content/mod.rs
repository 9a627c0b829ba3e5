//! The content engine: one lifecycle (sites, status, publish window, slugs,
//! localizations, soft delete, audit, events) shared by every content kind.
//! Kinds differ only in what [`ContentKind`] answers and their own fields.

pub mod access;
mod bulk;
pub mod copy;
mod draft;
pub mod events;
pub mod hooks;
pub mod http;
mod kind;
mod kind_input;
pub mod lease_http;
pub mod legal_consent;
pub mod list_item_schemas;
pub mod listing;
mod localization_model;
pub mod localizations;
pub mod localized;
pub mod model;
pub mod moves;
mod page_parent;
pub mod page_sections;
pub mod part_edits;
pub mod part_keys;
pub mod parts;
pub mod queries;
pub mod read;
mod relations;
pub mod rendering;
pub mod schedule;
pub mod slug;
mod status;
pub mod trash;
mod validate;
pub mod write;

pub use kind::{ContentKind, KindRules};
pub use slug::slugify;
pub use status::ContentStatus;
pub(crate) use validate::KIND_FIELDS;
