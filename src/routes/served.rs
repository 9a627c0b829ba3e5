//! Serving the API's resources: one lookup in a radix tree (`matchit`) per
//! request, then the resource's handler for the request's method.
//!
//! Actix's own router tests a request against each mounted pattern in turn,
//! scope by scope, with a regex for every pattern that has a parameter: about
//! a fifth of a cached read's instructions went there. What actix gave beside
//! the match is kept: literal segments win over a parameter (`/sites/deleted`
//! over `/sites/{id}`), a known path with a wrong method answers 405 with
//! `Allow`, an unknown one goes to the app's default service, a variant's data
//! (its `ContentKind`) is on its requests, and handlers read their parameters
//! through `web::Path` as before.

use std::collections::HashSet;
use std::rc::Rc;
use std::sync::{Mutex, OnceLock};

use actix_service::boxed::{self, BoxService, BoxServiceFactory};
use actix_web::dev::{
    AppService, Extensions, HttpServiceFactory, ResourceDef, Service, ServiceFactory, ServiceRequest, ServiceResponse,
    Transform,
};
use actix_web::http::{header, Method};
use actix_web::middleware::from_fn;
use actix_web::{Error, HttpMessage, ResponseError, Route};
use futures_util::future::{join_all, LocalBoxFuture};

use crate::error::{shown_path, ApiError, ErrorCode};

/// The resource a request under the API's prefix reached, by its documented
/// path (the metrics' route label); `None` when no resource has its path.
#[derive(Clone)]
pub struct MatchedResource(pub Option<Rc<str>>);

/// One resource as mounted: its handlers by method and what its requests carry.
pub(super) struct ServedResource {
    pub path: String,
    pub routes: Vec<(Method, Route)>,
    pub data: Option<Rc<Extensions>>,
    /// Answered through the response cache (`http_cache::cached_reads`).
    pub cached: bool,
}

/// The API's resources under one prefix (`/api/v1`), registered with actix as
/// one service.
pub struct ServedApi {
    prefix: &'static str,
    resources: Vec<ServedResource>,
}

impl ServedApi {
    pub(super) fn new(prefix: &'static str, resources: Vec<ServedResource>) -> Self {
        ServedApi { prefix, resources }
    }
}

/// The most parameters a path may have (`register` refuses more): a
/// request's values are copied out without a heap list.
const MAX_PARAMETERS: usize = 4;

type HttpService = BoxService<ServiceRequest, ServiceResponse, Error>;
type HttpServiceFactoryBox = BoxServiceFactory<(), ServiceRequest, ServiceResponse, Error, ()>;

impl HttpServiceFactory for ServedApi {
    fn register(self, config: &mut AppService) {
        let mut router = matchit::Router::new();
        let mut resources = Vec::with_capacity(self.resources.len());
        let elsewhere: Vec<Vec<(Method, String)>> =
            self.resources.iter().map(|r| answered_elsewhere(self.prefix, r, &self.resources)).collect();
        for ((index, resource), elsewhere) in self.resources.into_iter().enumerate().zip(elsewhere) {
            if let Err(conflict) = router.insert(resource.path.as_str(), index) {
                panic!("{}: {conflict} (two documented paths answer the same requests)", resource.path);
            }
            let parameters = parameter_names(&resource.path);
            assert!(parameters.len() <= MAX_PARAMETERS, "{}: more than {MAX_PARAMETERS} parameters", resource.path);
            resources.push(Rc::new(ResourceFactory { parameters, resource, elsewhere: Rc::new(elsewhere) }));
        }
        let factory = ApiFactory { router: Rc::new(router), resources, not_found: config.default_service() };
        config.register_service(ResourceDef::root_prefix(self.prefix), None, factory, None);
    }
}

struct ResourceFactory {
    resource: ServedResource,
    /// Methods this resource lacks that a resource at its last segment has:
    /// what a wrong method's 405 suggests instead.
    elsewhere: Rc<Vec<(Method, String)>>,
    /// The names of its path's parameters, in order (`matchit` answers their
    /// values in the same order).
    parameters: Vec<&'static str>,
}

struct ApiFactory {
    router: Rc<matchit::Router<usize>>,
    resources: Vec<Rc<ResourceFactory>>,
    /// The app's default service: what answers a path no resource has.
    not_found: Rc<HttpServiceFactoryBox>,
}

impl ServiceFactory<ServiceRequest> for ApiFactory {
    type Response = ServiceResponse;
    type Error = Error;
    type Config = ();
    type Service = ApiService;
    type InitError = ();
    type Future = LocalBoxFuture<'static, Result<ApiService, ()>>;

    fn new_service(&self, _: ()) -> Self::Future {
        let router = Rc::clone(&self.router);
        let resources = join_all(self.resources.iter().map(|r| Rc::clone(r).new_service()));
        let not_found = self.not_found.new_service(());
        Box::pin(async move {
            let resources = resources.await.into_iter().collect::<Result<Vec<_>, ()>>()?;
            Ok(ApiService { router, resources, not_found: not_found.await? })
        })
    }
}

impl ResourceFactory {
    async fn new_service(self: Rc<Self>) -> Result<ServedService, ()> {
        let handlers = join_all(self.resource.routes.iter().map(|(_, route)| route.new_service(()))).await;
        let mut by_method = Vec::with_capacity(handlers.len());
        for ((method, _), handler) in self.resource.routes.iter().zip(handlers) {
            by_method.push((method.clone(), boxed::service(handler?)));
        }
        let methods = MethodService { by_method: Rc::new(by_method), elsewhere: Rc::clone(&self.elsewhere) };
        let service = match self.resource.cached {
            true => boxed::service(from_fn(crate::http_cache::cached_reads).new_transform(methods).await?),
            false => boxed::service(methods),
        };
        Ok(ServedService {
            label: Rc::from(self.resource.path.as_str()),
            parameters: self.parameters.clone(),
            data: self.resource.data.clone(),
            service,
        })
    }
}

pub struct ApiService {
    router: Rc<matchit::Router<usize>>,
    resources: Vec<ServedService>,
    not_found: HttpService,
}

struct ServedService {
    label: Rc<str>,
    parameters: Vec<&'static str>,
    data: Option<Rc<Extensions>>,
    service: HttpService,
}

impl Service<ServiceRequest> for ApiService {
    type Response = ServiceResponse;
    type Error = Error;
    type Future = LocalBoxFuture<'static, Result<ServiceResponse, Error>>;

    actix_service::always_ready!();

    fn call(&self, mut req: ServiceRequest) -> Self::Future {
        let found = {
            // What follows the prefix: `/api/v1` alone is the API's root, as `/api/v1/` is.
            let path = match req.match_info().unprocessed() {
                "" => "/",
                path => path,
            };
            self.router.at(path).ok().map(|found| {
                let mut values: [Option<String>; MAX_PARAMETERS] = Default::default();
                for (slot, (_, value)) in values.iter_mut().zip(found.params.iter()) {
                    *slot = Some(value.to_string());
                }
                (*found.value, values)
            })
        };
        let Some((index, values)) = found else {
            req.extensions_mut().insert(MatchedResource(None));
            return self.not_found.call(req);
        };
        let served = &self.resources[index];
        for (name, value) in served.parameters.iter().zip(values.into_iter().flatten()) {
            req.match_info_mut().add_static(*name, value);
        }
        if let Some(data) = &served.data {
            req.add_data_container(Rc::clone(data));
        }
        req.extensions_mut().insert(MatchedResource(Some(Rc::clone(&served.label))));
        served.service.call(req)
    }
}

/// A resource's handlers by method: a method it has none for answers 405 with
/// the methods it has in `Allow`, as an actix resource does, and a detail that
/// names where that method is answered when another resource has it
/// (`POST /sites/{id}/blogs`: "Did you mean POST /api/v1/blogs?").
struct MethodService {
    by_method: Rc<Vec<(Method, HttpService)>>,
    elsewhere: Rc<Vec<(Method, String)>>,
}

impl Service<ServiceRequest> for MethodService {
    type Response = ServiceResponse;
    type Error = Error;
    type Future = LocalBoxFuture<'static, Result<ServiceResponse, Error>>;

    actix_service::always_ready!();

    fn call(&self, req: ServiceRequest) -> Self::Future {
        match self.by_method.iter().find(|(method, _)| method == req.method()) {
            Some((_, handler)) => handler.call(req),
            None => {
                let allowed: Vec<Method> = self.by_method.iter().map(|(method, _)| method.clone()).collect();
                let answers = allowed.iter().map(Method::as_str).collect::<Vec<_>>().join(", ");
                let mut detail =
                    format!("{} is not allowed on {} (it answers {answers})", req.method(), shown_path(req.path()));
                if let Some((method, path)) = self.elsewhere.iter().find(|(method, _)| method == req.method()) {
                    detail.push_str(&format!("; did you mean {method} {path}?"));
                }
                let mut refused = ApiError::new(ErrorCode::MethodNotAllowed, detail).error_response();
                if let Ok(allow) = header::TryIntoHeaderValue::try_into_value(header::Allow(allowed)) {
                    refused.headers_mut().insert(header::ALLOW, allow);
                }
                Box::pin(async move { Ok(req.into_response(refused)) })
            }
        }
    }
}

/// The methods `resource` lacks that the resource at its last literal
/// segment alone has (`/sites/{id}/blogs` lacks POST; `/blogs` has it), with
/// that resource's full path. Derived from the mounted resources, so no hint
/// is written by hand.
fn answered_elsewhere(prefix: &str, resource: &ServedResource, all: &[ServedResource]) -> Vec<(Method, String)> {
    let Some(last) = resource.path.rsplit('/').next().filter(|s| !s.is_empty() && !s.starts_with('{')) else {
        return Vec::new();
    };
    let shorter = format!("/{last}");
    let Some(other) = all.iter().find(|r| r.path == shorter && r.path != resource.path) else { return Vec::new() };
    let has = |r: &ServedResource, m: &Method| r.routes.iter().any(|(method, _)| method == m);
    other
        .routes
        .iter()
        .map(|(method, _)| method)
        .filter(|method| !has(resource, method))
        .map(|method| (method.clone(), format!("{prefix}{shorter}")))
        .collect()
}

/// `/sites/{site_id}/blogs/{id}` → `["site_id", "id"]`, each name kept once
/// per process: requests name their parameters with them (`web::Path`
/// structs read by name), and every server worker and test app mounts the
/// same few dozen.
fn parameter_names(path: &str) -> Vec<&'static str> {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES.get_or_init(Mutex::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    path.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
        .map(|name| match names.get(name) {
            Some(kept) => *kept,
            None => {
                let kept: &'static str = Box::leak(name.to_string().into_boxed_str());
                names.insert(kept);
                kept
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parameter_names;

    #[test]
    fn parameters_are_named_in_path_order_and_kept_once() {
        assert_eq!(parameter_names("/sites/{site_id}/blogs/{id}"), ["site_id", "id"]);
        assert_eq!(parameter_names("/sites/{slug}/sitemap-{number}.xml"), ["slug", "number"]);
        assert!(parameter_names("/sites").is_empty());
        let (first, again) = (parameter_names("/a/{id}")[0], parameter_names("/b/{id}")[0]);
        assert!(std::ptr::eq(first, again), "one name, kept once");
    }
}
