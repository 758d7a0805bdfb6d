//! The daemon's routes: events in hookhost's envelope, a runtime's own hook payloads, metrics
//! and health.

use super::*;

pub(super) fn json_error(status: StatusCode, message: &str) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], serde_json::json!({ "error": message }).to_string()).into_response()
}

/// Run the event's background hooks once the response is on its way (no task at all when the
/// event has none: most requests).
pub(crate) fn background(host: Arc<Host>, event: HookEvent) {
    if !host.has_background(&event.name) {
        return;
    }
    tokio::spawn(async move {
        host.dispatch_background(&event).await;
    });
}

/// Read a request's event (any bytes: [`HookEvent::read`]), or why not — with what was read of
/// it, when that much was (an event nested too deep is still answered in its own form).
pub(super) fn read_event(body: &Bytes, runtime: Option<Runtime>, event_name: Option<&str>) -> Result<HookEvent, (Option<HookEvent>, String)> {
    HookEvent::read(body, runtime, event_name).map_err(|e| (e.event.map(|e| *e), e.error.to_string()))
}

/// The 400 for a request whose event cannot be answered at all.
pub(super) fn unreadable(app: &App, route: &str, why: &str) -> Response {
    app.count(route, StatusCode::BAD_REQUEST);
    json_error(StatusCode::BAD_REQUEST, why)
}

/// What running `event` came to: its outcome, or — when the chain did not finish within the
/// request's time — `Err` with the reason (the caller answers an event that can block with a
/// block, never a pass).
pub(crate) async fn decide(app: &App, event: &HookEvent) -> (Arc<Host>, Result<Outcome, String>) {
    let host = match app.host_for(event).await {
        Ok(h) => h,
        // The project's chain cannot load (its layers, or the user's after a bad edit that a
        // reload refused): the daemon's own chain decides — the managed and user hooks it
        // loaded — never a 500, which every runtime reads as "go ahead".
        Err(e) => {
            tracing::warn!("the hooks of {}'s project did not load ({e:#}); the daemon's own chain decides this event", event.cwd.as_deref().unwrap_or("?"));
            app.host()
        }
    };
    match tokio::time::timeout(app.request_timeout, host.dispatch(event)).await {
        Ok(mut outcome) => {
            app.metrics.lock().unwrap_or_else(|p| p.into_inner()).record(&outcome);
            // A user config left out because it does not load: said with every answer.
            if let Some(note) = host.user_note() {
                outcome.effects.push(hookhost::Effect::NotifyUser { text: format!("hookhost: {note}") });
            }
            (host, Ok(outcome))
        }
        Err(_) => {
            app.count("timeout", StatusCode::REQUEST_TIMEOUT);
            (host, Err(format!("the hooks did not decide within {} s (--request-timeout)", app.request_timeout.as_secs())))
        }
    }
}

pub(super) async fn events(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let route = "/v1/events";
    let event = match read_event(&body, None, None) {
        Ok(e) => e,
        // Read in part (nested too deep): an event that gates an action is blocked.
        Err((Some(event), why)) if event.name.gates_an_action() => {
            app.count(route, StatusCode::OK);
            let outcome = Outcome::block(hookhost::protocol::failure_reason(&why));
            return (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], serde_json::to_string(&outcome).unwrap_or_default()).into_response();
        }
        Err((_, why)) => return unreadable(&app, route, &why),
    };
    let (host, outcome) = decide(&app, &event).await;
    let outcome = match outcome {
        Ok(o) => o,
        Err(why) if event.name.can_block() => Outcome::block(why),
        Err(why) => return json_error(StatusCode::REQUEST_TIMEOUT, &why),
    };
    app.count(route, StatusCode::OK);
    background(host, event);
    (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], serde_json::to_string(&outcome).unwrap_or_default()).into_response()
}

/// A runtime's own HTTP hook: its request body is the event as it sends it to a command hook,
/// the response body what that command would print. hookhost's own failures are a non-2xx
/// status: every runtime reads that as a non-blocking error — but a chain that ran out of time
/// on an event that can block is answered with the runtime's block.
pub(super) async fn runtime_hook(State(app): State<Arc<App>>, UrlPath(name): UrlPath<String>, body: Bytes) -> Response {
    answer_runtime(app, name, None, body).await
}

/// `/v1/hooks/{runtime}/{event}`: the same, for a runtime whose payloads name no event (GitHub
/// Copilot CLI: the path names it, as `hookhost run --event-name` does).
pub(super) async fn runtime_hook_named(State(app): State<Arc<App>>, UrlPath((name, event)): UrlPath<(String, String)>, body: Bytes) -> Response {
    answer_runtime(app, name, Some(event), body).await
}

pub(super) async fn answer_runtime(app: Arc<App>, name: String, event_name: Option<String>, body: Bytes) -> Response {
    let route = format!("/v1/hooks/{name}");
    let Some((protocol, runtime)) = runtime_protocol(&name) else {
        app.count("/v1/hooks/unknown", StatusCode::NOT_FOUND);
        let names: Vec<&str> = Protocol::all().filter(|p| *p != Protocol::Json).map(Protocol::name).collect();
        return json_error(StatusCode::NOT_FOUND, &format!("no protocol {name:?}; use one of {} (or POST /v1/events)", names.join(", ")));
    };
    match answer_in(&app, protocol, runtime, event_name.as_deref(), &body).await {
        Ok(body) => {
            app.count(&route, StatusCode::OK);
            (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], body).into_response()
        }
        Err(Unanswered::Unreadable(why)) => unreadable(&app, &route, &why),
        Err(Unanswered::Late(why)) => json_error(StatusCode::REQUEST_TIMEOUT, &why),
    }
}

/// A runtime's protocol by its name (`claude-code`), with the runtime.
pub(crate) fn runtime_protocol(name: &str) -> Option<(Protocol, Runtime)> {
    Protocol::parse(name).and_then(|p| match p {
        Protocol::Runtime(runtime) => Some((p, runtime)),
        Protocol::Json => None,
    })
}

/// Why a runtime's event got no answer of its own: hookhost's failure, which the runtime reads
/// as its non-blocking error (an event that can block is answered with a block instead, and
/// never comes to this).
pub(crate) enum Unanswered {
    /// The event could not be read.
    Unreadable(String),
    /// The chain did not finish in time.
    Late(String),
}

/// A runtime's own hook payload in, the answer its command hook would print out (`{}` for
/// nothing to say): what the http route and `hookhost mcp` answer. The event's background
/// hooks start once the answer is decided.
pub(crate) async fn answer_in(app: &App, protocol: Protocol, runtime: Runtime, event_name: Option<&str>, body: &[u8]) -> Result<String, Unanswered> {
    let event = match HookEvent::read(body, Some(runtime), event_name) {
        Ok(e) => e,
        // Read in part (nested too deep): the event's own block where it gates an action.
        Err(e) => match e.event.map(|e| *e) {
            Some(event) if event.name.gates_an_action() => {
                let reply = hookhost::protocol::failure(protocol, Some(&event), &e.error.to_string(), OnFailure::Closed);
                return Ok(reply.stdout);
            }
            _ => return Err(Unanswered::Unreadable(e.error.to_string())),
        },
    };
    let (host, outcome) = decide(app, &event).await;
    let reply = match outcome {
        Ok(outcome) => hookhost::protocol::render(protocol, &event, &outcome),
        Err(why) if event.name.can_block() => hookhost::protocol::failure(protocol, Some(&event), &why, OnFailure::Always),
        Err(why) => return Err(Unanswered::Late(why)),
    };
    for note in &reply.notes {
        tracing::warn!("{note}");
    }
    background(host, event);
    Ok(if reply.stdout.is_empty() { "{}".to_string() } else { reply.stdout })
}

pub(super) async fn metrics(State(app): State<Arc<App>>) -> Response {
    app.count("/metrics", StatusCode::OK);
    let text = app.metrics.lock().unwrap_or_else(|p| p.into_inner()).render();
    (StatusCode::OK, [(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

pub(super) async fn healthz() -> &'static str {
    "ok\n"
}
