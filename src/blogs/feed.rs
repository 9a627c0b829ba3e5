//! `GET /sites/{site_id}/feed.rss`: RSS 2.0 of the last 50 published posts,
//! built once and kept in the site's cache for an hour (dropped on any change).

use std::time::Duration;

use actix_web::{web, HttpResponse};
use plinth_entities::content;
use quick_xml::events::BytesText;
use quick_xml::Writer;
use sea_orm::{QueryOrder, QuerySelect};
use uuid::Uuid;

use crate::auth::Principal;
use crate::content::{read, ContentKind};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::state::{CachedBody, SiteState};

pub const FEED_ITEMS: u64 = 50;
const FEED_TTL: Duration = Duration::from_secs(3600);

fn rss(site: &SiteState, link_base: &str, posts: &[content::Model]) -> std::io::Result<Vec<u8>> {
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
                if let Some(locale) = site.default_locale() {
                    text(w, "language", &locale.code)?;
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

#[utoipa::path(
    get,
    path = "/sites/{site_id}/feed.rss",
    tag = "Blogs",
    params(("site_id" = Uuid, Path)),
    responses(
        (status = 200, content_type = "application/rss+xml", body = String, description = "RSS 2.0, the last 50 published posts; cached for an hour")
    )
)]
pub async fn blog_feed(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    read::require_site_read(&state, &principal, ContentKind::Blog, site_id).await?;
    let site = state.site_state(site_id).await?;
    let feed = site
        .public
        .get_or_build("feed.rss".into(), FEED_TTL, async {
            let posts = read::published_on(ContentKind::Blog, site_id)
                .order_by_desc(content::Column::PublishedAt)
                .limit(FEED_ITEMS)
                .all(&state.db)
                .await?;
            let link_base = site.site.base_url.clone().unwrap_or_else(|| state.config.public_url());
            let body = rss(&site, &link_base, &posts).map_err(ApiError::internal)?;
            Ok(CachedBody { content_type: "application/rss+xml; charset=utf-8", body: body.into() })
        })
        .await?;
    Ok(HttpResponse::Ok()
        .content_type(feed.content_type)
        .insert_header(("Cache-Control", "public, max-age=3600"))
        .body(feed.body.clone()))
}
