//! Forms: the builder (forms, fields, localizations, templates), public
//! definitions and submissions with server-side validation, bot protection
//! (ALTCHA proof-of-work or a remote verifier), visitor access by reference
//! code, and the review of submissions. Every endpoint answers 404 while the
//! site's `module_forms_enabled` is off.

mod access;
mod admin;
pub mod altcha;
pub mod bot;
mod definition;
mod fields;
mod gate;
mod lease;
pub mod model;
pub mod pattern;
mod public;
pub mod reference;
pub mod review;
pub mod service;
mod submission_model;
mod submissions;
mod submit;
mod templates;
mod validate;

use crate::routes::Routes;

pub fn routes(r: &mut Routes) {
    crate::mount!(r,
        admin => [
            list_forms, create_form, form_by_slug, get_form, update_form, delete_form,
            list_templates, create_template, get_template, update_template, delete_template,
            update_bot_protection,
        ],
        lease => [take_form_lease, release_form_lease],
        submissions => [
            list_submissions, submission_status_counts, get_submission, update_submission_status,
            delete_submission_by_id, add_submission_note, delete_submission_note,
        ],
    );
    crate::mount!(r, public: public => [
        public_form, altcha_challenge, submit_form, lookup_submission, view_submission, delete_submission,
    ]);
}

/// The Janitor's hourly pass: retention, and forgetting spent ALTCHA
/// solutions whose challenges expired.
pub async fn hourly(state: &crate::state::AppState) {
    match review::apply_retention(state).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(deleted = n, "form submissions past their retention deleted"),
        Err(e) => tracing::warn!(error = %e, "form retention failed; will retry next hour"),
    }
    if let Err(e) = bot::sweep_spent(state, state.clock.now()).await {
        tracing::warn!(error = %e, "sweeping spent ALTCHA solutions failed; will retry");
    }
}
