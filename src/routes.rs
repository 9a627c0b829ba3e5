//! Each endpoint is declared once: its `#[utoipa::path]` attribute (method, path
//! and documentation together) is the declaration. A family lists its handlers
//! with [`mount!`](crate::mount); [`Routes`] then mounts each one at exactly the
//! method and path of its attribute and adds the same entry to the OpenAPI
//! document, so the served routes and the document cannot drift apart.
//!
//! Handlers of one path share one actix resource (so a wrong method answers 405,
//! not 404), and resources keep the order of first mention: list literal paths
//! (`/sites/deleted`) before the patterns that would swallow them (`/sites/{id}`).

use actix_web::http::Method;
use actix_web::web::{self, ServiceConfig};
use actix_web::{Resource, Route};
use utoipa::openapi::path::HttpMethod;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::{Paths, RefOr};

/// A family mounted more than once with its own data per mount: the content
/// kinds (documented as blogs) and the taxonomies (documented as categories).
struct Variant {
    /// The path segment in the attribute (`blogs`) and the one to mount at (`pages`).
    documented: &'static str,
    mounted: String,
    /// Puts the variant's data (its `ContentKind`, its `Taxonomy`) on a resource.
    data: Box<dyn Fn(Resource) -> Resource>,
}

#[derive(Default)]
pub struct Routes {
    resources: Vec<(String, Option<Resource>)>,
    paths: Paths,
    /// The component schemas the documented operations refer to.
    schemas: Vec<(String, RefOr<Schema>)>,
    variant: Option<Variant>,
}

/// What `#[utoipa::path]` generates for a handler: its path, methods and
/// operation, its tags, and the schemas it refers to (utoipa's own bindings use
/// the same traits).
pub trait Documented: utoipa::Path + utoipa::__dev::SchemaReferences + for<'t> utoipa::__dev::Tags<'t> {}

impl<T: utoipa::Path + utoipa::__dev::SchemaReferences + for<'t> utoipa::__dev::Tags<'t>> Documented for T {}

impl Routes {
    /// Mounts the handler documented by `P` (its `#[utoipa::path]`); `handler`
    /// makes the actix route that calls it.
    pub fn add<P: Documented>(&mut self, handler: impl Fn() -> Route) {
        let documented = P::path();
        let path = match &self.variant {
            Some(v) => documented.replace(&format!("/{}", v.documented), &format!("/{}", v.mounted)),
            None => documented.clone(),
        };
        for method in P::methods() {
            let route = handler().method(actix_method(&method));
            let slot = match self.resources.iter().position(|(p, _)| *p == path) {
                Some(i) => i,
                None => {
                    let resource = if path == "/" { web::resource(["", "/"]) } else { web::resource(path.as_str()) };
                    let resource = match &self.variant {
                        Some(v) => (v.data)(resource),
                        None => resource,
                    };
                    self.resources.push((path.clone(), Some(resource)));
                    self.resources.len() - 1
                }
            };
            let entry = &mut self.resources[slot].1;
            *entry = entry.take().map(|r| r.route(route));
        }
        // A variant other than the documented one is derived in the document
        // (see `openapi::DerivedKinds`), with its own ids and tags.
        if self.variant.as_ref().is_none_or(|v| v.documented == v.mounted) {
            let mut operation = P::operation();
            let tags = P::tags();
            if !tags.is_empty() {
                operation.tags.get_or_insert_with(Vec::new).extend(tags.into_iter().map(str::to_string));
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
        let data = web::Data::new(data);
        self.variant = Some(Variant {
            documented,
            mounted: mounted.to_string(),
            data: Box::new(move |r: Resource| r.app_data(data.clone())),
        });
        mount(self);
        self.variant = None;
    }

    /// The OpenAPI paths of everything mounted (relative to `/api/v1`) and the
    /// schemas they refer to.
    pub fn into_document_parts(self) -> (Paths, Vec<(String, RefOr<Schema>)>) {
        (self.paths, self.schemas)
    }

    /// Registers every resource, in the order of first mention.
    pub fn register(self, cfg: &mut ServiceConfig) {
        for resource in self.resources.into_iter().filter_map(|(_, r)| r) {
            cfg.service(resource);
        }
    }
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
/// `#[utoipa::path]` attribute.
#[macro_export]
macro_rules! mount {
    ($routes:expr, $($module:ident => [$($handler:ident),+ $(,)?]),+ $(,)?) => {
        paste::paste! {
            $($(
                $routes.add::<$module::[<__path_ $handler>]>(|| actix_web::web::route().to($module::$handler));
            )+)+
        }
    };
}
