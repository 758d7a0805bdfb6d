//! `hookhost serve`: a long-running host on loopback HTTP (or a unix socket), so runtimes reach
//! their hooks without a process per call.
//!
//! - `POST /v1/events`: a canonical (or peer-shaped) event → hookhost's outcome JSON;
//! - `POST /v1/hooks/<protocol>`: a runtime's own hook request → its own hook response
//!   (`claude-code`, `codex`, `gemini-cli`, `docker-agent`, `starchild`): a Claude Code
//!   `type: "http"` hook points straight at `/v1/hooks/claude-code`;
//! - `GET /healthz`, `GET /metrics` (Prometheus text: per hook invocations, decisions, errors and
//!   a latency histogram).
//!
//! The config is found as `run` finds it; it is reloaded on SIGHUP and when its file changes —
//! the new one fully loaded first, the old one serving until then and on when the new one is
//! bad. SIGTERM/SIGINT stop accepting and let in-flight requests finish. Requests are bounded:
//! body size (413), header read time, total time (408), concurrent requests; an optional bearer
//! token guards everything but `/healthz`.

use crate::HostArgs;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path as UrlPath, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use hookhost::protocol::Protocol;
use hookhost::{HookEvent, Host, Outcome};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

/// The loopback port `serve` listens on by default.
pub const DEFAULT_PORT: u16 = 7807;

#[derive(clap::Args)]
pub(crate) struct ServeArgs {
    #[command(flatten)]
    pub host: HostArgs,
    /// Where to listen: `HOST:PORT` (loopback unless you name another address) or
    /// `unix:PATH`.
    #[arg(long, default_value_t = format!("127.0.0.1:{DEFAULT_PORT}"))]
    pub listen: String,
    /// A file holding a bearer token every request but `/healthz` must carry
    /// (`Authorization: Bearer TOKEN`).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Largest request body, in bytes (more is refused with 413).
    #[arg(long, default_value_t = 4 * hookhost::MAX_EVENT_BYTES)]
    pub max_body: usize,
    /// Requests served at once; more wait.
    #[arg(long, default_value_t = 64)]
    pub max_concurrent: usize,
    /// Seconds a request may take, headers included.
    #[arg(long, default_value_t = 30)]
    pub request_timeout: u64,
}

/// Latency buckets of the histogram, in seconds.
const BUCKETS: [f64; 10] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1.0];

#[derive(Default)]
struct HookMetrics {
    invocations: u64,
    decisions: BTreeMap<&'static str, u64>,
    errors: BTreeMap<String, u64>,
    buckets: [u64; BUCKETS.len()],
    sum_seconds: f64,
}

#[derive(Default)]
struct Metrics {
    requests: BTreeMap<(String, u16), u64>,
    hooks: BTreeMap<String, HookMetrics>,
    reloads: BTreeMap<&'static str, u64>,
}

impl Metrics {
    fn record(&mut self, outcome: &Outcome) {
        for trace in &outcome.hooks {
            let m = self.hooks.entry(trace.id.clone()).or_default();
            m.invocations += 1;
            *m.decisions.entry(trace.decision.as_str()).or_default() += 1;
            if let Some(error) = &trace.error {
                // The kind of failure, not its text: a bounded label set.
                let kind = error.split_whitespace().nth(1).unwrap_or("error").trim_end_matches(':').to_string();
                *m.errors.entry(kind).or_default() += 1;
            }
            let seconds = trace.duration_us as f64 / 1e6;
            m.sum_seconds += seconds;
            for (i, le) in BUCKETS.iter().enumerate() {
                if seconds <= *le {
                    m.buckets[i] += 1;
                }
            }
        }
    }

    fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("# HELP hookhost_requests_total HTTP requests served, by route and status.\n# TYPE hookhost_requests_total counter\n");
        for ((route, status), n) in &self.requests {
            out.push_str(&format!("hookhost_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}\n"));
        }
        out.push_str("# HELP hookhost_reloads_total Config reloads, by result.\n# TYPE hookhost_reloads_total counter\n");
        for (result, n) in &self.reloads {
            out.push_str(&format!("hookhost_reloads_total{{result=\"{result}\"}} {n}\n"));
        }
        out.push_str("# HELP hookhost_hook_invocations_total Hook invocations.\n# TYPE hookhost_hook_invocations_total counter\n");
        for (hook, m) in &self.hooks {
            out.push_str(&format!("hookhost_hook_invocations_total{{hook=\"{hook}\"}} {}\n", m.invocations));
        }
        out.push_str("# HELP hookhost_hook_decisions_total Hook verdicts, by decision.\n# TYPE hookhost_hook_decisions_total counter\n");
        for (hook, m) in &self.hooks {
            for (decision, n) in &m.decisions {
                out.push_str(&format!("hookhost_hook_decisions_total{{hook=\"{hook}\",decision=\"{decision}\"}} {n}\n"));
            }
        }
        out.push_str("# HELP hookhost_hook_errors_total Hook executor failures, by kind.\n# TYPE hookhost_hook_errors_total counter\n");
        for (hook, m) in &self.hooks {
            for (kind, n) in &m.errors {
                out.push_str(&format!("hookhost_hook_errors_total{{hook=\"{hook}\",kind=\"{kind}\"}} {n}\n"));
            }
        }
        out.push_str("# HELP hookhost_hook_duration_seconds Hook invocation time.\n# TYPE hookhost_hook_duration_seconds histogram\n");
        for (hook, m) in &self.hooks {
            for (i, le) in BUCKETS.iter().enumerate() {
                out.push_str(&format!("hookhost_hook_duration_seconds_bucket{{hook=\"{hook}\",le=\"{le}\"}} {}\n", m.buckets[i]));
            }
            out.push_str(&format!("hookhost_hook_duration_seconds_bucket{{hook=\"{hook}\",le=\"+Inf\"}} {}\n", m.invocations));
            out.push_str(&format!("hookhost_hook_duration_seconds_sum{{hook=\"{hook}\"}} {}\n", m.sum_seconds));
            out.push_str(&format!("hookhost_hook_duration_seconds_count{{hook=\"{hook}\"}} {}\n", m.invocations));
        }
        out
    }
}

struct App {
    host: RwLock<Arc<Host>>,
    metrics: Mutex<Metrics>,
    token: Option<String>,
    /// How long one request may take, its body included.
    request_timeout: Duration,
}

impl App {
    fn host(&self) -> Arc<Host> {
        self.host.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn count(&self, route: &str, status: StatusCode) {
        let mut m = self.metrics.lock().unwrap_or_else(|p| p.into_inner());
        *m.requests.entry((route.to_string(), status.as_u16())).or_default() += 1;
    }
}

fn json_error(status: StatusCode, message: &str) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], serde_json::json!({ "error": message }).to_string()).into_response()
}

/// Run the event's background hooks once the response is on its way (no task at all when the
/// event has none: most requests).
fn background(host: Arc<Host>, event: HookEvent) {
    if !host.has_background(&event.name) {
        return;
    }
    tokio::spawn(async move {
        host.dispatch_background(&event).await;
    });
}

async fn events(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let event = match std::str::from_utf8(&body).map_err(|_| "the event is not UTF-8".to_string()).and_then(|t| HookEvent::from_json(t).map_err(|e| e.to_string())) {
        Ok(e) => e,
        Err(e) => {
            app.count("/v1/events", StatusCode::BAD_REQUEST);
            return json_error(StatusCode::BAD_REQUEST, &e);
        }
    };
    let host = app.host();
    let outcome = host.dispatch(&event).await;
    app.metrics.lock().unwrap_or_else(|p| p.into_inner()).record(&outcome);
    app.count("/v1/events", StatusCode::OK);
    background(host, event);
    (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], serde_json::to_string(&outcome).unwrap_or_default()).into_response()
}

/// A runtime's own HTTP hook: its request body is the event as it sends it to a command hook,
/// the response body what that command would print. hookhost's own failures are a non-2xx
/// status: every runtime reads that as a non-blocking error.
async fn runtime_hook(State(app): State<Arc<App>>, UrlPath(name): UrlPath<String>, body: Bytes) -> Response {
    let route = format!("/v1/hooks/{name}");
    let Some(protocol) = Protocol::parse(&name).filter(|p| *p != Protocol::Json) else {
        app.count("/v1/hooks/unknown", StatusCode::NOT_FOUND);
        return json_error(StatusCode::NOT_FOUND, &format!("no protocol {name:?}; use one of claude-code, codex, gemini-cli, docker-agent, starchild (or POST /v1/events)"));
    };
    let event = match std::str::from_utf8(&body).map_err(|_| "the event is not UTF-8".to_string()).and_then(|t| HookEvent::from_json(t).map_err(|e| e.to_string())) {
        Ok(e) => e,
        Err(e) => {
            app.count(&route, StatusCode::BAD_REQUEST);
            return json_error(StatusCode::BAD_REQUEST, &e);
        }
    };
    let host = app.host();
    let outcome = host.dispatch(&event).await;
    app.metrics.lock().unwrap_or_else(|p| p.into_inner()).record(&outcome);
    let reply = hookhost::protocol::render(protocol, &event, &outcome);
    for note in &reply.notes {
        tracing::warn!("{note}");
    }
    app.count(&route, StatusCode::OK);
    background(host, event);
    let body = if reply.stdout.is_empty() { "{}".to_string() } else { reply.stdout };
    (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn metrics(State(app): State<Arc<App>>) -> Response {
    app.count("/metrics", StatusCode::OK);
    let text = app.metrics.lock().unwrap_or_else(|p| p.into_inner()).render();
    (StatusCode::OK, [(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

async fn healthz() -> &'static str {
    "ok\n"
}

/// Every request: the bearer token (but on `/healthz`), and its time limit, body included.
async fn guard(State(app): State<Arc<App>>, headers: HeaderMap, request: Request, next: Next) -> Response {
    if let Some(token) = &app.token {
        let given = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
        if given != Some(token.as_str()) && request.uri().path() != "/healthz" {
            app.count("unauthorized", StatusCode::UNAUTHORIZED);
            return json_error(StatusCode::UNAUTHORIZED, "missing or wrong bearer token (Authorization: Bearer TOKEN; see --token-file)");
        }
    }
    match tokio::time::timeout(app.request_timeout, next.run(request)).await {
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
        .route("/metrics", get(metrics))
        .route("/healthz", get(healthz))
        .layer(axum::middleware::from_fn_with_state(app.clone(), guard))
        .layer(DefaultBodyLimit::max(args.max_body))
        .layer(tower::limit::ConcurrencyLimitLayer::new(args.max_concurrent.max(1)))
        .with_state(app)
}

/// Where to listen, checked: loopback unless the address says otherwise, which is logged.
enum Listen {
    Tcp(std::net::SocketAddr),
    Unix(PathBuf),
}

fn listen_at(text: &str) -> anyhow::Result<Listen> {
    if let Some(path) = text.strip_prefix("unix:") {
        return Ok(Listen::Unix(PathBuf::from(path)));
    }
    let addr: std::net::SocketAddr = text.parse().map_err(|_| crate::usage(format!("--listen: {text:?} is not HOST:PORT or unix:PATH (e.g. 127.0.0.1:{DEFAULT_PORT})")))?;
    if !addr.ip().is_loopback() {
        tracing::warn!("listening on {addr}, which is not a loopback address: anyone who can reach it can run events through your hooks (use --token-file)");
    }
    Ok(Listen::Tcp(addr))
}

/// The config file's modification time, to notice it change.
/// What the config file holds, to notice a change: its contents' digest. (Its mtime is not
/// enough: the kernel's coarse clock can give a truncation and the write that follows it the same
/// time, and a daemon that reloaded between them would keep the empty file.)
fn config_stamp(args: &HostArgs) -> Option<String> {
    // Every layer's file (the managed, the user's, the project's) and the project approvals.
    let mut files = vec![hookhost::types::paths::managed_config().0];
    files.extend(args.config.clone().or_else(hookhost::types::paths::user_config));
    if !args.no_project {
        let peers: Vec<String> = hookhost::config::policy::PROJECT_PEER_FILES.iter().map(|(n, _)| n.to_string()).collect();
        if let Some(p) = std::env::current_dir().ok().and_then(|cwd| hookhost::config::project::find(&cwd, &peers)) {
            files.extend(p.layer_files().into_iter().map(std::path::Path::to_path_buf));
        }
        files.extend(hookhost::config::project::approvals_file());
    }
    let mut stamp = String::new();
    for path in files {
        let Ok(meta) = std::fs::metadata(&path) else {
            stamp.push_str("-;");
            continue;
        };
        // Larger than any config `read` accepts: its load fails and says so; the length tells changes apart.
        if meta.len() > 16 << 20 {
            stamp.push_str(&format!("{}:{:?};", meta.len(), meta.modified().ok()));
            continue;
        }
        let digest = std::fs::read(&path).ok().map(|bytes| hookhost::types::ids::sha256_hex(&bytes)).unwrap_or_default();
        stamp.push_str(&digest);
        stamp.push(';');
    }
    Some(stamp)
}

/// A changed config, once it has stopped changing: a writer that truncates and then writes (not
/// an atomic rename) is given time to finish, so a half-written file is not what gets loaded.
async fn settled_stamp(args: &HostArgs) -> Option<String> {
    let mut stamp = config_stamp(args);
    for _ in 0..10 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let again = config_stamp(args);
        if again == stamp {
            break;
        }
        stamp = again;
    }
    stamp
}

/// Load the config anew; swap it in only when it loads whole.
async fn reload(app: &App, args: &HostArgs, why: &str) {
    match crate::load(args).await {
        Ok(host) => {
            *app.host.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(host);
            app.metrics.lock().unwrap_or_else(|p| p.into_inner()).reloads.entry("ok").and_modify(|n| *n += 1).or_insert(1);
            tracing::info!("config reloaded ({why})");
            eprintln!("hookhost serve: config reloaded ({why})");
        }
        Err(e) => {
            app.metrics.lock().unwrap_or_else(|p| p.into_inner()).reloads.entry("failed").and_modify(|n| *n += 1).or_insert(1);
            eprintln!("hookhost serve: the config did not reload ({why}), the previous one keeps serving: {e:#}");
        }
    }
}

pub(crate) async fn serve(args: ServeArgs) -> anyhow::Result<std::process::ExitCode> {
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    use tokio::signal::unix::{signal, SignalKind};

    let listen = listen_at(&args.listen)?;
    let token = match &args.token_file {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| crate::usage(format!("--token-file: cannot read {} ({e})", path.display())))?;
            let token = text.trim().to_string();
            if token.is_empty() {
                return Err(crate::usage(format!("--token-file: {} is empty", path.display())));
            }
            Some(token)
        }
        None => None,
    };
    let host = crate::load(&args.host).await?;
    let request_timeout = Duration::from_secs(args.request_timeout.clamp(1, 3600));
    let app = Arc::new(App { host: RwLock::new(Arc::new(host)), metrics: Mutex::default(), token, request_timeout });
    let service = hyper_util::service::TowerToHyperService::new(router(app.clone(), &args));
    let mut builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
    // A client that never finishes its headers (slowloris) is dropped.
    builder.http1().timer(TokioTimer::new()).header_read_timeout(request_timeout);

    enum Listener {
        Tcp(tokio::net::TcpListener),
        Unix(tokio::net::UnixListener, PathBuf),
    }
    let listener = match &listen {
        Listen::Tcp(addr) => Listener::Tcp(tokio::net::TcpListener::bind(addr).await.map_err(|e| crate::usage(format!("--listen: cannot listen on {addr}: {e}")))?),
        Listen::Unix(path) => {
            if path.exists() {
                std::fs::remove_file(path).map_err(|e| crate::usage(format!("--listen: {} exists and cannot be replaced: {e}", path.display())))?;
            }
            let l = tokio::net::UnixListener::bind(path).map_err(|e| crate::usage(format!("--listen: cannot listen on {}: {e}", path.display())))?;
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
            Listener::Unix(l, path.clone())
        }
    };
    let shown = match &listener {
        Listener::Tcp(l) => format!("http://{}", l.local_addr()?),
        Listener::Unix(_, p) => format!("unix:{}", p.display()),
    };
    eprintln!("hookhost serve: listening on {shown}");

    let mut hangup = signal(SignalKind::hangup())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut stamp = config_stamp(&args.host);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    loop {
        let io = tokio::select! {
            conn = async {
                match &listener {
                    Listener::Tcp(l) => l.accept().await.map(|(s, _)| {
                        // Answers are one write each: send them at once, never held for an ACK.
                        let _ = s.set_nodelay(true);
                        Box::new(TokioIo::new(s)) as Box<dyn Io>
                    }),
                    Listener::Unix(l, _) => l.accept().await.map(|(s, _)| Box::new(TokioIo::new(s)) as Box<dyn Io>),
                }
            } => match conn {
                Ok(io) => io,
                Err(e) => {
                    tracing::warn!("accept failed: {e}");
                    continue;
                }
            },
            _ = hangup.recv() => {
                reload(&app, &args.host, "SIGHUP").await;
                stamp = config_stamp(&args.host);
                continue;
            }
            _ = tick.tick() => {
                if config_stamp(&args.host) != stamp {
                    stamp = settled_stamp(&args.host).await;
                    reload(&app, &args.host, "the config file changed").await;
                }
                continue;
            }
            _ = terminate.recv() => break,
            _ = interrupt.recv() => break,
        };
        let conn = builder.serve_connection(io, service.clone()).into_owned();
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
        });
    }
    eprintln!("hookhost serve: shutting down, letting requests in flight finish");
    let started = Instant::now();
    if tokio::time::timeout(request_timeout, graceful.shutdown()).await.is_err() {
        eprintln!("hookhost serve: requests still running after {:?} were dropped", started.elapsed());
    }
    if let Listener::Unix(_, path) = &listener {
        let _ = std::fs::remove_file(path);
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// A connection's byte stream, TCP or unix.
trait Io: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static {}
impl<T: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static> Io for T {}
