//! A front end's reads in one language. `locale` (a code or a UUID of one of
//! the site's locales) merges that locale's localized fields into each item;
//! a field it leaves empty comes from the next locale of the chain: the
//! `fallback` codes in order when given, else the site's default locale, and
//! last the item's own text (written in the default locale). Each item names
//! the locale that served it. One query per page, whatever its size.

use std::collections::HashMap;

use plinth_entities::{content, content_localization};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Select};
use serde_json::Value;
use uuid::Uuid;

use super::model::{ContentListItem, ContentResponse};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::state::{SiteLocaleResponse, SiteState};
use crate::values::LocaleName;

/// Where a front-end read takes its text from, first to last.
#[derive(Clone, Debug)]
pub struct LocaleChain {
    /// `(locale id, code)`: the requested locale, then its fallbacks.
    locales: Vec<(Uuid, String)>,
    /// The code of the site's default locale: the item's own text is in it.
    own_text: String,
    /// The requested locale's path prefix on the site (`de`, or empty).
    url_prefix: String,
}

/// One of the site's locales named by its code (any case) or its UUID; the
/// error names `parameter` and the codes the site has.
pub fn site_locale<'a>(site: &'a SiteState, parameter: &str, named: &str) -> ApiResult<&'a SiteLocaleResponse> {
    LocaleName::parse(named)
        .and_then(|name| site.locales.iter().find(|l| name.names(l.locale_id, &l.code)))
        .ok_or_else(|| not_a_site_locale(site, parameter, named))
}

/// A `locale_id` filter: a UUID as given (the spec's parameter: one the site
/// lacks keeps nothing), or the code of one of the site's locales.
pub fn locale_filter(site: &SiteState, parameter: &str, named: &str) -> ApiResult<Uuid> {
    match Uuid::parse_str(named) {
        Ok(id) => Ok(id),
        Err(_) => Ok(site_locale(site, parameter, named)?.locale_id),
    }
}

fn not_a_site_locale(site: &SiteState, parameter: &str, named: &str) -> ApiError {
    let codes: Vec<&str> = site.locales.iter().map(|l| l.code.as_str()).collect();
    let detail =
        format!("{} (GET /sites/{}/locales lists the site's)", crate::values::not_among(&named, &codes), site.site.id);
    ApiError::validation(vec![FieldError::new(parameter, ErrorCode::ValidationInvalidFormat, detail)])
}

impl LocaleChain {
    /// The chain a request names: `None` when it names no `locale`.
    pub fn of_request(site: &SiteState, locale: Option<&str>, fallback: Option<&str>) -> ApiResult<Option<Self>> {
        let Some(locale) = locale.filter(|l| !l.trim().is_empty()) else { return Ok(None) };
        let default = site.default_locale();
        let requested = site_locale(site, "locale", locale)?;
        let named_first_prefix = requested.url_prefix.clone();
        let mut named = vec![requested];
        match fallback.filter(|f| !f.trim().is_empty()) {
            Some(codes) => {
                for code in codes.split(',') {
                    named.push(site_locale(site, "fallback", code.trim())?);
                }
            }
            None => named.extend(default),
        }
        let mut locales: Vec<(Uuid, String)> = Vec::with_capacity(named.len());
        for locale in named {
            if !locales.iter().any(|(id, _)| *id == locale.locale_id) {
                locales.push((locale.locale_id, locale.code.clone()));
            }
        }
        let own_text = default.map_or_else(|| locales[0].1.clone(), |d| d.code.clone());
        Ok(Some(Self { locales, own_text, url_prefix: named_first_prefix }))
    }

    /// The chain's locale ids, first to last.
    pub fn locale_ids(&self) -> Vec<Uuid> {
        self.locales.iter().map(|(id, _)| *id).collect()
    }

    /// The requested locale's code.
    pub fn code(&self) -> &str {
        &self.locales[0].1
    }

    /// Where the site serves the requested locale: `/de`, or empty at its root.
    pub fn path_prefix(&self) -> String {
        match self.url_prefix.trim_matches('/') {
            "" => String::new(),
            prefix => format!("/{prefix}"),
        }
    }

    /// The chain as a cache key's part: `de>en`.
    pub fn key(&self) -> String {
        self.locales.iter().map(|(_, code)| code.as_str()).collect::<Vec<_>>().join(">")
    }

    /// The localizations of `items` in the chain's locales, by item.
    async fn localizations(
        &self,
        db: &impl ConnectionTrait,
        items: &[Uuid],
    ) -> ApiResult<HashMap<Uuid, Vec<content_localization::Model>>> {
        if items.is_empty() {
            return Ok(HashMap::new());
        }
        let rows = localizations_query(items, &self.locale_ids()).all(db).await?;
        let mut by_item: HashMap<Uuid, Vec<content_localization::Model>> = HashMap::new();
        for row in rows {
            by_item.entry(row.content_id).or_default().push(row);
        }
        Ok(by_item)
    }

    /// An item's localizations in chain order (the ones it has).
    fn in_order<'a>(&'a self, of_item: Option<&'a Vec<content_localization::Model>>) -> Served<'a> {
        let rows = of_item.map(Vec::as_slice).unwrap_or_default();
        let ordered = self
            .locales
            .iter()
            .filter_map(|(id, code)| rows.iter().find(|row| row.locale_id == *id).map(|row| (code.as_str(), row)))
            .collect();
        Served { ordered }
    }

    /// Merges the chain's text into list items (title and excerpt).
    pub async fn localize_list(&self, db: &impl ConnectionTrait, items: &mut [ContentListItem]) -> ApiResult<()> {
        let ids: Vec<Uuid> = items.iter().map(|item| item.id).collect();
        let by_item = self.localizations(db, &ids).await?;
        for item in items {
            let served = self.in_order(by_item.get(&item.id));
            served.merge(&mut item.title, |row| &row.title);
            served.merge(&mut item.excerpt, |row| &row.excerpt);
            item.locale = Some(served.locale(&self.own_text));
        }
        Ok(())
    }

    /// Merges the chain's title, excerpt and body into rows (the feed's posts).
    pub async fn localize_rows(&self, db: &impl ConnectionTrait, rows: &mut [content::Model]) -> ApiResult<()> {
        let ids: Vec<Uuid> = rows.iter().map(|row| row.id).collect();
        let by_item = self.localizations(db, &ids).await?;
        for row in rows {
            let served = self.in_order(by_item.get(&row.id));
            served.merge(&mut row.title, |l| &l.title);
            served.merge(&mut row.excerpt, |l| &l.excerpt);
            served.merge(&mut row.body, |l| &l.body);
        }
        Ok(())
    }

    /// Merges the chain's text into one item: title, excerpt and body, and
    /// the subtitle and meta fields that only localizations carry.
    pub async fn localize_item(&self, db: &impl ConnectionTrait, item: &mut ContentResponse) -> ApiResult<()> {
        let by_item = self.localizations(db, &[item.id]).await?;
        let served = self.in_order(by_item.get(&item.id));
        served.merge(&mut item.title, |row| &row.title);
        served.merge(&mut item.excerpt, |row| &row.excerpt);
        served.merge(&mut item.body, |row| &row.body);
        let localized = |field: fn(&content_localization::Model) -> &String| {
            let mut text = String::new();
            served.merge(&mut text, field);
            Some(text)
        };
        item.subtitle = localized(|row| &row.subtitle);
        item.meta_title = localized(|row| &row.meta_title);
        item.meta_description = localized(|row| &row.meta_description);
        item.locale = Some(served.locale(&self.own_text));
        if let Some(sections) = item.kind_fields.get_mut("sections").and_then(Value::as_array_mut) {
            sections.iter_mut().for_each(|section| self.localize_section(section));
        }
        Ok(())
    }

    /// A page section's title, text and button text from its own
    /// localizations (kept in the page), first in the chain that has each;
    /// `locale` names the one that served it.
    fn localize_section(&self, section: &mut Value) {
        let Some(section) = section.as_object_mut() else { return };
        let localizations = section.get("localizations").and_then(Value::as_array).cloned().unwrap_or_default();
        let in_chain: Vec<(&str, &Value)> = self
            .locales
            .iter()
            .filter_map(|(id, code)| {
                let id = id.to_string();
                localizations
                    .iter()
                    .find(|l| l.get("locale_id").and_then(Value::as_str) == Some(&id))
                    .map(|l| (code.as_str(), l))
            })
            .collect();
        let first_of = |field: &str| {
            in_chain
                .iter()
                .filter_map(|(_, l)| l.get(field).and_then(Value::as_str))
                .find(|text| !text.trim().is_empty())
        };
        // The section's own fields are `title` and `body`; a localization's text is `text`.
        for (own, localized) in [("title", "title"), ("body", "text"), ("button_text", "button_text")] {
            if let Some(text) = first_of(localized) {
                section.insert(own.to_owned(), Value::String(text.to_owned()));
            }
        }
        let served = in_chain.first().map_or(self.own_text.as_str(), |(code, _)| code);
        section.insert("locale".to_owned(), Value::String(served.to_owned()));
    }
}

/// One item's localizations in the chain's order, with their codes.
struct Served<'a> {
    ordered: Vec<(&'a str, &'a content_localization::Model)>,
}

impl Served<'_> {
    /// `field` of the first localization where it is not empty; `own` stays
    /// when none has it.
    fn merge(&self, own: &mut String, field: impl Fn(&content_localization::Model) -> &String) {
        if let Some(text) = self.ordered.iter().map(|(_, row)| field(row)).find(|text| !text.trim().is_empty()) {
            own.clone_from(text);
        }
    }

    /// The locale that served the item: the first with a localization of
    /// it, else the default locale its own text is in.
    fn locale(&self, own_text: &str) -> String {
        self.ordered.first().map_or(own_text, |(code, _)| code).to_string()
    }
}

/// The localizations of `items` in `locales` (`ux_content_localizations`;
/// public for the plan tests).
pub fn localizations_query(items: &[Uuid], locales: &[Uuid]) -> Select<content_localization::Entity> {
    content_localization::Entity::find()
        .filter(content_localization::Column::ContentId.is_in(items.iter().copied()))
        .filter(content_localization::Column::LocaleId.is_in(locales.iter().copied()))
}
