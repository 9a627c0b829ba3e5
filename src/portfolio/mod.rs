//! The portfolio module: CV entries (`/cv`) and projects (`/projects`), both on
//! the content engine's shared endpoints (documented from the blog ones), gated
//! by the site's `module_portfolio_enabled`.

use actix_web::web;

use crate::content::{http, ContentKind};

pub fn configure(cfg: &mut web::ServiceConfig) {
    http::configure_kind(cfg, ContentKind::CvEntry, "cv");
    http::configure_kind(cfg, ContentKind::Project, "projects");
}
