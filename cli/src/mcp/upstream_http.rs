//! `hookhost mcp proxy --url URL`: the MCP server reached over streamable HTTP (specification
//! 2025-11-25, "Transports" → "Streamable HTTP") instead of started on stdio. The proxy's client
//! side is unchanged (stdio, a message a line); each message the client sends is POSTed on its
//! own, and what the server answers — one JSON message, or an event stream of messages ending
//! with the response — comes back as lines, through the same checks.
//!
//! The session the server gives (`Mcp-Session-Id`) and the revision the handshake settled
//! (`MCP-Protocol-Version`) go with every later request; after the handshake a GET opens the
//! server's own stream (its requests and notifications) where it offers one; when the client
//! goes, the session is ended with a DELETE. A request the server cannot be asked (unreachable,
//! an HTTP error, a stream that ends before its answer) is answered to the client with a
//! JSON-RPC error, so no call waits forever. Not done: resuming a broken stream (`Last-Event-ID`).

use super::rpc::{self, Message};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// JSON-RPC's "internal error": the server could not be asked.
const UNREACHABLE: i64 = -32603;

/// Where the server is, and what the session has settled.
struct Upstream {
    http: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    /// The most a message from the server may be.
    max: usize,
    session: Mutex<Option<HeaderValue>>,
    version: Mutex<Option<HeaderValue>>,
}

/// The server's URL and `--header NAME: VALUE`s, checked before anything starts.
pub(super) fn parse(url: &str, headers: &[String], from_env: &[String], env: &dyn Fn(&str) -> Option<String>) -> Result<(reqwest::Url, HeaderMap), String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("--url {url:?}: {e}"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("--url {url:?}: an MCP server over streamable HTTP has an http:// or https:// URL"));
    }
    let mut map = HeaderMap::new();
    for h in headers {
        let (name, value) = h.split_once(':').ok_or_else(|| format!("--header {h:?}: write it as `Name: value`"))?;
        let name = HeaderName::from_bytes(name.trim().as_bytes()).map_err(|e| format!("--header {h:?}: {e}"))?;
        let value = HeaderValue::from_str(value.trim()).map_err(|e| format!("--header {h:?}: {e}"))?;
        map.append(name, value);
    }
    // The value named by a variable: never echoed in an error (it is a secret's place).
    for h in from_env {
        let (name, var) = h.split_once('=').ok_or_else(|| format!("--header-env {h:?}: write it as `Name=VARIABLE`"))?;
        let name = HeaderName::from_bytes(name.trim().as_bytes()).map_err(|e| format!("--header-env {h:?}: {e}"))?;
        let var = var.trim();
        let value = env(var).filter(|v| !v.is_empty()).ok_or_else(|| format!("--header-env {h:?}: {var} is not set in hookhost mcp proxy's environment; set it in the MCP server entry's `env` (or the environment the client starts from)"))?;
        let value = HeaderValue::from_str(value.trim()).map_err(|_| format!("--header-env {h:?}: {var} holds what cannot be a header value (a line break or a control character)"))?;
        map.append(name, value);
    }
    Ok((parsed, map))
}

/// Send each line of `outgoing` to the server at `url`, and every message it sends back to
/// `incoming`, until the client is gone (then the session ends and `incoming` closes).
pub(super) async fn run(url: reqwest::Url, headers: HeaderMap, max: usize, mut outgoing: mpsc::Receiver<Vec<u8>>, incoming: mpsc::Sender<Vec<u8>>) {
    // TLS for an https:// server: the ring provider, as the registry client uses.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = match reqwest::Client::builder().connect_timeout(Duration::from_secs(10)).build() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("hookhost mcp proxy: cannot make an HTTP client: {e}");
            return;
        }
    };
    let up = Arc::new(Upstream { http, url, headers, max, session: Mutex::default(), version: Mutex::default() });
    let mut posts = tokio::task::JoinSet::new();
    let mut stream = None;
    while let Some(message) = outgoing.recv().await {
        if rpc::names_method(&message, "initialize") {
            // The handshake first, alone: its answer names the session every later request carries.
            up.post(message, &incoming).await;
            if stream.is_none() {
                let (up, incoming) = (up.clone(), incoming.clone());
                stream = Some(tokio::spawn(async move { up.listen(&incoming).await }));
            }
        } else {
            let (up, incoming) = (up.clone(), incoming.clone());
            posts.spawn(async move { up.post(message, &incoming).await });
        }
    }
    // The client is gone: answers in flight are let finish (there is no one to read them, but
    // the server completes its work), then the session ends.
    while posts.join_next().await.is_some() {}
    if let Some(stream) = stream {
        stream.abort();
    }
    let session = up.session.lock().unwrap_or_else(|p| p.into_inner()).clone();
    if let Some(session) = session {
        let _ = up.http.delete(up.url.clone()).headers(up.headers.clone()).header("mcp-session-id", session).timeout(Duration::from_secs(5)).send().await;
    }
}

impl Upstream {
    fn request(&self, method: reqwest::Method) -> reqwest::RequestBuilder {
        let mut r = self.http.request(method, self.url.clone()).headers(self.headers.clone());
        if let Some(s) = self.session.lock().unwrap_or_else(|p| p.into_inner()).clone() {
            r = r.header("mcp-session-id", s);
        }
        if let Some(v) = self.version.lock().unwrap_or_else(|p| p.into_inner()).clone() {
            r = r.header("mcp-protocol-version", v);
        }
        r
    }

    /// POST one message; pass on what the server sends back.
    async fn post(&self, message: Vec<u8>, incoming: &mpsc::Sender<Vec<u8>>) {
        let id = match rpc::parse(&message) {
            Message::Request { id, .. } => Some(id),
            _ => None,
        };
        let fail = |why: String| fail(id.clone(), why, incoming);
        let sent = self.request(reqwest::Method::POST).header(CONTENT_TYPE, "application/json").header(ACCEPT, "application/json, text/event-stream").body(message).send().await;
        let response = match sent {
            Ok(r) => r,
            Err(e) => return fail(format!("the MCP server at {} cannot be reached: {e}", self.url)).await,
        };
        if let Some(session) = response.headers().get("mcp-session-id") {
            *self.session.lock().unwrap_or_else(|p| p.into_inner()) = Some(session.clone());
        }
        let status = response.status();
        if status == reqwest::StatusCode::ACCEPTED {
            return;
        }
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            let body: String = body.chars().take(500).collect();
            return fail(format!("the MCP server at {} answered HTTP {status}: {}", self.url, body.trim())).await;
        }
        let answered = if is_event_stream(&response) {
            self.events(response, incoming, id.as_ref()).await
        } else {
            match read_capped(response, self.max).await {
                Ok(body) => {
                    let mut answered = false;
                    for m in split(&body) {
                        answered |= self.pass_on(m, incoming, id.as_ref()).await;
                    }
                    answered
                }
                Err(why) => return fail(format!("the MCP server at {}: {why}", self.url)).await,
            }
        };
        if !answered && id.is_some() {
            fail(format!("the MCP server at {} ended its answer without a response to this request", self.url)).await;
        }
    }

    /// The server's own stream (GET), where it offers one: its requests and notifications.
    async fn listen(&self, incoming: &mpsc::Sender<Vec<u8>>) {
        let Ok(response) = self.request(reqwest::Method::GET).header(ACCEPT, "text/event-stream").send().await else { return };
        // 405: the server sends nothing of its own outside an answer.
        if response.status().is_success() && is_event_stream(&response) {
            self.events(response, incoming, None).await;
        }
    }

    /// An event stream's messages, each passed on; whether the response to `id` was among them.
    async fn events(&self, mut response: reqwest::Response, incoming: &mpsc::Sender<Vec<u8>>, id: Option<&Value>) -> bool {
        let mut answered = false;
        let mut buffer: Vec<u8> = Vec::new();
        let mut data: Vec<u8> = Vec::new();
        while let Ok(Some(chunk)) = response.chunk().await {
            buffer.extend_from_slice(&chunk);
            while let Some(end) = buffer.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = buffer.drain(..=end).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                if line.is_empty() {
                    // An event's end: its data is one message.
                    if !data.is_empty() {
                        answered |= self.pass_on(std::mem::take(&mut data), incoming, id).await;
                    }
                } else if let Some(value) = line.strip_prefix(b"data:") {
                    if !data.is_empty() {
                        data.push(b'\n');
                    }
                    data.extend_from_slice(value.strip_prefix(b" ").unwrap_or(value));
                }
                // `event:`, `id:`, `retry:` and comments (`:`) carry nothing the proxy uses.
            }
            if buffer.len() + data.len() > self.max {
                eprintln!("hookhost mcp proxy: the server's event at {} is over the {}-byte limit: the stream is dropped", self.url, self.max);
                return answered;
            }
        }
        if !data.is_empty() {
            answered |= self.pass_on(data, incoming, id).await;
        }
        answered
    }

    /// One message from the server to the client; whether it answers `id`. The handshake's
    /// answer settles the revision later requests name.
    async fn pass_on(&self, message: Vec<u8>, incoming: &mpsc::Sender<Vec<u8>>, id: Option<&Value>) -> bool {
        let Ok(value) = serde_json::from_slice::<Value>(&message) else {
            eprintln!("hookhost mcp proxy: the server at {} sent something that is not JSON: dropped", self.url);
            return false;
        };
        if let Some(v) = value.pointer("/result/protocolVersion").and_then(Value::as_str).filter(|_| value.pointer("/result/serverInfo").is_some()) {
            if let Ok(v) = HeaderValue::from_str(v) {
                *self.version.lock().unwrap_or_else(|p| p.into_inner()) = Some(v);
            }
        }
        let answers = id.is_some_and(|id| value.get("id") == Some(id) && value.get("method").is_none());
        let _ = incoming.send(message).await;
        answers
    }
}

/// The server could not answer: the client's request gets an error (a notification's failure
/// is only said).
async fn fail(id: Option<Value>, why: String, incoming: &mpsc::Sender<Vec<u8>>) {
    match id {
        Some(id) => {
            let _ = incoming.send(rpc::error(&id, UNREACHABLE, &why).into_bytes()).await;
        }
        None => eprintln!("hookhost mcp proxy: {why}"),
    }
}

fn is_event_stream(response: &reqwest::Response) -> bool {
    response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/event-stream"))
}

/// A body read whole, up to `max` bytes.
async fn read_capped(mut response: reqwest::Response, max: usize) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| format!("its answer broke off: {e}"))? {
        body.extend_from_slice(&chunk);
        if body.len() > max {
            return Err(format!("its answer is over the {max}-byte limit"));
        }
    }
    Ok(body)
}

/// A JSON body's messages: one, or each of a batch.
fn split(body: &[u8]) -> Vec<Vec<u8>> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Array(items)) => items.into_iter().map(|m| m.to_string().into_bytes()).collect(),
        _ if body.iter().all(u8::is_ascii_whitespace) => Vec::new(),
        _ => vec![body.to_vec()],
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn a_header_can_come_from_a_variable_and_its_value_is_never_echoed() {
        let env = |var: &str| match var {
            "DOCS_AUTH" => Some("Bearer s3cret".to_string()),
            "EMPTY" => Some(String::new()),
            "BROKEN" => Some("Bearer a\nb".to_string()),
            _ => None,
        };
        let (_, map) = parse("https://mcp.example.com/mcp", &["X-Team: blue".into()], &["Authorization=DOCS_AUTH".into()], &env).unwrap();
        assert_eq!(map["authorization"], "Bearer s3cret");
        assert_eq!(map["x-team"], "blue");
        let err = |from_env: &str| parse("https://mcp.example.com/mcp", &[], &[from_env.into()], &env).unwrap_err();
        assert_eq!(err("Authorization=UNSET"), "--header-env \"Authorization=UNSET\": UNSET is not set in hookhost mcp proxy's environment; set it in the MCP server entry's `env` (or the environment the client starts from)");
        assert!(err("Authorization=EMPTY").contains("EMPTY is not set"), "an empty variable sends no empty credential");
        let broken = err("Authorization=BROKEN");
        assert!(broken.contains("BROKEN holds what cannot be a header value") && !broken.contains("s3cret") && !broken.contains("Bearer a"), "{broken}");
        assert_eq!(err("Authorization"), "--header-env \"Authorization\": write it as `Name=VARIABLE`");
    }
}
