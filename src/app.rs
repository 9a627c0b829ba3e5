//! Wires the application: database, actors, the shared state (`crate::state`),
//! routes and server. Nothing but `main.rs` and the tests imports this module.

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use actix::{Actor, Addr};
use actix_http::error::DispatchError;
use actix_http::{HttpService, KeepAlive, Protocol};
use actix_rt::net::TcpStream;
use actix_service::{fn_service, map_config, ServiceFactoryExt as _};
use actix_web::dev::AppConfig;
use actix_web::middleware::{from_fn, Condition};
use actix_web::{web, App};
use plinth_actors::{
    AuthFailureTracker, Clock, FlushUsage, KeyUsageCounters, KeyUsageRecorder, Periodic, RateLimitTrackers,
    RateLimiter, SiteCache, SiteRegistry, SystemClock,
};
use sea_orm::{EntityTrait, PaginatorTrait};
use utoipa_swagger_ui::SwaggerUi;

use crate::config::Config;
use crate::connection::{Listener, ProblemIo};
use crate::error::{json_config, not_found_fallback, path_config, query_config, rewrite_bare_errors};
use crate::events::EventBus;
use crate::state::{Actors, AppState, JwtVerifier, KeyStore};
use crate::storage::Storage;
use crate::webhooks::delivery::Deliverer;
use crate::webhooks::{WebhookDispatcher, WebhookRuntime};
use crate::{api_keys, content, db, moderation, openapi, system, telemetry, webhooks};

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// How long a cached API key is trusted before it is read again (bounds how long
/// a key revoked on another instance keeps working).
const KEY_CACHE_TTL: Duration = Duration::from_secs(30);
/// Values derived from sites' data kept at once (a content list's deep-page
/// boundaries: about 8 KB at 100,000 rows).
const DERIVED_VALUES: usize = 1_024;

/// A built application: migrated database, running actors, state. Must be built
/// inside an actix system (the binary's `main`, or `#[actix_web::test]`).
pub struct Plinth {
    pub state: web::Data<AppState>,
    /// The webhook sender and subscriptions, beside the state.
    pub webhooks: web::Data<WebhookRuntime>,
    /// The Master key secret generated on first start, to be shown once.
    pub generated_admin_key: Option<String>,
    /// Time-driven work (scheduled publishing); send it `RunNow` to run at once.
    pub janitor: Addr<Periodic>,
    /// Turns closed debounce windows into batch deliveries (every 5 s).
    pub webhook_flusher: Addr<Periodic>,
    /// Re-sends due failed deliveries (every 15 s).
    pub webhook_retrier: Addr<Periodic>,
    /// Writes buffered pageviews (every second).
    pub pageview_writer: Addr<Periodic>,
    /// Builds queued site exports.
    pub export_builder: Addr<crate::export::ExportBuilder>,
    pub webhook_dispatcher: Addr<WebhookDispatcher>,
}

impl Plinth {
    pub async fn build(config: Config) -> Result<Self, BoxError> {
        Self::build_with_clock(config, Arc::new(SystemClock)).await
    }

    /// As [`Plinth::build`], reading time from `clock` (tests move it forward).
    pub async fn build_with_clock(config: Config, clock: Arc<dyn Clock>) -> Result<Self, BoxError> {
        crate::error::set_error_type_base(&config.error_type_base);
        crate::content::hooks::register(crate::api::content_hooks());
        let db = db::connect(&config.database_url, config.database_acquire_timeout()).await?;
        db::migrate(&db).await?;
        let generated_admin_key = api_keys::bootstrap(&db, clock.now(), &config).await?;
        let storage = Storage::from_config(&config.data_dir, &config.storage)?;

        let rate_limits = Arc::new(
            RateLimitTrackers::new(AuthFailureTracker::new(
                config.rate_limits.auth_failures_per_minute,
                Duration::from_secs(config.rate_limits.auth_cooldown_secs),
            ))
            .with_form_quotas(
                config.rate_limits.form_submissions_per_minute,
                config.rate_limits.visitor_lookups_per_minute,
            )
            .with_shared(config.redis.shared_limits())?,
        );
        let key_usage = Arc::new(KeyUsageCounters::default());
        let sites = Arc::new(SiteCache::new(
            Duration::from_secs(config.sites.cache_idle_secs),
            Duration::from_secs(config.sites.cache_max_age_secs),
        ));
        let supervisors =
            plinth_actors::SiteSupervisors::new(clock.clone(), Duration::from_secs(config.sites.cache_idle_secs));
        let actors = Actors {
            key_usage: KeyUsageRecorder::new(
                db.clone(),
                Arc::clone(&key_usage),
                Duration::from_secs(config.rate_limits.usage_flush_secs.max(1)),
            )
            .start(),
            site_registry: SiteRegistry::new(Arc::clone(&sites), Arc::clone(&supervisors)).start(),
            rate_limiter: RateLimiter::new(Arc::clone(&rate_limits)).start(),
            media_pool: plinth_actors::media_pool::MediaPool::start(config.media.pool_threads, config.media.pool_queue),
        };
        let instance = webhooks::claims::instance_id(&config.data_dir)?;
        // Before any worker sends: what this instance was sending when it last
        // stopped is due now, not when its claims would have lapsed.
        let taken_back =
            webhooks::claims::take_back_own(&db, instance, clock.now()).await.map_err(|e| e.to_string())?;
        if taken_back > 0 {
            tracing::info!(deliveries = taken_back, "took back deliveries in flight when this instance last stopped");
        }
        let cluster = if db.get_database_backend() == sea_orm::DbBackend::Postgres {
            crate::cluster::ClusterBus::on_postgres(db.clone(), instance)
        } else {
            crate::cluster::ClusterBus::single(instance)
        };
        let outbound = crate::outbound::Outbound::new(&config.ssrf_allowlist, config.outbound_proxy_from_env)?;
        let deliverer = Deliverer::new(&config, outbound.clone(), clock.clone(), instance);
        let responses = Arc::new(crate::state::ResponseCache::new(config.sites.response_cache_bytes));
        let cluster = Arc::new(cluster);
        let site_slugs = Arc::new(dashmap::DashMap::new());
        let write_caches = Arc::new(crate::state::write_caches::WriteCaches {
            sites: Arc::clone(&sites),
            site_slugs: Arc::clone(&site_slugs),
            responses: Arc::clone(&responses),
            cluster: Arc::clone(&cluster),
        });
        let write_share = u32::try_from(config.tenants.write_share_percent).unwrap_or(100);
        let db = db::Db::new(db, write_caches.clone(), write_share);
        let state = AppState {
            keys: KeyStore::new(KEY_CACHE_TTL, config.rate_limits.clone()),
            jwt: JwtVerifier::from_config(&config.idp),
            account_gate: Arc::new(moderation::ModerationGate::default()),
            idp: crate::idp::ClerkCompatible::from_config(&config.idp)
                .map(|p| Arc::new(p) as Arc<dyn crate::idp::IdentityProvider>),
            config: Arc::new(config),
            db,
            rate_limits,
            key_usage,
            sites,
            supervisors,
            responses,
            response_flights: Default::default(),
            derived: crate::state::derived::DerivedValues::new(DERIVED_VALUES),
            statistics: Default::default(),
            pageviews: Default::default(),
            site_slugs,
            secrets: Default::default(),
            exports_queued: Default::default(),
            storage,
            outbound,
            events: EventBus::default(),
            cluster,
            write_caches,
            clock,
            actors,
            observability: crate::observability::Observability::new()?,
        };
        let state = web::Data::new(state);
        let hooks = web::Data::new(WebhookRuntime::new(state.clone(), deliverer));
        state
            .supervisors
            .owns(Arc::new(webhooks::dispatcher::SubscriptionsOf(Arc::downgrade(&hooks.clone().into_inner()))));
        crate::instances::start(&state, &hooks).await?;
        let janitor = Periodic::new(
            "janitor",
            Duration::from_secs(state.config.janitor_every_secs.max(1)),
            janitor_task(state.clone()),
        )
        .start();
        let webhook_dispatcher = WebhookDispatcher::new(hooks.clone()).start();
        let every = |secs: u64| Duration::from_secs(secs.max(1));
        let webhook_flusher = Periodic::new(
            "webhook flush",
            every(state.config.webhooks.flush_poll_secs),
            webhook_task(hooks.clone(), "flush", |s| {
                Box::pin(async move { webhooks::dispatcher::flush_due(&s).await })
            }),
        )
        .start();
        let webhook_retrier = Periodic::new(
            "webhook retry",
            every(state.config.webhooks.retry_poll_secs),
            webhook_task(hooks.clone(), "retry", |s| Box::pin(async move { webhooks::retries::retry_due(&s).await })),
        )
        .start();
        if taken_back > 0 {
            webhook_retrier.do_send(plinth_actors::RunNow);
        }
        let pageview_writer = Periodic::new("pageviews", Duration::from_secs(1), pageview_task(state.clone())).start();
        let export_builder = crate::export::ExportBuilder::new(state.clone()).start();
        // Migrations ran and every actor started: /readyz may answer 200.
        state.observability.readiness.mark_started();
        Ok(Self {
            state,
            webhooks: hooks,
            generated_admin_key,
            janitor,
            webhook_flusher,
            webhook_retrier,
            webhook_dispatcher,
            pageview_writer,
            export_builder,
        })
    }

    /// Serves on `listener` until stopped. With `handle_signals`, SIGTERM/SIGINT
    /// stop accepting and let in-flight requests finish (30 s at most).
    ///
    /// Built from actix-server and actix-http directly rather than through
    /// `HttpServer`, whose connections are plain TCP streams: here each runs
    /// through [`connection::ProblemIo`], so the errors actix-http answers before
    /// the app sees a request are problem+json too.
    pub fn serve(&self, listener: TcpListener, handle_signals: bool) -> Result<RunningServer, BoxError> {
        let addr = listener.local_addr()?;
        let mut server = actix_server::Server::build().shutdown_timeout(30);
        let serving = Serving {
            state: self.state.clone(),
            hooks: self.webhooks.clone(),
            trash_sources: web::Data::new(crate::api::trash_sources()),
            shutdown: server.graceful_shutdown_signal(),
        };
        server = server.listen("plinth", listener, serving.factory(Listener::Api, addr))?;
        if let Some(metrics_listener) = system::metrics::metrics_listener(&self.state)? {
            let metrics_addr = metrics_listener.local_addr()?;
            server =
                server.listen("plinth-metrics", metrics_listener, serving.factory(Listener::Metrics, metrics_addr))?;
        }
        if self.state.config.workers > 0 {
            server = server.workers(self.state.config.workers);
        }
        if !handle_signals {
            server = server.disable_signals();
        }
        Ok(RunningServer { addr, server: server.run(), webhooks: self.webhooks.clone() })
    }
}

/// What each server worker's listeners are built from.
#[derive(Clone)]
struct Serving {
    state: web::Data<AppState>,
    hooks: web::Data<WebhookRuntime>,
    trash_sources: web::Data<crate::trash::TrashSources>,
    /// Fired on a graceful stop, so idle kept-alive connections close at once.
    shutdown: actix_server::GracefulShutdownSignal,
}

impl Serving {
    /// The service factory of one listener: HTTP/1.1 as `HttpServer` would serve
    /// it (its default keep-alive and timeouts), on [`ProblemIo`] connections.
    fn factory(
        &self,
        listener: Listener,
        local_addr: SocketAddr,
    ) -> impl Fn() -> BoxedConnectionFactory + Send + Clone + 'static {
        let serving = self.clone();
        move || {
            let serving = serving.clone();
            let app = application(&serving.state, &serving.hooks, &serving.trash_sources);
            let shutdown = serving.shutdown.clone();
            let http = HttpService::<ProblemIo<TcpStream>, _, _>::build()
                .keep_alive(KeepAlive::default())
                .client_request_timeout(Duration::from_secs(5))
                .client_disconnect_timeout(Duration::from_secs(1))
                .local_addr(local_addr)
                .graceful_shutdown_signal(move || {
                    let signal = shutdown.clone();
                    async move { signal.notified().await }
                })
                .on_connect_ext(|io: &ProblemIo<TcpStream>, data| {
                    data.insert(io.listener);
                })
                // Its host and address are fallbacks for requests without a
                // Host header (URL generation); nothing in Plinth reads them.
                .finish(map_config(app, move |_| AppConfig::default()));
            let clock = serving.state.clock.clone();
            let accept = fn_service(move |io: TcpStream| {
                let peer = io.peer_addr().ok();
                let io = ProblemIo::new(io, listener, clock.clone());
                std::future::ready(Ok::<_, DispatchError>((io, Protocol::Http1, peer)))
            });
            actix_service::boxed::factory(accept.and_then(http))
        }
    }
}

type BoxedConnectionFactory = actix_service::boxed::BoxServiceFactory<(), TcpStream, (), DispatchError, ()>;

/// The application one server worker runs: state, middleware and every route.
/// Public so benchmarks can drive exactly what is served, in process.
pub fn application(
    state: &web::Data<AppState>,
    hooks: &web::Data<WebhookRuntime>,
    trash_sources: &web::Data<crate::trash::TrashSources>,
) -> App<
    impl actix_web::dev::ServiceFactory<
        actix_web::dev::ServiceRequest,
        Config = (),
        Response = actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let cors = crate::cors::middleware(&state.config.cors_origins);
    App::new()
        .app_data(state.clone())
        .app_data(hooks.clone())
        .app_data(trash_sources.clone())
        .app_data(json_config())
        .app_data(path_config())
        .app_data(query_config())
        // Innermost: the body is watched wherever it is read, and the answer to
        // a stalled one still gets CORS headers and is logged with its status.
        .wrap(from_fn(crate::body::idle_timeout))
        // Around routing, extractors and the handler: authentication and role
        // checks note the request's tenant, whose turn its writes wait for.
        .wrap(from_fn(tenant_scope))
        // Inside the problem rewrite, so a refused origin still gets problem+json.
        .wrap(Condition::new(cors.is_some(), cors.unwrap_or_default()))
        .wrap(from_fn(rewrite_bare_errors))
        .wrap(from_fn(telemetry::request_context))
        // Outermost: a request's time and final status, as the client gets them.
        .wrap(from_fn(system::metrics::record_request))
        .configure(routes)
        .default_service(web::to(not_found_fallback))
}

/// One Janitor pass: whatever is due now.
fn pageview_task(state: web::Data<AppState>) -> plinth_actors::Task {
    Arc::new(move || {
        let state = state.clone();
        Box::pin(async move {
            if let Err(e) = crate::analytics::flush_pageviews(&state).await {
                tracing::warn!(error = %e, "pageviews kept in memory; will retry");
            }
        })
    })
}

fn janitor_task(state: web::Data<AppState>) -> plinth_actors::Task {
    // The day analytics were last rolled up (once a day, on the first pass of the day).
    let rolled_up = Arc::new(std::sync::Mutex::new(String::new()));
    // The hour form retention last ran (once an hour, on the first pass of the hour).
    let retained = Arc::new(std::sync::Mutex::new(String::new()));
    Arc::new(move || {
        let state = state.clone();
        let rolled_up = rolled_up.clone();
        let retained = retained.clone();
        Box::pin(async move {
            let now = state.clock.now();
            let lease = crate::instances::lease_for(Duration::from_secs(state.config.janitor_every_secs.max(1)));
            if !state.cluster.may_run(&state.db, crate::instances::JANITOR_JOB, now, lease).await {
                return; // another instance runs the Janitor
            }
            if first_pass_of(&retained, now.format("%Y-%m-%d %H").to_string()) {
                crate::forms::hourly(&state).await;
            }
            if first_pass_of(&rolled_up, now.format("%Y-%m-%d").to_string()) {
                if let Err(e) = crate::analytics::aggregate_all(&state).await {
                    tracing::warn!(error = %e, "analytics rollup failed; will retry tomorrow or on demand");
                }
            }
            match content::schedule::run_due(&state).await {
                Ok(0) => {}
                Ok(moved) => tracing::info!(moved, "scheduled status changes applied"),
                Err(e) => tracing::warn!(error = %e, "scheduled publishing failed; will retry"),
            }
            if let Err(e) = crate::export::jobs::purge_expired(&state).await {
                tracing::warn!(error = %e, "export purge failed; will retry");
            }
            if let Err(e) = crate::sites::purge_expired_sites(&state).await {
                tracing::warn!(error = %e, "site purge failed; will retry");
            }
            if let Err(e) = crate::export::remove_unfinished_imports(&state).await {
                tracing::warn!(error = %e, "removing unfinished imports failed; will retry");
            }
            let window = chrono::Duration::seconds(i64::try_from(state.config.events.replay_secs).unwrap_or(900));
            if let Err(e) = crate::events::stream::prune(&state.db, now - window).await {
                tracing::warn!(error = %e, "event stream prune failed; will retry");
            }
        })
    })
}

/// Whether `period` differs from the one `last` remembers (and remembers it).
fn first_pass_of(last: &std::sync::Mutex<String>, period: String) -> bool {
    let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
    let first = *last != period;
    *last = period;
    first
}

type WebhookPass =
    fn(web::Data<WebhookRuntime>) -> futures_util::future::BoxFuture<'static, crate::error::ApiResult<usize>>;

/// A webhook worker pass, logged when it did something or failed.
fn webhook_task(hooks: web::Data<WebhookRuntime>, name: &'static str, pass: WebhookPass) -> plinth_actors::Task {
    Arc::new(move || {
        let hooks = hooks.clone();
        Box::pin(async move {
            match pass(hooks).await {
                Ok(0) => {}
                Ok(n) => tracing::debug!(pass = name, deliveries = n, "webhook pass"),
                Err(e) => tracing::warn!(pass = name, error = %e, "webhook pass failed; will retry"),
            }
        })
    })
}

pub struct RunningServer {
    pub addr: SocketAddr,
    pub server: actix_web::dev::Server,
    webhooks: web::Data<WebhookRuntime>,
}

impl RunningServer {
    /// Persists what actors hold in memory. Called after the server stopped.
    pub async fn drain(hooks: &web::Data<WebhookRuntime>) {
        let state = &hooks.state;
        // Committed events are in the outbox whatever happens; hand what is there
        // to the webhooks now rather than after the next start. Rows the
        // dispatcher actor is holding, and sends waiting for an answer, are
        // waited for (10 s at most).
        let started = std::time::Instant::now();
        loop {
            if let Err(e) = webhooks::dispatcher::dispatch_outbox(hooks).await {
                tracing::warn!(error = %e, "events stay in the outbox for the next start");
                break;
            }
            let left = plinth_entities::event_outbox::Entity::find().count(&state.db).await.unwrap_or(0);
            let sending = hooks.results.sends_in_flight();
            if (left == 0 && !sending) || started.elapsed() > Duration::from_secs(10) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // Attempt results still in memory; a send cut off above is sent again
        // after the next start (its claim is taken back).
        if let Err(e) = webhooks::results::flush(hooks).await {
            tracing::warn!(error = %e, "attempt results not recorded; their deliveries are sent again");
        }
        if let Err(e) = crate::analytics::flush_pageviews(state).await {
            tracing::warn!(error = %e, "pageviews not written on shutdown");
        }
        if let Err(e) = state.actors.key_usage.send(FlushUsage).await {
            tracing::warn!(error = %e, "could not flush key usage on shutdown");
        }
        crate::instances::stop(state).await;
    }

    pub fn state(&self) -> web::Data<AppState> {
        self.webhooks.state.clone()
    }

    /// What [`RunningServer::drain`] needs once the server stopped.
    pub fn webhooks(&self) -> web::Data<WebhookRuntime> {
        self.webhooks.clone()
    }
}

/// Every route. API paths live under `/api/v1` (see `api.rs`), matched first
/// (no other route shares the prefix); the docs sit outside it.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(crate::api::served_routes().serve_under("/api/v1"))
        .service(web::resource("/").route(web::get().to(system::version)))
        .configure(system::ops_routes)
        .service(web::redirect("/api-docs", "/api-docs/"))
        // The document is built and serialized once per process, not per worker.
        .service(web::resource("/api-docs/openapi.json").route(web::get().to(openapi::serve_document)))
        .service(SwaggerUi::new("/api-docs/{_:.*}").config(utoipa_swagger_ui::Config::new(["/api-docs/openapi.json"])));
}

/// Runs a request with a place to note its tenant (`tenant`), marks its site
/// active for the site's supervisor, and contains a panic in it: the request
/// answers 500 alone, logged with its site, and the site's supervisor restarts.
async fn tenant_scope(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>, actix_web::Error> {
    // (The request itself cannot be kept for an answer: routing needs it unshared.)
    let state = req.app_data::<web::Data<AppState>>().cloned();
    let (outcome, tenant) = crate::tenant::for_request(next.call(req)).await;
    let site = match tenant {
        crate::tenant::Tenant::Site(site) => Some(site),
        _ => None,
    };
    match (outcome, site, state) {
        (Ok(answered), Some(site), Some(state)) => {
            state.supervisors.touch(site);
            answered
        }
        (Ok(answered), _, _) => answered,
        (Err(payload), site, state) => {
            match (site, state) {
                (Some(site), Some(state)) => {
                    state.supervisors.panicked(site, plinth_actors::Work::Request, payload.as_ref());
                }
                _ => {
                    let panic = plinth_actors::site_supervisor::panic_message(payload.as_ref());
                    tracing::error!(tenant = ?tenant, panic = %panic, "a request panicked; it failed alone");
                }
            }
            // Answered as problem+json by the error's own response.
            Err(crate::error::ApiError::internal(
                "the request failed on an internal fault, logged with its site's id; no other request was affected. If it happens again, report the request and its time to the operator",
            )
            .into())
        }
    }
}
