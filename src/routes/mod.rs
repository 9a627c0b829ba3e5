//! Each endpoint is declared once: its `#[utoipa::path]` attribute (method, path
//! and documentation together) is the declaration. A family lists its handlers
//! with [`mount!`](crate::mount); [`Routes`] then mounts each one at exactly the
//! method and path of its attribute and adds the same entry to the OpenAPI
//! document, so the served routes and the document cannot drift apart.
//!
//! Handlers of one path share one resource (so a wrong method answers 405, not
//! 404); [`served`] serves them, a literal segment winning over a parameter
//! (`/sites/deleted` over `/sites/{id}`).

mod served;

pub use served::{MatchedResource, ServedApi};

use actix_web::dev::Extensions;
use actix_web::http::Method;
use actix_web::web;
use actix_web::Route;
use std::rc::Rc;
use utoipa::openapi::path::HttpMethod;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::{Paths, RefOr};

/// A family mounted more than once with its own data per mount: the content
/// kinds (documented as blogs) and the taxonomies (documented as categories).
struct Variant {
    /// The path segment in the attribute (`blogs`) and the one to mount at (`pages`).
    documented: &'static str,
    mounted: String,
    /// The variant's data (its `ContentKind`, its `Taxonomy`), on each of its requests.
    data: Rc<Extensions>,
}

/// One path's routes, served by [`ServedApi`].
struct PendingResource {
    path: String,
    routes: Vec<(Method, Route)>,
    data: Option<Rc<Extensions>>,
    /// Whether any of its routes needs credentials.
    protected: bool,
}

/// Operation ids mounted through [`Routes::variant`], by the documented word.
pub type SharedOperations = std::collections::BTreeMap<&'static str, Vec<String>>;

#[derive(Default)]
pub struct Routes {
    resources: Vec<PendingResource>,
    paths: Paths,
    /// The component schemas the documented operations refer to.
    schemas: Vec<(String, RefOr<Schema>)>,
    variant: Option<Variant>,
    /// The operation ids each variant mounts, by the word of its documented
    /// paths (`blogs`): the operations the document derives for the others.
    shared: SharedOperations,
    /// Mount only: no paths or schemas kept (each server worker mounts the
    /// routes; the document is built once).
    undocumented: bool,
}

/// What `#[utoipa::path]` generates for a handler: its path, methods and
/// operation, its tags, and the schemas it refers to (utoipa's own bindings use
/// the same traits).
pub trait Documented: utoipa::Path + utoipa::__dev::SchemaReferences + for<'t> utoipa::__dev::Tags<'t> {}

impl<T: utoipa::Path + utoipa::__dev::SchemaReferences + for<'t> utoipa::__dev::Tags<'t>> Documented for T {}

impl Routes {
    pub fn without_documentation() -> Self {
        Routes { undocumented: true, ..Routes::default() }
    }

    /// Mounts the handler documented by `P` (its `#[utoipa::path]`); `handler`
    /// makes the actix route that calls it. `access` is what `mount!` declares;
    /// building the document checks it against the attribute's `security`.
    pub fn add<P: Documented>(&mut self, access: Access, handler: impl Fn() -> Route) {
        let documented = P::path();
        let path = match &self.variant {
            Some(v) => documented.replace(&format!("/{}", v.documented), &format!("/{}", v.mounted)),
            None => documented.clone(),
        };
        let protected = access == Access::Credentials;
        let slot = match self.resources.iter().position(|r| r.path == path) {
            Some(i) => i,
            None => {
                self.resources.push(PendingResource {
                    path: path.clone(),
                    routes: Vec::new(),
                    data: self.variant.as_ref().map(|v| Rc::clone(&v.data)),
                    protected: false,
                });
                self.resources.len() - 1
            }
        };
        let resource = &mut self.resources[slot];
        resource.routes.extend(P::methods().iter().map(|method| (actix_method(method), handler())));
        resource.protected |= protected;
        // A variant other than the documented one is derived in the document
        // (see `openapi::DerivedKinds`), with its own ids and tags.
        if !self.undocumented && self.variant.as_ref().is_none_or(|v| v.documented == v.mounted) {
            let mut operation = P::operation();
            // Serving never builds an operation (each worker mounts every
            // handler, and building them all kept ~1.5 MB of their code
            // resident), so publicness is declared in `mount!`; this keeps the
            // declaration equal to the documented truth.
            assert_eq!(
                is_public(&operation),
                !protected,
                "{documented}: mount! declares it {access:?} but its #[utoipa::path] says otherwise (`security(())` is public)"
            );
            let tags = P::tags();
            if !tags.is_empty() {
                operation.tags.get_or_insert_with(Vec::new).extend(tags.into_iter().map(str::to_string));
            }
            if let (Some(variant), Some(id)) = (&self.variant, &operation.operation_id) {
                self.shared.entry(variant.documented).or_default().push(id.clone());
            }
            self.paths.add_path_operation(documented, P::methods(), operation);
            P::schemas(&mut self.schemas);
        }
    }

    /// Mounts what `mount` adds once more under `/{mounted}` in place of
    /// `/{documented}`, with `data` on each of its resources.
    pub fn variant<T: 'static>(
        &mut self,
        documented: &'static str,
        mounted: &str,
        data: T,
        mount: impl FnOnce(&mut Routes),
    ) {
        let mut extensions = Extensions::new();
        extensions.insert(web::Data::new(data));
        self.variant = Some(Variant { documented, mounted: mounted.to_string(), data: Rc::new(extensions) });
        mount(self);
        self.variant = None;
    }

    /// The OpenAPI paths of everything mounted (relative to `/api/v1`), the
    /// schemas they refer to, and the operations each variant shares.
    pub fn into_document_parts(self) -> (Paths, Vec<(String, RefOr<Schema>)>, SharedOperations) {
        (self.paths, self.schemas, self.shared)
    }

    /// Serves every resource under `prefix` (`/api/v1`). Resources that take
    /// credentials answer reads through the response cache and bump their
    /// site's generation on writes (`http_cache`); public ones (system, public
    /// files) never authenticate a caller they do not need.
    pub fn serve_under(self, prefix: &'static str) -> ServedApi {
        let resources = self.resources.into_iter().map(|r| served::ServedResource {
            path: r.path,
            routes: r.routes,
            data: r.data,
            cached: r.protected,
        });
        ServedApi::new(prefix, resources.collect())
    }
}

/// Who may call a mounted handler, as `mount!` declares it (`public:` for the
/// handlers documented with `security(())`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone: never authenticates, never goes through the response cache.
    Public,
    /// An API key or a bearer token.
    Credentials,
}

/// An operation documented with `security(())`: anyone may call it.
pub(crate) fn is_public(operation: &utoipa::openapi::path::Operation) -> bool {
    operation.security.as_ref().is_some_and(|requirements| {
        requirements.iter().all(|r| serde_json::to_value(r).is_ok_and(|v| v.as_object().is_some_and(|o| o.is_empty())))
    })
}

fn actix_method(method: &HttpMethod) -> Method {
    match method {
        HttpMethod::Get => Method::GET,
        HttpMethod::Post => Method::POST,
        HttpMethod::Put => Method::PUT,
        HttpMethod::Delete => Method::DELETE,
        HttpMethod::Patch => Method::PATCH,
        HttpMethod::Head => Method::HEAD,
        HttpMethod::Options => Method::OPTIONS,
        HttpMethod::Trace => Method::TRACE,
    }
}

/// `mount!(routes, self => [list_redirects, create_redirect], submodule => [..])`:
/// mounts each handler of a module at the method and path of its
/// `#[utoipa::path]` attribute. `mount!(routes, public: self => [health])` mounts
/// handlers anyone may call (documented with `security(())`).
#[macro_export]
macro_rules! mount {
    (@access $access:expr, $routes:expr, $($module:ident => [$($handler:ident),+]),+) => {
        paste::paste! {
            $($(
                $routes.add::<$module::[<__path_ $handler>]>($access, || actix_web::web::route().to($module::$handler));
            )+)+
        }
    };
    ($routes:expr, public: $($module:ident => [$($handler:ident),+ $(,)?]),+ $(,)?) => {
        $crate::mount!(@access $crate::routes::Access::Public, $routes, $($module => [$($handler),+]),+)
    };
    ($routes:expr, $($module:ident => [$($handler:ident),+ $(,)?]),+ $(,)?) => {
        $crate::mount!(@access $crate::routes::Access::Credentials, $routes, $($module => [$($handler),+]),+)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    mod probe {
        #[utoipa::path(get, path = "/probe/open", responses((status = 200)), security(()))]
        pub async fn open() -> &'static str {
            "open"
        }

        #[utoipa::path(get, path = "/probe/closed", responses((status = 200)))]
        pub async fn closed() -> &'static str {
            "closed"
        }
    }

    #[test]
    fn a_declaration_equal_to_the_attribute_mounts_and_marks_what_needs_credentials() {
        let mut routes = Routes::default();
        crate::mount!(routes, public: probe => [open]);
        crate::mount!(routes, probe => [closed]);
        let protected: Vec<(&str, bool)> = routes.resources.iter().map(|r| (r.path.as_str(), r.protected)).collect();
        assert_eq!(protected, [("/probe/open", false), ("/probe/closed", true)]);
    }

    #[test]
    #[should_panic(expected = "/probe/open: mount! declares it Credentials")]
    fn a_public_handler_mounted_as_credentialed_fails_the_document() {
        let mut routes = Routes::default();
        crate::mount!(routes, probe => [open]);
    }

    #[test]
    #[should_panic(expected = "/probe/closed: mount! declares it Public")]
    fn a_credentialed_handler_mounted_as_public_fails_the_document() {
        let mut routes = Routes::default();
        crate::mount!(routes, public: probe => [closed]);
    }
}
