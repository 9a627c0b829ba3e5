//! Reads `archive.json` of format 2 one item at a time: the header's small
//! sections whole, then every media record, term, blog, page and menu handed
//! (and project, CV entry, skill, legal text) to a sink and dropped, so the document is never held whole.

use std::fmt;
use std::io::Read;
use std::marker::PhantomData;

use chrono::{DateTime, Utc};
use plinth_entities::{content_template, site};
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::format::{
    Content, Event, Header, Media, Menu, SiteLocale, Taxonomy, Term, CONTENT_SECTIONS, FIRST_ITEMS, FORMAT, FORMAT_V1,
    SECTIONS,
};
use crate::error::ApiError;

/// Why reading stopped short.
pub enum Stop {
    /// The document is of format 1: read it as such.
    Version1,
    /// The sink refused an item.
    Sink(ApiError),
    /// Not JSON of this shape (or the reader failed, e.g. past its cap).
    Invalid(String),
}

type SinkFn<'a> = dyn FnMut(Event) -> Result<(), ApiError> + 'a;

struct Sink<'s, 'a> {
    send: &'s mut SinkFn<'a>,
    stop: Option<Stop>,
}

impl Sink<'_, '_> {
    fn send<E: de::Error>(&mut self, event: Event) -> Result<(), E> {
        (self.send)(event).map_err(|e| {
            self.stop = Some(Stop::Sink(e));
            E::custom("the import stopped")
        })
    }
}

/// Reads the document, handing each piece to `sink` in document order.
pub fn read(reader: impl Read, sink: &mut SinkFn<'_>) -> Result<(), Stop> {
    let mut sink = Sink { send: sink, stop: None };
    let mut json = serde_json::Deserializer::from_reader(std::io::BufReader::with_capacity(64 * 1024, reader));
    let read = de::Deserializer::deserialize_map(&mut json, Document { sink: &mut sink }).and_then(|()| json.end());
    match (read, sink.stop) {
        (_, Some(stop)) => Err(stop),
        (Err(e), None) => Err(Stop::Invalid(e.to_string())),
        (Ok(()), None) => Ok(()),
    }
}

struct Document<'d, 's, 'a> {
    sink: &'d mut Sink<'s, 'a>,
}

impl<'de> Visitor<'de> for Document<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Plinth site export document")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        if map.next_key::<String>()?.as_deref() != Some("format") {
            return Err(de::Error::custom("archive.json must begin with `format`"));
        }
        match map.next_value::<Value>()? {
            Value::String(f) if f == FORMAT => {}
            Value::String(f) if f == FORMAT_V1 => {
                self.sink.stop = Some(Stop::Version1);
                return Err(de::Error::custom("format 1"));
            }
            other => return Err(de::Error::custom(format!("format {other} (expected {FORMAT} or {FORMAT_V1})"))),
        }
        let mut exported_at: Option<DateTime<Utc>> = None;
        let mut site: Option<site::Model> = None;
        let mut settings: Option<Value> = None;
        let mut locales: Vec<SiteLocale> = Vec::new();
        let mut header_sent = false;
        let mut last_section = 0;
        while let Some(key) = map.next_key::<String>()? {
            let Some(rank) = SECTIONS.iter().position(|s| *s == key) else {
                // A later format's section this reader does not know.
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if rank <= last_section {
                return Err(de::Error::custom(format!(
                    "`{key}` comes out of order; the sections are {}",
                    SECTIONS.join(", ")
                )));
            }
            last_section = rank;
            if rank >= FIRST_ITEMS && !header_sent {
                let site = site.take().ok_or_else(|| de::Error::custom("`site` must come before the items"))?;
                let header =
                    Header { exported_at, site, settings: settings.take(), locales: std::mem::take(&mut locales) };
                self.sink.send(Event::Header(Box::new(header)))?;
                header_sent = true;
            }
            if let Some((_, kind)) = CONTENT_SECTIONS.iter().find(|(name, _)| *name == key) {
                map.next_value_seed(Contents { sink: &mut *self.sink, kind })?;
                continue;
            }
            match key.as_str() {
                "exported_at" => exported_at = map.next_value()?,
                "site" => site = Some(map.next_value()?),
                "settings" => settings = map.next_value()?,
                "locales" => locales = map.next_value()?,
                "media" => map.next_value_seed(Each {
                    sink: &mut *self.sink,
                    wrap: |m: Media| Event::Media(Box::new(m)),
                    item: PhantomData,
                })?,
                "taxonomy" => map.next_value_seed(Taxonomies { sink: &mut *self.sink })?,
                "navigation" => map.next_value_seed(Navigation { sink: &mut *self.sink })?,
                "content_templates" => map.next_value_seed(Each {
                    sink: &mut *self.sink,
                    wrap: |t: content_template::Model| Event::Template(Box::new(t)),
                    item: PhantomData,
                })?,
                _ => map.next_value::<IgnoredAny>().map(|_| ())?,
            }
        }
        if !header_sent {
            let site = site.ok_or_else(|| de::Error::missing_field("site"))?;
            self.sink.send(Event::Header(Box::new(Header { exported_at, site, settings, locales })))?;
        }
        Ok(())
    }
}

/// A list whose items go to the sink one by one.
struct Each<'d, 's, 'a, T, W: Fn(T) -> Event> {
    sink: &'d mut Sink<'s, 'a>,
    wrap: W,
    item: PhantomData<fn() -> T>,
}

impl<'de, T: Deserialize<'de>, W: Fn(T) -> Event> DeserializeSeed<'de> for Each<'_, '_, '_, T, W> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, T: Deserialize<'de>, W: Fn(T) -> Event> Visitor<'de> for Each<'_, '_, '_, T, W> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(item) = seq.next_element::<T>()? {
            self.sink.send((self.wrap)(item))?;
        }
        Ok(())
    }
}

/// `blogs` or `pages`: each item's `kind` must be the section's.
struct Contents<'d, 's, 'a> {
    sink: &'d mut Sink<'s, 'a>,
    kind: &'static str,
}

impl<'de> DeserializeSeed<'de> for Contents<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Contents<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of contents")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(item) = seq.next_element::<Content>()? {
            if item.content.kind.as_str() != self.kind {
                let why = format!("a {} among the {}s", item.content.kind.as_str(), self.kind);
                return Err(de::Error::custom(why));
            }
            self.sink.send(Event::Content(Box::new(item)))?;
        }
        Ok(())
    }
}

/// `taxonomy`: `categories` and `tags`.
struct Taxonomies<'d, 's, 'a> {
    sink: &'d mut Sink<'s, 'a>,
}

impl<'de> DeserializeSeed<'de> for Taxonomies<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Taxonomies<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("categories and tags")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "categories" => map.next_value_seed(Each {
                    sink: &mut *self.sink,
                    wrap: |t: Term| Event::Term(Taxonomy::Category, Box::new(t)),
                    item: PhantomData,
                })?,
                "tags" => map.next_value_seed(Each {
                    sink: &mut *self.sink,
                    wrap: |t: Term| Event::Term(Taxonomy::Tag, Box::new(t)),
                    item: PhantomData,
                })?,
                _ => map.next_value::<IgnoredAny>().map(|_| ())?,
            }
        }
        Ok(())
    }
}

/// `navigation`: `menus`, each with its items.
struct Navigation<'d, 's, 'a> {
    sink: &'d mut Sink<'s, 'a>,
}

impl<'de> DeserializeSeed<'de> for Navigation<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Navigation<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("menus")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "menus" => map.next_value_seed(Each {
                    sink: &mut *self.sink,
                    wrap: |m: Menu| Event::Menu(Box::new(m)),
                    item: PhantomData,
                })?,
                _ => map.next_value::<IgnoredAny>().map(|_| ())?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &str) -> Result<Vec<String>, String> {
        let mut seen = Vec::new();
        let mut sink = |e: Event| {
            seen.push(match e {
                Event::Header(h) => format!("header {}", h.site.slug),
                Event::Media(m) => format!("media {}", m.file.filename),
                Event::Term(t, term) => format!("{} {}", t.as_str(), term.slug),
                Event::Content(c) => format!("{} {}", c.content.kind.as_str(), c.placement.slug),
                Event::Menu(m) => format!("menu {} {}", m.menu.slug, m.items.len()),
                Event::Template(t) => format!("template {}", t.name),
            });
            Ok(())
        };
        match read(text.as_bytes(), &mut sink) {
            Ok(()) => Ok(seen),
            Err(Stop::Version1) => Err("v1".into()),
            Err(Stop::Invalid(e)) => Err(e),
            Err(Stop::Sink(e)) => Err(e.to_string()),
        }
    }

    const SITE: &str = r#"{"id":"00000000-0000-0000-0000-000000000001","name":"S","slug":"s","description":"","base_url":null,"is_active":true,"logo_url":null,"favicon_url":null,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","deleted_at":null}"#;

    #[test]
    fn sections_are_read_in_order_and_the_header_comes_first() {
        let text = format!(
            r#"{{"format":"{FORMAT}","site":{SITE},"locales":[],"taxonomy":{{"categories":[{{"id":"00000000-0000-0000-0000-000000000002","slug":"c","name":"C","description":"","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}}],"tags":[]}},"future":[1,2]}}"#
        );
        assert_eq!(events(&text), Ok(vec!["header s".to_string(), "category c".to_string()]));
    }

    #[test]
    fn format_one_out_of_order_sections_and_garbage_are_told_apart() {
        assert_eq!(events(&format!(r#"{{"format":"{FORMAT_V1}","site":{{}}}}"#)), Err("v1".into()));
        let late_site = format!(r#"{{"format":"{FORMAT}","blogs":[],"site":{SITE}}}"#);
        assert!(events(&late_site).is_err_and(|e| e.contains("`site` must come before")), "{late_site}");
        let swapped = format!(r#"{{"format":"{FORMAT}","site":{SITE},"pages":[],"blogs":[]}}"#);
        assert!(events(&swapped).is_err_and(|e| e.contains("out of order")));
        assert!(events(r#"{"site":{}}"#).is_err_and(|e| e.contains("begin with `format`")));
        assert!(events("\u{1}\u{2}garbage").is_err());
        assert!(events(&format!(r#"{{"format":"{FORMAT}","site":{SITE}}} trailing"#)).is_err());
    }
}
