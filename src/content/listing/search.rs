//! `search` on the content lists: words matched on the backend's text index.

use plinth_entities::content_listing;
use sea_orm::sea_query::{Expr, Query};
use sea_orm::{DbBackend, ExprTrait};
use uuid::Uuid;

use super::super::ContentKind;
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};

/// The words of a `search`: every one must start a word of the item's title or
/// slug, in any letter case. Matched on the backend's text index (migration
/// `content_search`): FTS5 on SQLite, a `tsvector` GIN index on PostgreSQL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Search {
    words: Vec<String>,
    backend: DbBackend,
    /// Walk the list's own index and keep the matching rows (a broad search
    /// on SQLite, see `listing::searched`), instead of reading every match.
    walk_list: bool,
}

impl Search {
    /// At most this many characters of `search`…
    pub const MAX_CHARS: usize = 200;
    /// …and this many of its words count.
    const MAX_WORDS: usize = 8;

    /// The words of `raw` (runs of letters and digits, lowercased); `None`
    /// when it has none. 422 past [`Search::MAX_CHARS`].
    pub fn parse(raw: &str, backend: DbBackend) -> ApiResult<Option<Search>> {
        if raw.chars().count() > Self::MAX_CHARS {
            return Err(ApiError::validation(vec![FieldError::new(
                "search",
                ErrorCode::ValidationInvalidFormat,
                format!("at most {} characters", Self::MAX_CHARS),
            )]));
        }
        let words: Vec<String> = raw
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .take(Self::MAX_WORDS)
            .map(str::to_lowercase)
            .collect();
        Ok((!words.is_empty()).then_some(Search { words, backend, walk_list: false }))
    }

    /// The site rows of `site_id` (and `kind`) whose title or slug has the
    /// words, every column of them, found from the text index alone: the
    /// index's entries for the words within the scope of that site's kind. A
    /// list then filters and sorts these matches, so a search costs what its
    /// matches cost, however large the site.
    pub(super) fn matching_rows(
        &self,
        site_id: Uuid,
        kind: Option<ContentKind>,
        deleted: bool,
    ) -> sea_orm::sea_query::SelectStatement {
        use sea_orm::sea_query::{Alias, Asterisk, BinOper, Condition, Func};
        let scope = format!("s{}{}", site_id.simple(), kind.map_or(String::new(), |k| k.as_str().replace('_', "")));
        let matched = Alias::new("matched");
        // Words are letters and digits only: nothing in them is query syntax.
        match self.backend {
            DbBackend::Postgres => {
                // Lexemes as the tsquery type reads them (quoted, not parsed):
                // the scope exactly (or as a prefix, for every kind), then
                // every word as a prefix.
                let scope = if kind.is_some() { format!("'~{scope}'") } else { format!("'~{scope}':*") };
                let words = self.words.iter().map(|w| format!("'{w}':*"));
                let query = std::iter::once(scope).chain(words).collect::<Vec<_>>().join(" & ");
                Query::select()
                    .column((matched.clone(), Asterisk))
                    .from_as(content_listing::Entity, matched)
                    .and_where(
                        Expr::cust(plinth_migrations::POSTGRES_SEARCH_VECTOR)
                            .binary(BinOper::Custom("@@"), Func::cast_as(Expr::val(query), Alias::new("tsquery"))),
                    )
                    // A query of its own (not pulled up into the list), so the
                    // text index is the only index its plan can use.
                    .offset(0)
                    .to_owned()
            }
            _ => {
                let query = self.sqlite_match(site_id, kind, deleted);
                // CROSS JOIN keeps the text index the outer loop: each match is
                // one probe of `ix_content_sites_search_rowid`.
                Query::select()
                    .column((matched.clone(), Asterisk))
                    .from(Alias::new("content_search"))
                    .join_as(sea_orm::JoinType::CrossJoin, content_listing::Entity, matched, Condition::all())
                    .and_where(Expr::cust("content_search").binary(BinOper::Custom("MATCH"), Expr::val(query)))
                    .and_where(Expr::cust(r#""matched"."search_rowid" = "content_search"."rowid""#))
                    // A LIMIT and an OFFSET keep the list's conditions out of
                    // this query (SQLite neither flattens it nor pushes them
                    // down), so each match is probed by its rowid, not by the
                    // site's list index.
                    .limit(i64::MAX as u64)
                    .offset(0)
                    .to_owned()
            }
        }
    }

    /// The FTS5 query of the words within the scope of `site_id`'s `kind`,
    /// live or deleted (migration `content_search_scopes` marks a deleted
    /// row's scope with a trailing `x`); every kind's rows when `kind` is
    /// `None`, live or not (the list's conditions then decide).
    fn sqlite_match(&self, site_id: Uuid, kind: Option<ContentKind>, deleted: bool) -> String {
        let scope = match kind {
            Some(kind) => {
                let deleted = if deleted { "x" } else { "" };
                format!(r#""s{}{}{deleted}""#, site_id.simple(), kind.as_str().replace('_', ""))
            }
            None => format!(r#""s{}" *"#, site_id.simple()),
        };
        let words = self.words.iter().map(|w| format!(r#"{{title slug}} : "{w}" *"#)).collect::<Vec<_>>();
        // The words first: FTS5 walks an AND's phrases in order, and the
        // scope's posting list holds every row of the site's kind (at 100,000
        // entries this took 8 to 14 ms first, under 1 ms last).
        format!("{} AND scope : {scope}", words.join(" AND "))
    }

    /// The same words, found by walking the list's index in its order (SQLite;
    /// public for the plan tests).
    pub fn walking_the_list(&self) -> Search {
        Search { walk_list: self.backend == DbBackend::Sqlite, ..self.clone() }
    }

    /// With [`Search::walking_the_list`]: the condition that keeps a list row
    /// whose text-index rowid is among the matches. The matches' rowids come
    /// from the text index alone, once per query; the unary `+` keeps SQLite
    /// from turning the condition into probes by rowid, so the list's own
    /// index stays the loop and a page stops after its rows.
    pub(super) fn among_matches(
        &self,
        site_id: Uuid,
        kind: Option<ContentKind>,
        deleted: bool,
    ) -> Option<sea_orm::sea_query::SimpleExpr> {
        use sea_orm::sea_query::{Alias, BinOper};
        if !self.walk_list {
            return None;
        }
        let query = self.sqlite_match(site_id, kind, deleted);
        let rowids = Query::select()
            .column(Alias::new("rowid"))
            .from(Alias::new("content_search"))
            .and_where(Expr::cust("content_search").binary(BinOper::Custom("MATCH"), Expr::val(query)))
            .to_owned();
        Some(Expr::cust(r#"+"content_sites"."search_rowid""#).in_subquery(rowids))
    }

    /// On SQLite, how many live or deleted rows of `site_id`'s `kind` have the
    /// words, counted in the text index alone (its scope holds site, kind and
    /// deletion); `None` elsewhere: PostgreSQL counts the list's matches.
    pub(super) fn count_in_index(
        &self,
        site_id: Uuid,
        kind: ContentKind,
        deleted: bool,
    ) -> Option<sea_orm::sea_query::SelectStatement> {
        use sea_orm::sea_query::{Alias, BinOper, Func};
        if self.backend == DbBackend::Postgres {
            return None;
        }
        let query = self.sqlite_match(site_id, Some(kind), deleted);
        Some(
            Query::select()
                .expr(Func::count(Expr::cust("*")))
                .from(Alias::new("content_search"))
                .and_where(Expr::cust("content_search").binary(BinOper::Custom("MATCH"), Expr::val(query)))
                .to_owned(),
        )
    }
}
