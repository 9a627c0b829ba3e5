//! Format 1 (`plinth-site-export/1`): one `Archive` struct of the site's
//! tables. Archives already taken stay importable: the document is read whole
//! (within its limit, as format 1 always was) and turned into the events of
//! format 2, which the importer writes the same way.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use plinth_entities::{
    content, content_category, content_localization, content_site, content_tag, locale, media_file, media_metadata,
    nav_item, nav_menu, site, site_locale, site_setting, term, term_localization,
};
use serde::Deserialize;
use uuid::Uuid;

use crate::content::ContentKind;

use super::format::{Content, Event, Header, Media, MediaText, Menu, Placement, SiteLocale, Taxonomy, Term, TermText};

/// `archive.json` of format 1: the site's rows, table by table, as stored.
#[derive(Deserialize, Clone, Debug)]
pub struct Archive {
    pub format: String,
    pub exported_at: DateTime<Utc>,
    pub site: site::Model,
    pub settings: Vec<site_setting::Model>,
    pub locales: Vec<locale::Model>,
    pub site_locales: Vec<site_locale::Model>,
    pub contents: Vec<content::Model>,
    pub content_sites: Vec<content_site::Model>,
    pub content_localizations: Vec<content_localization::Model>,
    pub content_categories: Vec<content_category::Model>,
    pub content_tags: Vec<content_tag::Model>,
    pub terms: Vec<term::Model>,
    pub term_localizations: Vec<term_localization::Model>,
    pub navigation_menus: Vec<nav_menu::Model>,
    pub navigation_items: Vec<nav_item::Model>,
    pub media: Vec<media_file::Model>,
    pub media_metadata: Vec<media_metadata::Model>,
    /// Entries under `media/`: `media/<sha-256>.<ext>`.
    pub media_files: Vec<String>,
}

/// The name format 1 gave a media file's bytes.
fn media_entry(file: &media_file::Model) -> Option<String> {
    let (key, checksum) = (file.storage_key.as_ref()?, file.checksum.as_ref()?);
    Some(format!("media/{checksum}.{}", key.rsplit('.').next().unwrap_or("bin")))
}

fn group<T, K: std::hash::Hash + Eq>(rows: Vec<T>, key: impl Fn(&T) -> K) -> HashMap<K, Vec<T>> {
    let mut groups: HashMap<K, Vec<T>> = HashMap::new();
    for row in rows {
        groups.entry(key(&row)).or_default().push(row);
    }
    groups
}

/// The archive as the events of format 2, in their order.
pub fn events(archive: Archive) -> Vec<Event> {
    let codes: HashMap<Uuid, String> = archive.locales.iter().map(|l| (l.id, l.code.clone())).collect();
    let code = |id: Uuid| codes.get(&id).cloned();
    let globals: HashMap<Uuid, &locale::Model> = archive.locales.iter().map(|l| (l.id, l)).collect();
    let locales = archive
        .site_locales
        .iter()
        .filter_map(|l| {
            let global = globals.get(&l.locale_id)?;
            Some(SiteLocale {
                code: global.code.clone(),
                name: global.name.clone(),
                native_name: global.native_name.clone(),
                direction: global.direction.clone(),
                is_default: l.is_default,
                is_active: l.is_active,
                url_prefix: l.url_prefix.clone(),
                created_at: l.created_at,
            })
        })
        .collect();
    let header = Header {
        exported_at: Some(archive.exported_at),
        site: archive.site,
        settings: archive.settings.into_iter().next().map(|s| s.overrides),
        locales,
    };
    let mut out = vec![Event::Header(Box::new(header))];

    // Format 1 stored the bytes of the files it listed in `media_files` only.
    let listed: std::collections::HashSet<String> = archive.media_files.into_iter().collect();
    let mut metadata = group(archive.media_metadata, |m| m.media_id);
    for file in archive.media {
        let texts = metadata.remove(&file.id).unwrap_or_default();
        let metadata = texts.into_iter().filter_map(|m| MediaText::of(m, code)).collect();
        let entry = media_entry(&file).filter(|name| listed.contains(name));
        out.push(Event::Media(Box::new(Media { file, entry, metadata })));
    }

    let mut term_texts = group(archive.term_localizations, |l| l.term_id);
    let (categories, tags): (Vec<_>, Vec<_>) = archive.terms.into_iter().partition(|t| t.taxonomy == "category");
    for (taxonomy, terms) in [(Taxonomy::Category, categories), (Taxonomy::Tag, tags)] {
        for t in terms {
            let localizations = term_texts
                .remove(&t.id)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|l| TermText::of(l, code))
                .collect();
            let term = Term {
                id: t.id,
                slug: t.slug,
                name: t.name,
                description: t.description,
                created_at: t.created_at,
                updated_at: t.updated_at,
                localizations,
            };
            out.push(Event::Term(taxonomy, Box::new(term)));
        }
    }

    let mut placements: HashMap<Uuid, content_site::Model> =
        archive.content_sites.into_iter().map(|p| (p.content_id, p)).collect();
    let mut texts = group(archive.content_localizations, |l| l.content_id);
    let mut categories = group(archive.content_categories, |c| c.content_id);
    let mut tags = group(archive.content_tags, |t| t.content_id);
    // Blogs before pages, as format 2 writes them.
    let (blogs, pages): (Vec<_>, Vec<_>) = archive.contents.into_iter().partition(|c| c.kind == ContentKind::Blog);
    for c in blogs.into_iter().chain(pages) {
        let Some(placement) = placements.remove(&c.id) else { continue };
        let id = c.id;
        let item = Content::of(
            c,
            Placement { slug: placement.slug, route: placement.route },
            texts.remove(&id).unwrap_or_default(),
            categories.remove(&id).unwrap_or_default(),
            tags.remove(&id).unwrap_or_default(),
            code,
        );
        out.push(Event::Content(Box::new(item)));
    }

    let mut items = group(archive.navigation_items, |i| i.menu_id);
    for menu in archive.navigation_menus {
        let items = items.remove(&menu.id).unwrap_or_default();
        out.push(Event::Menu(Box::new(Menu { menu, items })));
    }
    out
}
