//! The sitemap of a site: its published pages, posts and legal documents, built
//! once into the site's cache (dropped on any content change).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use plinth_entities::{content_listing, content_localization};
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::Writer;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect, QueryTrait};
use uuid::Uuid;

use crate::content::{listing, ContentKind};
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

/// Which of a site's published items one sitemap file lists: every kind of
/// the sitemap, or a slice of one kind (a child of a sitemap index).
#[derive(Clone, Copy, Debug)]
pub enum Slice {
    All,
    Kind { kind: ContentKind, offset: u64, limit: u64 },
}

/// The kinds a sitemap lists.
pub const SITEMAP_KINDS: [ContentKind; 3] = [ContentKind::Page, ContentKind::Blog, ContentKind::Legal];

/// The entries of one sitemap file: two queries, neither binding a variable
/// per item. The site's own rows carry each item's slug, route and last change
/// (`content_listing`), so the items themselves are not read; a slice is a
/// range of the published index (newest first); translations come by a join
/// restricted to the file's items.
pub async fn sitemap_entries(
    state: &AppState,
    site: &SiteState,
    base_url: &str,
    slice: Slice,
) -> ApiResult<Vec<SitemapEntry>> {
    let site_id = site.site.id;
    let rows = match slice {
        Slice::All => listing::published_rows(site_id, &SITEMAP_KINDS),
        Slice::Kind { kind, offset, limit } => listing::page_rows(
            &listing::Filter::published(kind, site_id),
            listing::Sort::LATEST_PUBLISHED,
            limit,
            offset,
        ),
    };
    let items = rows.clone().all(&state.db).await?;
    let mut translated: HashMap<Uuid, Vec<Uuid>> = HashMap::new();
    if site.locales.len() > 1 {
        let in_file = rows.select_only().column(content_listing::Column::ContentId).into_query();
        let pairs: Vec<(Uuid, Uuid)> = content_localization::Entity::find()
            .select_only()
            .column(content_localization::Column::ContentId)
            .column(content_localization::Column::LocaleId)
            .filter(content_localization::Column::ContentId.in_subquery(in_file))
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
            let kind = item.kind;
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

/// The sitemap of the live site with this slug: one file while the site's
/// published items fit in one (see [`urls_per_file`]), else a sitemap index of
/// child files, each a slice of one kind. Not found while the site has no base
/// URL to put in front of its paths.
pub async fn sitemap(state: &AppState, slug: &str) -> ApiResult<Arc<CachedBody>> {
    let (site, base_url) = site_with_base(state, slug).await?;
    site.public
        .get_or_build("sitemap.xml".into(), PUBLIC_MAX_AGE, async {
            let files = sitemap_files(state, &site).await?;
            let xml = if files.len() <= 1 {
                render(&sitemap_entries(state, &site, &base_url, Slice::All).await?)
            } else {
                render_index(&base_url, files.len())
            };
            Ok(CachedBody::new("application/xml; charset=utf-8", xml.map_err(ApiError::internal)?))
        })
        .await
}

/// Child `number` (from 1) of a big site's sitemap index, built from one
/// bounded query (at most [`urls_per_file`] rows) and kept in the site's cache
/// like `sitemap.xml`: anyone may ask for it, so it is built once per content
/// change (single-flight), not once per request.
pub async fn sitemap_child(state: &AppState, slug: &str, number: u64) -> ApiResult<Arc<CachedBody>> {
    let (site, base_url) = site_with_base(state, slug).await?;
    site.public
        .get_or_build(format!("sitemap-{number}.xml"), PUBLIC_MAX_AGE, async {
            let files = sitemap_files(state, &site).await?;
            let slice = usize::try_from(number)
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| files.get(i).copied())
                .filter(|_| files.len() > 1)
                .ok_or_else(|| ApiError::not_found("sitemap", number))?;
            let xml = render(&sitemap_entries(state, &site, &base_url, slice).await?).map_err(ApiError::internal)?;
            Ok(CachedBody::new("application/xml; charset=utf-8", xml))
        })
        .await
}

async fn site_with_base(state: &AppState, slug: &str) -> ApiResult<(Arc<SiteState>, String)> {
    let site = state.live_site_by_slug(slug).await?;
    let base_url = site.site.base_url.clone().ok_or_else(|| {
        ApiError::new(
            ErrorCode::ResourceNotFound,
            "this site has no sitemap yet: set its Site URL (base_url) in the site settings",
        )
    })?;
    Ok((site, base_url.trim_end_matches('/').to_string()))
}

/// The sitemaps.org limits of one file: 50,000 URLs and 50 MB uncompressed.
const MAX_URLS: u64 = 50_000;
/// Under 50 MB with room for the estimate being short.
const MAX_BYTES: u64 = 45 * 1024 * 1024;

/// URLs per sitemap file: 50,000, fewer when the site's translations make
/// entries long (an alternate link per active locale).
pub fn urls_per_file(site: &SiteState, configured: u64) -> u64 {
    let locales = site.locales.iter().filter(|l| l.is_active).count() as u64;
    let bytes_per_entry = 400 + 200 * locales;
    configured.clamp(1, MAX_URLS).min(MAX_BYTES / bytes_per_entry)
}

/// The files of a site's sitemap: one slice per kind and `urls_per_file`
/// items, from the kinds' counters (no count over the site).
async fn sitemap_files(state: &AppState, site: &SiteState) -> ApiResult<Vec<Slice>> {
    let per_file = urls_per_file(site, state.config.sites.sitemap_urls_per_file);
    let mut files = Vec::new();
    let mut total = 0;
    for kind in SITEMAP_KINDS {
        let published = listing::total(&state.db, &listing::Filter::published(kind, site.site.id)).await?;
        total += published;
        let mut offset = 0;
        while offset < published {
            files.push(Slice::Kind { kind, offset, limit: per_file });
            offset += per_file;
        }
    }
    Ok(if total <= per_file { vec![Slice::All] } else { files })
}

fn render_index(base_url: &str, files: usize) -> std::io::Result<Vec<u8>> {
    let mut writer = Writer::new(Vec::new());
    writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    writer
        .create_element("sitemapindex")
        .with_attribute(("xmlns", "http://www.sitemaps.org/schemas/sitemap/0.9"))
        .write_inner_content(|w| {
            for number in 1..=files {
                w.create_element("sitemap").write_inner_content(|w| {
                    let loc = format!("{base_url}/sitemap-{number}.xml");
                    w.create_element("loc").write_text_content(BytesText::new(&loc))?;
                    Ok(())
                })?;
            }
            Ok(())
        })?;
    Ok(writer.into_inner())
}
