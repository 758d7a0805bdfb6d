//! `hookhost serve`: a long-running host on loopback HTTP (or a unix socket), so runtimes reach
//! their hooks without a process per call.
//!
//! - `POST /v1/events`: a canonical (or peer-shaped) event → hookhost's outcome JSON;
//! - `POST /v1/hooks/<protocol>`: a runtime's own hook request → its own hook response
//!   (`claude-code`, `codex`, `gemini-cli`, `docker-agent`, `starchild`): a Claude Code
//!   `type: "http"` hook points straight at `/v1/hooks/claude-code`;
//! - `POST /mcp/<protocol>`: `hookhost mcp`'s `hook` tool over MCP's streamable HTTP, for MCP
//!   tool hooks that reach their server by URL ([`mcp_http`]);
//! - `GET /healthz`, `GET /metrics` (Prometheus text: per hook invocations, decisions, errors and
//!   a latency histogram).
//!
//! The config is found as `run` finds it; it is reloaded on SIGHUP and when its file changes —
//! the new one fully loaded first, the old one serving until then and on when the new one is
//! bad. SIGTERM/SIGINT stop accepting and let in-flight requests finish. Requests are bounded:
//! body size (413), header read and idle time (5 s at most), total time (an event that can
//! block gets the runtime's block, never a pass), concurrent requests and open connections —
//! of which connections that have not authenticated hold at most half, the oldest closed first
//! when more arrive, so clients that send nothing or no token cannot starve one that does.
//!
//! The daemon serves its own user (SECURITY.md, "The daemon and its client"): on a unix socket
//! the peer's credentials decide who asks — another user is refused; over TCP a bearer token is
//! required (generated into a 0600 file on first start unless `--token-file` names one;
//! `--no-token` opts out on loopback only). A request with an `Origin` header (a browser page)
//! or a body that is not `application/json` is refused. Each event runs with the project layer of
//! its own `cwd`, as `hookhost run` would in that directory.

use crate::HostArgs;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path as UrlPath, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use hookhost::protocol::{OnFailure, Protocol};
use hookhost::{HookEvent, Host, Outcome, Runtime};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

pub(crate) mod hook_tool;
mod listen;
mod mcp_http;
mod metrics;
mod routes;
mod signals;
mod stamps;

#[cfg(unix)]
use listen::bind_unix;
use listen::{listen_at, token_for, Listen};
use metrics::Metrics;
use routes::*;
pub(crate) use routes::{answer_in, background, decide, runtime_protocol, Unanswered};
pub(crate) use signals::{Signal, Signals};
pub(crate) use stamps::config_stamp;
use stamps::{project_root, project_stamp, settled_stamp};

/// The loopback port `serve` listens on by default (where it does not listen on a unix socket).
pub const DEFAULT_PORT: u16 = hookhost::types::paths::DAEMON_PORT;

/// Where `serve` listens by default: on macOS the unix socket `serve.sock` in hookhost's state
/// directory (`hookhost-send` can tell who serves a socket there, not a port), elsewhere
/// `127.0.0.1:7807` (`hookhost::types::paths::default_daemon_socket` says why).
fn default_listen() -> String {
    match hookhost::types::paths::serve_socket_file() {
        Some(socket) => format!("unix:{}", socket.display()),
        None => format!("127.0.0.1:{DEFAULT_PORT}"),
    }
}

#[derive(clap::Args)]
pub(crate) struct ServeArgs {
    #[command(flatten)]
    pub host: HostArgs,
    /// Where to listen: `HOST:PORT` (loopback unless you name another address) or
    /// `unix:PATH`. Default: 127.0.0.1:7807; on macOS the unix socket serve.sock in hookhost's
    /// state directory (~/Library/Application Support/hookhost), where hookhost-send looks.
    #[arg(long, default_value_t = default_listen())]
    pub listen: String,
    /// A file holding a bearer token every request but `/healthz` must carry
    /// (`Authorization: Bearer TOKEN`). Default over TCP: the token in
    /// `$XDG_STATE_HOME/hookhost/serve.token`, generated (0600) on first start; on a unix socket,
    /// none (the peer's credentials decide).
    #[arg(long, value_name = "FILE", conflicts_with = "no_token")]
    pub token_file: Option<PathBuf>,
    /// Serve TCP requests without a token: any local process can then run events through your
    /// hooks. Loopback only.
    #[arg(long)]
    pub no_token: bool,
    /// Largest request body, in bytes (more is refused with 413).
    #[arg(long, default_value_t = 4 * hookhost::MAX_EVENT_BYTES)]
    pub max_body: usize,
    /// Requests served at once; more wait.
    #[arg(long, default_value_t = 64)]
    pub max_concurrent: usize,
    /// Seconds a request may take, headers included.
    #[arg(long, default_value_t = 30)]
    pub request_timeout: u64,
    /// Connections open at once; more wait in the kernel's queue.
    #[arg(long, default_value_t = 256)]
    pub max_connections: usize,
}

/// The most projects whose hosts are kept loaded at once (each its own chain).
const MAX_PROJECT_HOSTS: usize = 32;
/// The most event directories whose project root is remembered within a tick.
const MAX_KNOWN_DIRS: usize = 1024;

/// A loaded chain and what its files were when it loaded (to notice a change).
struct Loaded {
    host: Arc<Host>,
    stamp: String,
}

pub(crate) struct App {
    /// Who this is in messages (`hookhost serve`, `hookhost mcp`).
    who: &'static str,
    /// The managed and user layers, with the project of the daemon's own working directory:
    /// what an event without a `cwd` runs (as `hookhost run` in that directory would).
    host: RwLock<Arc<Host>>,
    /// Hosts of the projects events named by their `cwd`, by project root.
    projects: Mutex<BTreeMap<PathBuf, Loaded>>,
    /// The project root found for each event `cwd` this second (looking it up walks the
    /// directories upward: done once per directory and tick, not per event).
    roots: Mutex<HashMap<String, Option<PathBuf>>>,
    /// The daemon's own project root, if its working directory is in one.
    own_project: Option<PathBuf>,
    args: HostArgs,
    metrics: Mutex<Metrics>,
    token: Option<String>,
    /// How long one request may take, its body included.
    request_timeout: Duration,
    /// Connections that have not authenticated yet ([`Pending`]).
    pending: Mutex<Pending>,
    /// This process's user: a unix-socket peer must be it (or root).
    uid: u32,
}

/// Who is on the other end of a connection: the peer's uid on a unix socket (`None` over TCP).
#[derive(Clone, Copy)]
struct Peer(Option<u32>);

/// Which connection a request came on (to promote it once it authenticates).
#[derive(Clone, Copy)]
struct ConnId(u64);

/// How long a connection may take to send a request's headers, and stay idle between requests,
/// whatever `--request-timeout` says: a client that sends nothing holds a connection slot no
/// longer than this.
const HEADER_DEADLINE: Duration = Duration::from_secs(5);

/// Connections that have not yet made an authenticated request, oldest first. They may hold at
/// most half the connection slots: a new connection past that closes the oldest of them, so
/// clients that send nothing (or no token) cannot keep an authenticated one from being
/// accepted.
#[derive(Default)]
struct Pending {
    order: std::collections::VecDeque<(u64, tokio::task::AbortHandle)>,
}

impl Pending {
    /// Register a new connection, closing the oldest unauthenticated ones past `cap`.
    fn admit(&mut self, id: u64, handle: tokio::task::AbortHandle, cap: usize) -> usize {
        let mut closed = 0;
        while self.order.len() >= cap.max(1) {
            if let Some((_, oldest)) = self.order.pop_front() {
                oldest.abort();
                closed += 1;
            }
        }
        self.order.push_back((id, handle));
        closed
    }

    /// The connection authenticated, or ended: no longer pending.
    fn remove(&mut self, id: u64) {
        self.order.retain(|(i, _)| *i != id);
    }
}

impl App {
    /// Load the chain as `hookhost run` would in this directory and hold it: the daemon's state
    /// (`hookhost serve`, `hookhost mcp`). `token`: what every request must carry (serve over TCP).
    pub(crate) async fn start(who: &'static str, args: &HostArgs, request_timeout: Duration, token: Option<String>) -> anyhow::Result<Arc<App>> {
        let host = crate::load(args).await?;
        // A long-lived process: hooks' state writes are made in memory and committed in batches
        // off the decision's path (kv::StateStore::defer_writes).
        host.state_store().defer_writes();
        let own_project = if args.no_project { None } else { std::env::current_dir().ok().and_then(|d| project_root(&d)) };
        // SAFETY: geteuid cannot fail.
        #[cfg(unix)]
        let uid = unsafe { libc::geteuid() };
        // No unix-socket peers to compare.
        #[cfg(not(unix))]
        let uid = 0;
        Ok(Arc::new(App {
            who,
            host: RwLock::new(Arc::new(host)),
            projects: Mutex::default(),
            roots: Mutex::default(),
            own_project,
            args: args.clone(),
            metrics: Mutex::default(),
            token,
            request_timeout,
            pending: Mutex::new(Pending::default()),
            uid,
        }))
    }

    /// What the config's files are now, to compare on the next [`App::tick`].
    pub(crate) fn stamp(&self) -> Option<String> {
        config_stamp(&self.args)
    }

    /// Once a second: reload when the config's files changed since `stamp` (which moves on),
    /// else forget the projects whose files changed (they load again when next asked for).
    pub(crate) async fn tick(&self, stamp: &mut Option<String>) {
        if config_stamp(&self.args) != *stamp {
            *stamp = settled_stamp(&self.args).await;
            reload(self, "the config file changed").await;
        } else {
            self.forget_changed_projects();
        }
    }

    fn host(&self) -> Arc<Host> {
        self.host.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn count(&self, route: &str, status: StatusCode) {
        let mut m = self.metrics.lock().unwrap_or_else(|p| p.into_inner());
        *m.requests.entry((route.to_string(), status.as_u16())).or_default() += 1;
    }

    /// The chain an event runs through: the one of the project around its `cwd` (the same
    /// layers `hookhost run` loads there), else the daemon's own.
    async fn host_for(&self, event: &HookEvent) -> anyhow::Result<Arc<Host>> {
        if self.args.no_project {
            return Ok(self.host());
        }
        let Some(cwd) = event.cwd.as_deref().filter(|p| p.starts_with('/')) else { return Ok(self.host()) };
        let known = self.roots.lock().unwrap_or_else(|p| p.into_inner()).get(cwd).cloned();
        let root = match known {
            Some(root) => root,
            None => {
                let root = project_root(std::path::Path::new(cwd));
                let mut roots = self.roots.lock().unwrap_or_else(|p| p.into_inner());
                if roots.len() >= MAX_KNOWN_DIRS {
                    roots.clear();
                }
                roots.insert(cwd.to_string(), root.clone());
                root
            }
        };
        let Some(root) = root else { return Ok(self.host()) };
        if self.own_project.as_ref() == Some(&root) {
            return Ok(self.host());
        }
        if let Some(loaded) = self.projects.lock().unwrap_or_else(|p| p.into_inner()).get(&root) {
            return Ok(loaded.host.clone());
        }
        let stamp = project_stamp(&root);
        let host = crate::load_in(&self.args, Some(root.clone())).await?;
        host.state_store().defer_writes();
        let host = Arc::new(host);
        let mut projects = self.projects.lock().unwrap_or_else(|p| p.into_inner());
        if projects.len() >= MAX_PROJECT_HOSTS {
            // Bounded: the first (by path) makes room; it loads again when it is next asked for.
            let first = projects.keys().next().cloned();
            first.map(|k| projects.remove(&k));
        }
        projects.insert(root, Loaded { host: host.clone(), stamp });
        Ok(host)
    }

    /// Drop project hosts whose files changed since they loaded (they load again when asked).
    fn forget_changed_projects(&self) {
        self.roots.lock().unwrap_or_else(|p| p.into_inner()).clear();
        let mut projects = self.projects.lock().unwrap_or_else(|p| p.into_inner());
        projects.retain(|root, loaded| project_stamp(root) == loaded.stamp);
    }
}

/// Every request: who asks (a unix-socket peer must be this daemon's user), no browser page
/// (`Origin`), a JSON body, the bearer token (but on `/healthz`), and its time limit.
async fn guard(State(app): State<Arc<App>>, headers: HeaderMap, request: Request, next: Next) -> Response {
    if let Some(Peer(Some(uid))) = request.extensions().get::<Peer>().copied() {
        if uid != app.uid && uid != 0 {
            app.count("forbidden", StatusCode::FORBIDDEN);
            return json_error(StatusCode::FORBIDDEN, &format!("this daemon serves uid {} only, and you are uid {uid}: start your own `hookhost serve`", app.uid));
        }
    }
    if headers.contains_key(header::ORIGIN) {
        app.count("forbidden", StatusCode::FORBIDDEN);
        return json_error(StatusCode::FORBIDDEN, "requests from web pages (an Origin header) are refused: hookhost serve answers agent runtimes only");
    }
    if request.method() == axum::http::Method::POST {
        let json = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).and_then(|v| v.split(';').next()).is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            app.count("unsupported", StatusCode::UNSUPPORTED_MEDIA_TYPE);
            return json_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "the event must be sent as Content-Type: application/json");
        }
    }
    let mut authenticated = true;
    if let Some(token) = &app.token {
        let given = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
        let right = given.is_some_and(|g| hookhost::types::ids::sha256_hex(g.as_bytes()) == hookhost::types::ids::sha256_hex(token.as_bytes()));
        if !right && request.uri().path() != "/healthz" {
            app.count("unauthorized", StatusCode::UNAUTHORIZED);
            return json_error(StatusCode::UNAUTHORIZED, "missing or wrong bearer token (Authorization: Bearer TOKEN; see --token-file)");
        }
        authenticated = right;
    }
    if let (true, Some(ConnId(id))) = (authenticated, request.extensions().get::<ConnId>().copied()) {
        app.pending.lock().unwrap_or_else(|p| p.into_inner()).remove(id);
    }
    // The handlers answer within `request_timeout` themselves (a block where the event can
    // block); this is the backstop for a body that never arrives.
    match tokio::time::timeout(app.request_timeout + Duration::from_secs(1), next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            app.count("timeout", StatusCode::REQUEST_TIMEOUT);
            json_error(StatusCode::REQUEST_TIMEOUT, &format!("the request took longer than {} s (--request-timeout)", app.request_timeout.as_secs()))
        }
    }
}

fn router(app: Arc<App>, args: &ServeArgs) -> Router {
    Router::new()
        .route("/v1/events", post(events))
        .route("/v1/hooks/{protocol}", post(runtime_hook))
        .route("/v1/hooks/{protocol}/{event}", post(runtime_hook_named))
        .route("/mcp/{protocol}", post(mcp_http::post_message).get(mcp_http::not_allowed).delete(mcp_http::not_allowed))
        .route("/metrics", get(metrics))
        .route("/healthz", get(healthz))
        .layer(axum::middleware::from_fn_with_state(app.clone(), guard))
        .layer(DefaultBodyLimit::max(args.max_body))
        .layer(tower::limit::ConcurrencyLimitLayer::new(args.max_concurrent.max(1)))
        .with_state(app)
}

/// Load the config anew; swap it in only when it loads whole. Project hosts load again too.
pub(crate) async fn reload(app: &App, why: &str) {
    match crate::load(&app.args).await {
        Ok(host) => {
            host.state_store().defer_writes();
            *app.host.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(host);
            app.projects.lock().unwrap_or_else(|p| p.into_inner()).clear();
            app.metrics.lock().unwrap_or_else(|p| p.into_inner()).reloads.entry("ok").and_modify(|n| *n += 1).or_insert(1);
            tracing::info!("config reloaded ({why})");
            eprintln!("{}: config reloaded ({why})", app.who);
        }
        Err(e) => {
            app.metrics.lock().unwrap_or_else(|p| p.into_inner()).reloads.entry("failed").and_modify(|n| *n += 1).or_insert(1);
            eprintln!("{}: the config did not reload ({why}), the previous one keeps serving: {e:#}", app.who);
        }
    }
}

pub(crate) async fn serve(args: ServeArgs) -> anyhow::Result<std::process::ExitCode> {
    use hyper_util::rt::{TokioIo, TokioTimer};

    let listen = listen_at(&args.listen)?;
    let token = token_for(&args, &listen)?;
    let request_timeout = Duration::from_secs(args.request_timeout.clamp(1, 3600));
    let app = App::start("hookhost serve", &args.host, request_timeout, token).await?;
    let routes = router(app.clone(), &args);
    // HTTP/1.1 only. A client that sends nothing, never finishes its headers (slowloris), or
    // keeps a connection idle between requests is dropped after this long.
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(request_timeout.min(HEADER_DEADLINE));

    enum Listener {
        Tcp(tokio::net::TcpListener),
        #[cfg(unix)]
        Unix(tokio::net::UnixListener, PathBuf, u64),
    }
    let listener = match &listen {
        Listen::Tcp(addr) => Listener::Tcp(tokio::net::TcpListener::bind(addr).await.map_err(|e| crate::usage(format!("--listen: cannot listen on {addr}: {e}")))?),
        #[cfg(unix)]
        Listen::Unix(path) => {
            let (l, ino) = bind_unix(path)?;
            Listener::Unix(l, path.clone(), ino)
        }
        #[cfg(not(unix))]
        Listen::Unix(_) => unreachable!("listen_at refuses unix: where there are no unix sockets"),
    };
    let shown = match &listener {
        Listener::Tcp(l) => format!("http://{}", l.local_addr()?),
        #[cfg(unix)]
        Listener::Unix(_, p, _) => format!("unix:{}", p.display()),
    };
    // Signals are handled before anyone is told the daemon is up: a SIGHUP sent the moment it
    // says so reloads it rather than ending it.
    let mut signals = Signals::new()?;
    eprintln!("hookhost serve: listening on {shown}");

    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut stamp = app.stamp();
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let connections = Arc::new(tokio::sync::Semaphore::new(args.max_connections.max(1)));
    // Accept errors (out of file descriptors) back off rather than spin.
    let mut backoff = Duration::ZERO;
    let mut last_logged = Instant::now() - Duration::from_secs(60);
    let mut conn_seq = 0u64;
    loop {
        let (io, peer, permit) = tokio::select! {
            accepted = async {
                let permit = connections.clone().acquire_owned().await.expect("never closed");
                let conn = match &listener {
                    Listener::Tcp(l) => l.accept().await.map(|(s, _)| {
                        // Answers are one write each: send them at once, never held for an ACK.
                        let _ = s.set_nodelay(true);
                        (Box::new(TokioIo::new(s)) as Box<dyn Io>, Peer(None))
                    }),
                    #[cfg(unix)]
                    Listener::Unix(l, _, _) => l.accept().await.map(|(s, _)| {
                        let uid = s.peer_cred().ok().map(|c| c.uid());
                        // Unknown credentials are no one's: refused like another user's.
                        (Box::new(TokioIo::new(s)) as Box<dyn Io>, Peer(Some(uid.unwrap_or(u32::MAX))))
                    }),
                };
                conn.map(|(io, peer)| (io, peer, permit))
            } => match accepted {
                Ok(conn) => {
                    backoff = Duration::ZERO;
                    conn
                }
                Err(e) => {
                    backoff = (backoff * 2).clamp(Duration::from_millis(10), Duration::from_secs(1));
                    if last_logged.elapsed() >= Duration::from_secs(5) {
                        tracing::warn!("accept failed: {e}; backing off (at most one such line every 5 s)");
                        last_logged = Instant::now();
                    }
                    tokio::time::sleep(backoff).await;
                    continue;
                }
            },
            signal = signals.next() => match signal {
                Signal::Reload => {
                    reload(&app, "SIGHUP").await;
                    stamp = app.stamp();
                    continue;
                }
                Signal::Stop => break,
            },
            _ = tick.tick() => {
                app.tick(&mut stamp).await;
                continue;
            }
        };
        conn_seq += 1;
        let id = ConnId(conn_seq);
        let routes = routes.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
            request.extensions_mut().insert(peer);
            request.extensions_mut().insert(id);
            tower::ServiceExt::oneshot(routes.clone(), request)
        });
        let conn = graceful.watch(builder.serve_connection(io, service));
        let done = app.clone();
        let task = tokio::spawn(async move {
            let _ = conn.await;
            done.pending.lock().unwrap_or_else(|p| p.into_inner()).remove(id.0);
            drop(permit);
        });
        let closed = app.pending.lock().unwrap_or_else(|p| p.into_inner()).admit(id.0, task.abort_handle(), args.max_connections / 2);
        if closed > 0 {
            app.count("evicted", StatusCode::REQUEST_TIMEOUT);
        }
    }
    eprintln!("hookhost serve: shutting down, letting requests in flight finish");
    let started = Instant::now();
    if tokio::time::timeout(request_timeout, graceful.shutdown()).await.is_err() {
        eprintln!("hookhost serve: requests still running after {:?} were dropped", started.elapsed());
    }
    #[cfg(unix)]
    if let Listener::Unix(_, path, ino) = &listener {
        // Only the socket this daemon made: never one a later daemon bound at the same path.
        if std::fs::symlink_metadata(path).is_ok_and(|m| std::os::unix::fs::MetadataExt::ino(&m) == *ino) {
            let _ = std::fs::remove_file(path);
        }
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// A connection's byte stream, TCP or unix.
trait Io: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static {}
impl<T: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static> Io for T {}
