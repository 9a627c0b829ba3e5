//! The sitemap of a site: its published pages, posts and legal documents, built
//! once into the site's cache (dropped on any content change).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use plinth_entities::{content_listing, content_localization};
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::Writer;
use sea_orm::{ColumnTrait, EntityTrait, JoinType, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

use crate::content::{ContentKind, ContentStatus};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::sites::prefix_path;
use crate::state::AppState;
use crate::state::{CachedBody, SiteState};

/// How long a built sitemap is served before it is built again.
pub const PUBLIC_MAX_AGE: Duration = Duration::from_secs(3600);

/// One `<url>` of the sitemap.
#[derive(Clone, Debug, PartialEq)]
pub struct SitemapEntry {
    pub loc: String,
    pub lastmod: String,
    pub changefreq: &'static str,
    pub priority: &'static str,
    /// `(hreflang, href)`; empty unless the item has translations on a multi-locale site.
    pub alternates: Vec<(String, String)>,
}

/// How each published kind appears in a sitemap: path, change frequency, priority.
fn placement(kind: ContentKind, slug: &str, route: Option<&str>) -> Option<(String, &'static str, &'static str)> {
    match kind {
        ContentKind::Page => Some((route.unwrap_or("/").to_string(), "monthly", "0.8")),
        ContentKind::Blog => Some((format!("/blog/{slug}"), "weekly", "0.6")),
        ContentKind::Legal => Some((format!("/legal/{slug}"), "yearly", "0.4")),
        _ => None,
    }
}

/// The sitemap inputs of a site: two queries whatever the number of items,
/// neither binding a variable per item. The site's own rows carry each item's
/// slug, route, status and last change (`content_listing`), so the items
/// themselves are not read; translations are found by a join on the site.
pub async fn sitemap_entries(state: &AppState, site: &SiteState, base_url: &str) -> ApiResult<Vec<SitemapEntry>> {
    let kinds = [ContentKind::Page, ContentKind::Blog, ContentKind::Legal];
    let site_id = site.site.id;
    let items = content_listing::Entity::find()
        .filter(content_listing::Column::SiteId.eq(site_id))
        .filter(content_listing::Column::Kind.is_in(kinds.map(ContentKind::as_str)))
        .filter(content_listing::Column::Status.eq(ContentStatus::Published.as_str()))
        .filter(content_listing::Column::IsDeleted.eq(false))
        .order_by_asc(content_listing::Column::Kind)
        .order_by_asc(content_listing::Column::Slug)
        .all(&state.db)
        .await?;
    let mut translated: HashMap<Uuid, Vec<Uuid>> = HashMap::new();
    if site.locales.len() > 1 {
        let pairs: Vec<(Uuid, Uuid)> = content_localization::Entity::find()
            .select_only()
            .column(content_localization::Column::ContentId)
            .column(content_localization::Column::LocaleId)
            .join(
                JoinType::InnerJoin,
                content_localization::Entity::belongs_to(content_listing::Entity)
                    .from(content_localization::Column::ContentId)
                    .to(content_listing::Column::ContentId)
                    .into(),
            )
            .filter(content_listing::Column::SiteId.eq(site_id))
            .filter(content_listing::Column::Status.eq(ContentStatus::Published.as_str()))
            .filter(content_listing::Column::IsDeleted.eq(false))
            .into_tuple()
            .all(&state.db)
            .await?;
        for (content_id, locale_id) in pairs {
            translated.entry(content_id).or_default().push(locale_id);
        }
    }
    let default_locale = site.default_locale();
    Ok(items
        .iter()
        .filter_map(|item| {
            let kind = ContentKind::parse(&item.kind)?;
            let (path, changefreq, priority) = placement(kind, &item.slug, item.route.as_deref())?;
            let alternates = match (translated.get(&item.content_id), default_locale) {
                (Some(locales), Some(default)) => {
                    let mut links =
                        vec![(default.code.clone(), format!("{base_url}{}{path}", prefix_path(&default.url_prefix)))];
                    links.extend(
                        site.locales
                            .iter()
                            .filter(|l| l.is_active && !l.is_default && locales.contains(&l.locale_id))
                            .map(|l| (l.code.clone(), format!("{base_url}{}{path}", prefix_path(&l.url_prefix)))),
                    );
                    if links.len() > 1 {
                        links
                    } else {
                        Vec::new()
                    }
                }
                _ => Vec::new(),
            };
            Some(SitemapEntry {
                loc: format!("{base_url}{path}"),
                lastmod: item.updated_at.map(|at| at.format("%Y-%m-%dT%H:%M:%SZ").to_string()).unwrap_or_default(),
                changefreq,
                priority,
                alternates,
            })
        })
        .collect())
}

fn render(entries: &[SitemapEntry]) -> std::io::Result<Vec<u8>> {
    let mut writer = Writer::new(Vec::new());
    writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    writer
        .create_element("urlset")
        .with_attribute(("xmlns", "http://www.sitemaps.org/schemas/sitemap/0.9"))
        .with_attribute(("xmlns:xhtml", "http://www.w3.org/1999/xhtml"))
        .write_inner_content(|w| {
            for entry in entries {
                w.create_element("url").write_inner_content(|w| {
                    w.create_element("loc").write_text_content(BytesText::new(&entry.loc))?;
                    w.create_element("lastmod").write_text_content(BytesText::new(&entry.lastmod))?;
                    w.create_element("changefreq").write_text_content(BytesText::new(entry.changefreq))?;
                    w.create_element("priority").write_text_content(BytesText::new(entry.priority))?;
                    for (lang, href) in &entry.alternates {
                        w.create_element("xhtml:link")
                            .with_attribute(("rel", "alternate"))
                            .with_attribute(("hreflang", lang.as_str()))
                            .with_attribute(("href", href.as_str()))
                            .write_empty()?;
                    }
                    Ok(())
                })?;
            }
            Ok(())
        })?;
    Ok(writer.into_inner())
}

/// The sitemap of the live site with this slug; not found while the site has no
/// base URL to put in front of its paths.
pub async fn sitemap(state: &AppState, slug: &str) -> ApiResult<Arc<CachedBody>> {
    let site = state.live_site_by_slug(slug).await?;
    let base_url = site.site.base_url.clone().ok_or_else(|| {
        ApiError::new(
            ErrorCode::ResourceNotFound,
            "this site has no sitemap yet: set its Site URL (base_url) in the site settings",
        )
    })?;
    site.public
        .get_or_build("sitemap.xml".into(), PUBLIC_MAX_AGE, async {
            let entries = sitemap_entries(state, &site, &base_url).await?;
            let xml = render(&entries).map_err(ApiError::internal)?;
            Ok(CachedBody::new("application/xml; charset=utf-8", xml))
        })
        .await
}
