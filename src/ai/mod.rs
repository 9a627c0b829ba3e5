//! AI assist: a site's editors ask an OpenAI-compatible chat-completions
//! provider for suggestions, translations, alt text, tags and page sections.
//!
//! Behind `module_ai_enabled` (403 MODULE_NOT_ENABLED while off). Settings
//! (`GET`/`PUT /sites/{site_id}/ai/settings`) are for site admins; the actions
//! (`POST /sites/{site_id}/ai/{action}`) for authors and up. The capability is
//! checked first, then the module, then the settings (400 AI_NOT_CONFIGURED
//! while the site has none). The API key is stored sealed (XChaCha20-Poly1305
//! under a server secret) and never answered or logged; each answered call
//! adds 1 to `usage.requests` and the provider's `usage.total_tokens` to
//! `usage.total_tokens`.
//!
//! What each action asks the model for (the system prompt ends with the JSON
//! object to answer with, and `response_format` is `json_object`):
//!
//! | action | request | model answers | response |
//! |---|---|---|---|
//! | `suggest` | `{field, content, locale?}`; field title, excerpt, meta_title, meta_description, slug or tags; content 50-50,000 characters (AI_CONTEXT_INSUFFICIENT below 50) | `{"suggestions": ["…"]}` | `{field, suggestions}` (10 at most; slugs made URL-safe) |
//! | `translate` | `{text? \| content_id?, fields?, source_locale?, target_locale, save?}` | `{"translations": {"<field>": "…"}}` | `{target_locale, translations, saved_localization_id?}` |
//! | `alt_text` | `{image_url? \| media_id?, save?, locale?}` (vision model) | `{"alt_text": "…"}` | `{alt_text, saved_metadata_id?}` |
//! | `auto_tag` | the same | `{"tags": ["…"]}` | `{tags, saved_tags?}` |
//! | `section_content` | `{section_type, section_context, locale?}`; types hero, text, features, faq, testimonials, call_to_action; context at least 20 characters | `{"content": {…}}` in the type's shape | `{section_type, content}` |
//!
//! The origin service's admin reaches the same settings and provider at its
//! paths (`origin.rs`): `GET`/`PUT`/`DELETE …/ai/config` (its field names;
//! the key shown as `********`), `POST …/ai/test` (`{success, message}`),
//! `POST …/ai/models` (`GET {base_url}/models`) and `POST …/ai/generate`
//! (content assist: `seo`, `excerpt`, `translate`, `draft_outline`,
//! `draft_post`, each with the site's own instructions when it has some).
//!
//! Text inputs take at most 50,000 characters (422). Locales are codes of the
//! global locale list. Calls: 5 s to connect, the site's `timeout_secs` (30
//! by default, 1-120) in all, redirects refused, the base URL through the
//! SSRF guard on save (AI_URL_SSRF) and before each call; at most 4 calls in
//! flight per site, a fifth waits 2 s at most, then 503
//! AI_PROVIDER_UNAVAILABLE, as for a provider that cannot be reached, times
//! out or answers an error status. An answer that is not the JSON object
//! asked for (a Markdown fence around it is fine) is 500
//! AI_RESPONSE_PARSE_FAILED.

mod actions;
mod assist;
mod handlers;
pub mod model;
mod origin;
pub mod provider;
mod service;
pub mod settings;
mod translate;
mod vision;

use crate::routes::Routes;

pub fn routes(r: &mut Routes) {
    crate::mount!(r,
        handlers => [
            get_ai_settings, update_ai_settings,
            ai_suggest, ai_translate, ai_alt_text, ai_auto_tag, ai_section_content,
        ],
        origin => [get_ai_config, put_ai_config, delete_ai_config, test_ai_config, list_ai_models, ai_generate],
    );
}
