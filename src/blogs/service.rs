//! What only blogs have beyond the content engine: the RSS feed and the sample
//! posts for a fresh site.

use crate::audit;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use plinth_entities::values::TranslationStatus;
use plinth_entities::{content, content_localization};
use quick_xml::events::BytesText;
use quick_xml::Writer;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use uuid::Uuid;

use crate::auth::{SiteGrant, SitesGrant};
use crate::content::listing::{self, Filter, Sort};
use crate::content::localized::LocaleChain;
use crate::content::model::{ContentResponse, CreateContent};
use crate::content::queries::LocaleQuery;
use crate::content::{events, read, write, ContentKind};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::events::EventAction;
use crate::state::AppState;
use crate::state::{CachedBody, SiteState};

const FEED_ITEMS: u64 = 50;
const FEED_TTL: Duration = Duration::from_secs(3600);

fn rss(
    site: &SiteState,
    link_base: &str,
    language: Option<&str>,
    posts: &[content::Model],
) -> std::io::Result<Vec<u8>> {
    let mut writer = Writer::new(Vec::new());
    writer.write_event(quick_xml::events::Event::Decl(quick_xml::events::BytesDecl::new(
        "1.0",
        Some("UTF-8"),
        None,
    )))?;
    let text = |w: &mut Writer<Vec<u8>>, name: &str, value: &str| -> std::io::Result<()> {
        w.create_element(name).write_text_content(BytesText::new(value))?;
        Ok(())
    };
    writer
        .create_element("rss")
        .with_attribute(("version", "2.0"))
        .with_attribute(("xmlns:dc", "http://purl.org/dc/elements/1.1/"))
        .write_inner_content(|w| {
            w.create_element("channel").write_inner_content(|w| {
                text(w, "title", &site.site.name)?;
                text(w, "link", link_base)?;
                text(w, "description", &site.site.description)?;
                if let Some(language) = language {
                    text(w, "language", language)?;
                }
                if let Some(latest) = posts.first().and_then(|p| p.published_at) {
                    text(w, "lastBuildDate", &latest.to_rfc2822())?;
                }
                for post in posts {
                    w.create_element("item").write_inner_content(|w| {
                        text(w, "title", &post.title)?;
                        text(w, "link", &format!("{link_base}/blog/{}", post.slug))?;
                        w.create_element("guid")
                            .with_attribute(("isPermaLink", "false"))
                            .write_text_content(BytesText::new(&post.id.to_string()))?;
                        if let Some(at) = post.published_at {
                            text(w, "pubDate", &at.to_rfc2822())?;
                        }
                        if let Some(author) = &post.author {
                            text(w, "dc:creator", author)?;
                        }
                        text(w, "description", &post.excerpt)
                    })?;
                }
                Ok(())
            })?;
            Ok(())
        })?;
    Ok(writer.into_inner())
}

/// RSS 2.0 of the site's last published posts, from the site's cache; in
/// the locale `text` names (its titles, and links under its path prefix).
pub async fn feed(state: &AppState, site_id: Uuid, locale: &LocaleQuery) -> ApiResult<Arc<CachedBody>> {
    let site = state.site_state(site_id).await?;
    let chain = LocaleChain::of_request(&site, locale.locale.as_deref(), locale.fallback.as_deref())?;
    let key = match &chain {
        Some(chain) => format!("feed.rss:{}", chain.key()),
        None => "feed.rss".into(),
    };
    site.public
        .get_or_build(key, FEED_TTL, async {
            let latest = Filter::published(ContentKind::Blog, site_id);
            let mut posts = listing::load_page(&state.db, &latest, Sort::LATEST_PUBLISHED, FEED_ITEMS, 0).await?;
            let mut link_base = site.site.base_url.clone().unwrap_or_else(|| state.config.public_url());
            let mut language = site.default_locale().map(|l| l.code.clone());
            if let Some(chain) = &chain {
                chain.localize_rows(&*state.db, &mut posts).await?;
                link_base = format!("{}{}", link_base.trim_end_matches('/'), chain.path_prefix());
                language = Some(chain.code().to_string());
            }
            let body = rss(&site, &link_base, language.as_deref(), &posts).map_err(ApiError::internal)?;
            Ok(CachedBody::new("application/rss+xml; charset=utf-8", body))
        })
        .await
}

/// The sample posts: title, excerpt and body.
const SAMPLES: [(&str, &str, &str); 3] = [
    (
        "Welcome to your new blog",
        "A first post to show how posts look.",
        "This is a sample post. Edit it, or delete all samples when you are ready.",
    ),
    (
        "Writing in several languages",
        "Posts can be translated per locale.",
        "Add a localization for each language your site speaks.",
    ),
    (
        "Publishing with a review step",
        "Turn on the editorial workflow to review before publishing.",
        "Submit a post for review; a reviewer approves it or asks for changes.",
    ),
];

/// Live sample posts of the site.
fn samples_of(site_id: Uuid) -> sea_orm::Select<content::Entity> {
    let samples = content::Entity::find()
        .filter(content::Column::Kind.eq(ContentKind::Blog.as_str()))
        .filter(content::Column::IsSample.eq(true))
        .filter(content::Column::IsDeleted.eq(false));
    read::on_site_only(samples, site_id)
}

/// Writes the three sample Drafts, unless the site has samples already.
pub async fn seed(state: &AppState, site: &SiteGrant, now: DateTime<Utc>) -> ApiResult<Vec<ContentResponse>> {
    let site_id = site.site_id();
    let grant = SitesGrant::from(site.clone());
    let cached = state.site_state(site_id).await?;
    let locale_id = cached.default_locale().map(|l| l.locale_id).ok_or_else(|| {
        ApiError::new(ErrorCode::BlogNoDefaultLocale, "the site has no default locale to write the samples in")
    })?;
    if samples_of(site_id).count(&state.db).await? > 0 {
        return Err(ApiError::new(ErrorCode::BlogSampleExists, "the site already has sample posts; delete them first"));
    }
    let mut checked = Vec::new();
    for (title, excerpt, body) in SAMPLES {
        let request = CreateContent {
            site_ids: vec![site_id],
            title: title.into(),
            excerpt: excerpt.into(),
            body: body.into(),
            ..CreateContent::default()
        };
        checked.push((title, excerpt, body, write::check_new(state, &grant, ContentKind::Blog, request).await?));
    }
    audit::write(&state.db, async |txn| {
        let mut stored = Vec::new();
        for (title, excerpt, body, item) in checked {
            let inserted = write::insert(txn, site.actor(), ContentKind::Blog, item, true).await?;
            content_localization::ActiveModel {
                id: Set(Uuid::new_v4()),
                content_id: Set(inserted.id),
                locale_id: Set(locale_id),
                title: Set(title.into()),
                subtitle: Set(String::new()),
                excerpt: Set(excerpt.into()),
                body: Set(body.into()),
                meta_title: Set(title.into()),
                meta_description: Set(excerpt.into()),
                translation_status: Set(TranslationStatus::Approved),
                created_at: Set(now),
                updated_at: Set(now),
            }
            .insert(txn)
            .await?;
            stored.push(inserted);
        }
        let mut created = Vec::new();
        let mut events = Vec::new();
        for inserted in stored {
            let item = write::audit_created(txn, now, site.actor(), inserted).await?;
            events.extend(events::created_events(ContentKind::Blog, &item, now));
            created.push(item);
        }
        events::store_events(state, txn, events).await?;
        Ok(created)
    })
    .await
}

/// Moves the site's live sample posts to the trash; answers how many.
pub async fn delete_samples(state: &AppState, site: &SiteGrant, now: DateTime<Utc>) -> ApiResult<u64> {
    let site_id = site.site_id();
    audit::write(&state.db, async |txn| {
        let ids: Vec<Uuid> = samples_of(site_id).all(txn).await?.into_iter().map(|m| m.id).collect();
        if ids.is_empty() {
            txn.found_nothing_to_change();
        }
        let deleted = write::soft_delete_many(txn, now, site.actor(), ContentKind::Blog, &ids).await?;
        let events = deleted
            .iter()
            .flat_map(|item| events::events_for(ContentKind::Blog, EventAction::Deleted, item, now))
            .collect();
        events::store_events(state, txn, events).await?;
        Ok(deleted.len() as u64)
    })
    .await
}
