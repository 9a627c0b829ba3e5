//! robots.txt, the web manifest and browserconfig.xml of a site, built once
//! into the site's public cache (a settings or favicon change reloads the site
//! state, and with it the cache) and served with `max-age=3600` and an ETag.

use std::sync::Arc;

use plinth_entities::site_favicon;
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::Writer;
use sea_orm::EntityTrait;
use serde::Deserialize;
use serde_json::json;

use super::service::PUBLIC_MAX_AGE;
use crate::error::{ApiError, ApiResult};
use crate::state::{AppState, CachedBody, SiteState};

/// An icon of the favicon package, as stored with it.
#[derive(Deserialize)]
struct Icon {
    name: String,
    url: String,
    width: u32,
    height: u32,
}

async fn icons(state: &AppState, site: &SiteState) -> ApiResult<Vec<Icon>> {
    let row = site_favicon::Entity::find_by_id(site.site.id).one(&state.db).await?;
    Ok(row.and_then(|r| serde_json::from_value(r.variants).ok()).unwrap_or_default())
}

pub fn robots_txt(site: &SiteState) -> String {
    let mut out = String::new();
    for group in &site.settings.robots_txt_rules {
        out.push_str(&format!("User-agent: {}\n", group.user_agent));
        for rule in &group.rules {
            out.push_str(&format!("{}: {}\n", rule.directive, rule.path));
        }
        out.push('\n');
    }
    if let Some(base) = &site.site.base_url {
        out.push_str(&format!("Sitemap: {}/sitemap.xml\n", base.trim_end_matches('/')));
    }
    out
}

/// `short_name`: the name cut at 12 characters (what home screens show).
fn short_name(name: &str) -> String {
    name.chars().take(12).collect::<String>().trim_end().to_string()
}

async fn manifest(state: &AppState, site: &SiteState) -> ApiResult<Vec<u8>> {
    let icons: Vec<_> = icons(state, site)
        .await?
        .into_iter()
        .filter(|i| i.name.starts_with("android-chrome") || i.name == "apple-touch-icon.png")
        .map(|i| json!({"src": i.url, "sizes": format!("{}x{}", i.width, i.height), "type": "image/png"}))
        .collect();
    let body = json!({
        "name": site.site.name,
        "short_name": short_name(&site.site.name),
        "icons": icons,
        "theme_color": site.settings.theme_color,
        "background_color": site.settings.background_color,
        "display": "standalone",
        "start_url": "/",
    });
    serde_json::to_vec_pretty(&body).map_err(ApiError::internal)
}

async fn browserconfig(state: &AppState, site: &SiteState) -> ApiResult<Vec<u8>> {
    let icons = icons(state, site).await?;
    let tile = icons.iter().find(|i| i.name == "android-chrome-192x192.png").or(icons.first());
    let mut writer = Writer::new(Vec::new());
    let written: std::io::Result<()> = (|| {
        writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("utf-8"), None)))?;
        writer.create_element("browserconfig").write_inner_content(|w| {
            w.create_element("msapplication").write_inner_content(|w| {
                w.create_element("tile").write_inner_content(|w| {
                    if let Some(tile) = tile {
                        w.create_element("square150x150logo")
                            .with_attribute(("src", tile.url.as_str()))
                            .write_empty()?;
                    }
                    w.create_element("TileColor").write_text_content(BytesText::new(&site.settings.theme_color))?;
                    Ok(())
                })?;
                Ok(())
            })?;
            Ok(())
        })?;
        Ok(())
    })();
    written.map_err(ApiError::internal)?;
    Ok(writer.into_inner())
}

#[derive(Clone, Copy)]
pub enum SiteFile {
    Robots,
    Manifest,
    BrowserConfig,
}

impl SiteFile {
    fn name(self) -> &'static str {
        match self {
            SiteFile::Robots => "robots.txt",
            SiteFile::Manifest => "site.webmanifest",
            SiteFile::BrowserConfig => "browserconfig.xml",
        }
    }
}

/// The built file of the live site with this slug.
pub async fn site_file(state: &AppState, slug: &str, file: SiteFile) -> ApiResult<Arc<CachedBody>> {
    let site = state.live_site_by_slug(slug).await?;
    site.public
        .get_or_build(file.name().into(), PUBLIC_MAX_AGE, async {
            Ok(match file {
                SiteFile::Robots => CachedBody::new("text/plain; charset=utf-8", robots_txt(&site)),
                SiteFile::Manifest => CachedBody::new("application/manifest+json", manifest(state, &site).await?),
                SiteFile::BrowserConfig => {
                    CachedBody::new("application/xml; charset=utf-8", browserconfig(state, &site).await?)
                }
            })
        })
        .await
}
