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
use actix_web::middleware::from_fn;
use actix_web::web::{self, ServiceConfig};
use actix_web::{Resource, Route};
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
    /// Puts the variant's data (its `ContentKind`, its `Taxonomy`) on a resource.
    data: ResourceData,
}

type ResourceData = Rc<dyn Fn(Resource) -> Resource>;

/// One path's routes, built into an actix resource when registered.
struct PendingResource {
    path: String,
    routes: Vec<Route>,
    data: Option<ResourceData>,
    /// Whether any of its routes needs credentials.
    protected: bool,
}

#[derive(Default)]
pub struct Routes {
    resources: Vec<PendingResource>,
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
        let protected = !is_public(&P::operation());
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
        resource.routes.extend(P::methods().iter().map(|method| handler().method(actix_method(method))));
        resource.protected |= protected;
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
            data: Rc::new(move |r: Resource| r.app_data(data.clone())),
        });
        mount(self);
        self.variant = None;
    }

    /// The OpenAPI paths of everything mounted (relative to `/api/v1`) and the
    /// schemas they refer to.
    pub fn into_document_parts(self) -> (Paths, Vec<(String, RefOr<Schema>)>) {
        (self.paths, self.schemas)
    }

    /// Registers every resource, in the order of first mention, grouped in one
    /// scope per first path segment (`/sites`, `/blogs`): a request is matched
    /// against its segment's patterns only, not against every pattern mounted
    /// before it. Resources that take credentials answer reads through the
    /// response cache and bump their site's generation on writes
    /// (`http_cache`); public ones (system, public files) never authenticate a
    /// caller they do not need.
    pub fn register(self, cfg: &mut ServiceConfig) {
        let mut groups: Vec<(String, Vec<PendingResource>)> = Vec::new();
        for resource in self.resources {
            let segment = first_segment(&resource.path).to_string();
            match groups.iter_mut().find(|(s, _)| *s == segment) {
                Some((_, members)) => members.push(resource),
                None => groups.push((segment, vec![resource])),
            }
        }
        for (segment, members) in groups {
            if segment.is_empty() {
                members.into_iter().for_each(|r| mount_resource(cfg, r, ""));
                continue;
            }
            let prefix = format!("/{segment}");
            cfg.service(web::scope(&prefix).configure(|scope| {
                members.into_iter().for_each(|r| mount_resource(scope, r, &prefix));
            }));
        }
    }
}

/// `sites` for `/sites/{id}`; empty for `/` (mounted outside any scope).
fn first_segment(path: &str) -> &str {
    path.trim_start_matches('/').split('/').next().unwrap_or_default()
}

fn mount_resource(cfg: &mut ServiceConfig, pending: PendingResource, prefix: &str) {
    let path = &pending.path[prefix.len()..];
    let mut resource = match path {
        "/" if prefix.is_empty() => web::resource(["", "/"]),
        _ => web::resource(path),
    };
    if let Some(data) = &pending.data {
        resource = data(resource);
    }
    let resource = pending.routes.into_iter().fold(resource, Resource::route);
    match pending.protected {
        true => cfg.service(resource.wrap(from_fn(crate::http_cache::cached_reads))),
        false => cfg.service(resource),
    };
}

/// An operation documented with `security(())`: anyone may call it.
fn is_public(operation: &utoipa::openapi::path::Operation) -> bool {
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
