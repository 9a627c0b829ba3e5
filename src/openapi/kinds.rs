//! Kinds documented from another kind's entries: the content kinds' handlers
//! are written once (as blogs) and mounted per kind, and tags share the
//! categories' handlers.

use utoipa::Modify;

/// Handlers shared by several kinds are documented once, under the first kind's
/// paths; every other kind gets the same entries with its own paths, tags,
/// operation ids and codes.
pub(super) struct DerivedKinds(pub crate::routes::SharedOperations);

/// A kind as the document names it: the words of its paths and operation
/// ids, its tag, and how a summary calls one item and many.
struct Kind {
    singular: &'static str,
    plural: &'static str,
    tag: &'static str,
    /// "a post", "posts": what "an item of the kind" and "items of the kind"
    /// in a shared summary become.
    nouns: (&'static str, &'static str),
}

const fn kind(
    singular: &'static str,
    plural: &'static str,
    tag: &'static str,
    nouns: (&'static str, &'static str),
) -> Kind {
    Kind { singular, plural, tag, nouns }
}

/// `(the kind the shared operations are documented as, the other kinds)`;
/// the operations are those its `Routes::variant` mounts.
type Derivation = (Kind, &'static [Kind]);

const DERIVATIONS: [Derivation; 2] = [
    (
        kind("blog", "blogs", "Blogs", ("a post", "posts")),
        &[
            kind("page", "pages", "Pages", ("a page", "pages")),
            kind("cv", "cv", "CV entries", ("a CV entry", "CV entries")),
            kind("project", "projects", "Projects", ("a project", "projects")),
            kind("legal", "legal", "Legal documents", ("a legal document", "legal documents")),
            kind("skill", "skills", "Skills", ("a skill", "skills")),
        ],
    ),
    (
        kind("category", "categories", "Taxonomy", ("a category", "categories")),
        &[kind("tag", "tags", "Taxonomy", ("a tag", "tags"))],
    ),
];

impl Modify for DerivedKinds {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (base, others) in &DERIVATIONS {
            let (plural_word, singular_word) = (base.plural, base.singular);
            let shared_ops = self.0.get(plural_word).map(Vec::as_slice).unwrap_or_default();
            let shared: Vec<(String, utoipa::openapi::PathItem)> = openapi
                .paths
                .paths
                .iter()
                .filter(|(_, item)| {
                    operations(item).any(|op| op.operation_id.as_ref().is_some_and(|id| shared_ops.contains(id)))
                })
                .map(|(path, item)| (path.clone(), item.clone()))
                .collect();
            for (path, _) in &shared {
                if let Some(item) = openapi.paths.paths.get_mut(path) {
                    operations_mut(item).for_each(|op| name_the_kind(op, base.nouns));
                }
            }
            for other in *others {
                let (singular, plural, tag) = (other.singular, other.plural, other.tag);
                for (path, item) in &shared {
                    let mut item = item.clone();
                    for op in operations_mut(&mut item) {
                        derive_operation(op, (plural_word, singular_word), (singular, plural, tag));
                        name_the_kind(op, other.nouns);
                    }
                    let path: Vec<&str> =
                        path.split('/').map(|segment| if segment == plural_word { plural } else { segment }).collect();
                    // A kind's own operation on the same path (`POST /sites/{site_id}/legal`) stays.
                    match openapi.paths.paths.get_mut(&path.join("/")) {
                        Some(own) => add_missing_operations(own, item),
                        None => {
                            openapi.paths.paths.insert(path.join("/"), item);
                        }
                    }
                }
            }
        }
        cv_detail_is_the_plain_item(openapi);
        entry_type_filters_cv_only(openapi);
    }
}

/// The operations of `derived` whose methods `own` has not, put into `own`.
fn add_missing_operations(own: &mut utoipa::openapi::PathItem, derived: utoipa::openapi::PathItem) {
    own.get = own.get.take().or(derived.get);
    own.put = own.put.take().or(derived.put);
    own.post = own.post.take().or(derived.post);
    own.delete = own.delete.take().or(derived.delete);
    own.patch = own.patch.take().or(derived.patch);
}

/// The entry of one kind made from the shared entry of another: what differs
/// is the operation id, the tag, the noun of the summary and the codes named
/// after the kind (`BLOG_BULK_STATUS_REQUIRED`). Descriptions, parameters and
/// schemas use words common to every kind and are left as they are (each
/// kind's schemas are pointed at by `list_item_schemas`).
fn derive_operation(
    op: &mut utoipa::openapi::path::Operation,
    (from_plural, from_singular): (&str, &str),
    (singular, plural, tag): (&str, &str, &str),
) {
    let rename = |text: &str| {
        replace_words(text, |word| match word {
            w if w == from_plural => Some(plural),
            w if w == from_singular => Some(singular),
            _ => None,
        })
    };
    op.operation_id = op.operation_id.as_deref().map(rename);
    op.summary = op.summary.as_deref().map(rename);
    op.tags = Some(vec![tag.to_string()]);
    // A code is one word: `BLOG_BULK_STATUS_REQUIRED;` keeps its punctuation.
    let (from_code, code) = (format!("{}_", from_singular.to_uppercase()), format!("{}_", singular.to_uppercase()));
    for response in op.responses.responses.values_mut() {
        if let utoipa::openapi::RefOr::T(response) = response {
            let words = response.description.split(' ').map(|word| match word.strip_prefix(from_code.as_str()) {
                Some(rest) => format!("{code}{rest}"),
                None => word.to_string(),
            });
            response.description = words.collect::<Vec<_>>().join(" ");
        }
    }
}

/// A shared summary in the kind's words: "Create an item of the kind" →
/// "Create a post", "List a site's items of the kind" → "List a site's pages".
fn name_the_kind(op: &mut utoipa::openapi::path::Operation, (one, many): (&str, &str)) {
    if let Some(summary) = op.summary.as_mut() {
        *summary = summary.replace("an item of the kind", one).replace("items of the kind", many);
    }
}

/// `text` with each word (a run of letters and digits) that `rename` names
/// replaced, the rest (`_`, `'s`, spaces) kept: `list_categories` →
/// `list_tags`, "a category's" → "a tag's".
fn replace_words<'r>(text: &str, rename: impl Fn(&str) -> Option<&'r str>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let end_word = |word: &mut String, out: &mut String| {
        out.push_str(rename(word).unwrap_or(word));
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.push(c);
        } else {
            end_word(&mut word, &mut out);
            out.push(c);
        }
    }
    end_word(&mut word, &mut out);
    out
}

/// Every operation of a path, to change.
pub(super) fn operations_mut(
    item: &mut utoipa::openapi::PathItem,
) -> impl Iterator<Item = &mut utoipa::openapi::path::Operation> {
    [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch].into_iter().flatten()
}

/// `entry_type` filters CV entries only: every other kind's list refuses it
/// (400), so only the CV list documents it.
fn entry_type_filters_cv_only(openapi: &mut utoipa::openapi::OpenApi) {
    for (path, item) in openapi.paths.paths.iter_mut() {
        if path == "/sites/{site_id}/cv" {
            continue;
        }
        if let Some(parameters) = item.get.as_mut().and_then(|op| op.parameters.as_mut()) {
            parameters.retain(|p| p.name != "entry_type");
        }
    }
}

/// The spec gives a CV entry's `/detail` the shape of the plain item (the
/// handler answers `GET /cv/{id}`'s body), not the blog's `ContentDetail`.
fn cv_detail_is_the_plain_item(openapi: &mut utoipa::openapi::OpenApi) {
    let plain = openapi.paths.paths.get("/cv/{id}").and_then(|item| item.get.as_ref()).map(|op| op.responses.clone());
    let detail = openapi.paths.paths.get_mut("/cv/{id}/detail").and_then(|item| item.get.as_mut());
    if let (Some(plain), Some(detail)) = (plain, detail) {
        detail.responses = plain;
    }
}

pub(super) fn operations(item: &utoipa::openapi::PathItem) -> impl Iterator<Item = &utoipa::openapi::path::Operation> {
    [&item.get, &item.put, &item.post, &item.delete, &item.patch].into_iter().flatten()
}
