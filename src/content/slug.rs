//! Slugs generated from titles (Unicode transliterated to ASCII), made unique
//! per kind on every site the item appears on with `-2`, `-3`, … suffixes.

use plinth_entities::content_site;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect, Select};
use uuid::Uuid;

use super::ContentKind;
use crate::error::{ApiError, ApiResult, ErrorCode};

/// How many suffixes are tried before giving up.
pub const MAX_SLUG_ATTEMPTS: usize = 100;
const MAX_SLUG_LEN: usize = 80;

/// `"Grüße aus Köln!"` → `"grusse-aus-koln"`; empty input gives `"untitled"`.
pub fn slugify(text: &str) -> String {
    let ascii = deunicode::deunicode(text).to_ascii_lowercase();
    let mut slug = String::with_capacity(ascii.len());
    for c in ascii.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    let mut slug: String = slug.trim_matches('-').chars().take(MAX_SLUG_LEN).collect();
    while slug.ends_with('-') {
        slug.pop();
    }
    if slug.is_empty() {
        "untitled".to_string()
    } else {
        slug
    }
}

/// The first of `base`, `base-2`, `base-3`, … free on every site in `site_ids`
/// (ignoring `exclude`, the item itself). One query, whatever the number of tries.
pub async fn available_slug<C: ConnectionTrait>(
    db: &C,
    kind: ContentKind,
    site_ids: &[Uuid],
    base: &str,
    exclude: Option<Uuid>,
    exhausted: ErrorCode,
) -> ApiResult<String> {
    // Only the candidates themselves are looked up: index probes of
    // `(slug, site_id, kind)`, however many slugs of the site share the prefix
    // (`post-1` … `post-100000` for a `post`). The base alone first, as it is
    // nearly always free: one probe, planned in microseconds; the numbered
    // candidates (a hundred values to plan for) only when it is taken.
    if taken_of(db, kind, site_ids, vec![base.to_string()], exclude).await?.is_empty() {
        return Ok(base.to_string());
    }
    let candidates = crate::values::numbered(base, 2..=MAX_SLUG_ATTEMPTS as u32);
    let taken = taken_of(db, kind, site_ids, candidates.clone(), exclude).await?;
    candidates.into_iter().find(|candidate| !taken.contains(candidate)).ok_or_else(|| {
        ApiError::new(exhausted, format!("no free slug for '{base}' after {MAX_SLUG_ATTEMPTS} attempts"))
    })
}

/// Which of `candidates` an item of `kind` other than `exclude` has on one of `site_ids`.
async fn taken_of<C: ConnectionTrait>(
    db: &C,
    kind: ContentKind,
    site_ids: &[Uuid],
    candidates: Vec<String>,
    exclude: Option<Uuid>,
) -> ApiResult<std::collections::HashSet<String>> {
    let query = taken_query(kind, site_ids, candidates, exclude);
    Ok(query.into_tuple::<String>().all(db).await?.into_iter().collect())
}

/// The query of [`taken_of`] (public for the plan tests): the slugs among
/// `candidates` that items of `kind` other than `exclude` use on `site_ids`.
pub fn taken_query(
    kind: ContentKind,
    site_ids: &[Uuid],
    candidates: Vec<String>,
    exclude: Option<Uuid>,
) -> Select<content_site::Entity> {
    let mut query = content_site::Entity::find()
        .select_only()
        .column(content_site::Column::Slug)
        .filter(content_site::Column::Kind.eq(kind.as_str()))
        .filter(content_site::Column::SiteId.is_in(site_ids.to_vec()))
        .filter(content_site::Column::Slug.is_in(candidates));
    if let Some(id) = exclude {
        query = query.filter(content_site::Column::ContentId.ne(id));
    }
    query
}

/// How often a write with a generated slug starts again after losing a race.
const SLUG_RACE_RETRIES: usize = 32;

/// Runs `attempt` (one whole write transaction) again when a generated slug or
/// route was taken between our free-slug query and the insert: on PostgreSQL two
/// concurrent writers can both see `title` free, and the unique index lets one
/// win. The next attempt's query sees the winner and takes the next suffix. An
/// explicit slug is the caller's choice and answers 409 at once.
pub(crate) async fn retry_lost_slug_race<T, F, Fut>(generated: bool, mut attempt: F) -> ApiResult<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ApiResult<T>>,
{
    let mut tries = 0;
    loop {
        match attempt().await {
            Err(e) if generated && e.code() == ErrorCode::EntitySlugTaken && tries < SLUG_RACE_RETRIES => tries += 1,
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::slugify;

    #[test]
    fn transliterates_and_collapses() {
        assert_eq!(slugify("Grüße aus Köln!"), "grusse-aus-koln");
        assert_eq!(slugify("  Hello,   World -- 2026 "), "hello-world-2026");
        assert_eq!(slugify("Ελληνικά"), "ellenika");
        assert_eq!(slugify("???"), "untitled");
        assert!(slugify(&"a".repeat(200)).len() <= 80);
    }
}
