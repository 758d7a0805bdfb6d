//! `hookhost mcp proxy [--name N] -- SERVER-COMMAND...` (or `--name N --url URL`): hookhost
//! between any MCP client and an MCP server, on stdio or over streamable HTTP
//! ([`super::upstream_http`]), so one policy covers MCP tools in every client — those with no
//! hooks at all included.
//!
//! The client starts the proxy where it would start the server; the proxy starts the server (or
//! reaches it at its URL) and passes every message both ways as it came (a line each, untouched: version
//! negotiation, notifications, progress, cancellation, resources, prompts, sampling and
//! whatever a later MCP revision adds), but for these:
//! - a `tools/call` is first a `pre_tool_use` event of tool `mcp__NAME__TOOL` (the runtimes'
//!   name for an MCP tool) with the call's arguments: a block (or ask, or halt: MCP has no way
//!   to ask) answers the client with a tool error naming the reason, which the client shows the
//!   model, and the call never reaches the server; a rewrite changes the arguments sent;
//! - the server's answer to a call is a `post_tool_use` event with the result: a block withholds
//!   it (a tool error in its place), a rewrite (redaction) replaces it;
//! - with `--filter-tools`, `tools/list` leaves out each tool a call of which with no
//!   arguments the hooks block (a policy that blocks the tool whatever its arguments).
//!
//! hookhost's own failure (a config that does not load, a chain out of time) blocks a call,
//! and lets a result through (`--fail-closed`: withholds it too; `--fail-open`: lets calls
//! through as well). The MCP specification, revision 2025-11-25: "Tools" (`tools/call`,
//! `CallToolResult`, `isError` for errors the model should see).

use super::chain::Chain;
use super::rpc::{self, Line, Message};
use super::upstream_http;
use crate::serve::{background, decide, Signals};
use crate::HostArgs;
use anyhow::Result;
use hookhost::protocol::OnFailure;
use hookhost::{EventName, HookEvent, Outcome, VerdictKind};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::process::{ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

#[derive(clap::Args)]
pub(crate) struct ProxyArgs {
    #[command(flatten)]
    pub host: HostArgs,
    /// The server's name as the client's MCP settings call it: its tools reach the hooks as
    /// `mcp__NAME__TOOL`, the runtimes' name for them. Default: the server command's file name
    /// (with --url, required).
    #[arg(long)]
    pub name: Option<String>,
    /// The MCP server over streamable HTTP, at this URL, instead of a command to start.
    #[arg(long, value_name = "URL", conflicts_with = "server")]
    pub url: Option<String>,
    /// A header every request to --url carries (`Authorization: Bearer …`); repeatable.
    #[arg(long = "header", value_name = "NAME: VALUE", requires = "url")]
    pub headers: Vec<String>,
    /// A header every request to --url carries whose value is the environment variable VAR
    /// (`Authorization=DOCS_AUTH`, with DOCS_AUTH="Bearer …" in the MCP server entry's `env`);
    /// repeatable. A secret given so is not on the proxy's command line, which any local user
    /// can read.
    #[arg(long = "header-env", value_name = "NAME=VAR", requires = "url")]
    pub header_env: Vec<String>,
    /// Leave out of `tools/list` each tool the hooks block whatever its arguments (a call of it
    /// with no arguments is blocked).
    #[arg(long)]
    pub filter_tools: bool,
    /// Seconds the hooks may take on one call or result.
    #[arg(long, default_value_t = 30)]
    pub request_timeout: u64,
    /// hookhost's own failure also withholds a tool's result.
    #[arg(long, conflicts_with = "fail_open")]
    pub fail_closed: bool,
    /// hookhost's own failure lets a call through unchecked.
    #[arg(long)]
    pub fail_open: bool,
    /// The MCP server to start, and its arguments.
    #[arg(last = true, required_unless_present = "url", value_name = "SERVER-COMMAND")]
    pub server: Vec<String>,
}

/// The longest message either side may send (a tool's result can be a large file).
const MAX_LINE: usize = 64 << 20;

/// A client request the proxy waits to see answered.
enum Pending {
    /// A `tools/call`: the tool's name for the hooks, and the arguments sent.
    Call { tool: String, arguments: Value },
    /// A `tools/list` whose answer is filtered.
    List,
}

struct Proxy {
    chain: Arc<tokio::sync::OnceCell<Chain>>,
    host: HostArgs,
    request_timeout: Duration,
    name: String,
    session: String,
    cwd: Option<String>,
    on_failure: OnFailure,
    filter_tools: bool,
    pending: Mutex<HashMap<String, Pending>>,
}

pub(crate) async fn proxy(args: ProxyArgs) -> Result<ExitCode> {
    let name = match (&args.name, args.server.first()) {
        (Some(n), _) => n.clone(),
        (None, Some(program)) => std::path::Path::new(program).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
        (None, None) => return Err(crate::usage("--url needs --name: the server's name as the client's MCP settings call it (its tools reach the hooks as mcp__NAME__TOOL)")),
    };
    if name.is_empty() || name.contains("__") {
        return Err(crate::usage(format!("--name {name:?}: give the server's name as the client's MCP settings call it (no `__`)")));
    }
    let request_timeout = Duration::from_secs(args.request_timeout.clamp(1, 3600));
    let upstream = match &args.url {
        Some(url) => Upstream::Http(upstream_http::parse(url, &args.headers, &args.header_env, &|var| std::env::var(var).ok()).map_err(crate::usage)?),
        None => Upstream::Process(
            tokio::process::Command::new(&args.server[0])
                .args(&args.server[1..])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .kill_on_drop(true)
                .spawn()
                .map_err(|e| crate::usage(format!("cannot start the MCP server `{}`: {e}", args.server.join(" "))))?,
        ),
    };
    // The chain loads while the server starts and the client's handshake passes: only a
    // tool call waits for it.
    let chain = Arc::new(tokio::sync::OnceCell::new());
    {
        let (chain, host) = (chain.clone(), args.host.clone());
        tokio::spawn(async move {
            chain.get_or_init(|| Chain::start(&host, request_timeout)).await;
        });
    }
    let proxy = Arc::new(Proxy {
        chain,
        host: args.host.clone(),
        request_timeout,
        name,
        session: format!("mcp-proxy-{}-{}", std::process::id(), hookhost::types::time::now_rfc3339()),
        cwd: std::env::current_dir().ok().map(|d| d.display().to_string()),
        on_failure: OnFailure::from_flags(args.fail_open, args.fail_closed),
        filter_tools: args.filter_tools,
        pending: Mutex::default(),
    });

    let (to_client, client_out) = mpsc::channel::<Vec<u8>>(256);
    let (to_server, server_in) = mpsc::channel::<Vec<u8>>(256);
    let (server_lines, mut from_server_lines) = mpsc::channel::<Vec<u8>>(256);
    let client_writer = tokio::spawn(write_lines(tokio::io::stdout(), client_out));
    // The server's side: its stdin and stdout, or its URL.
    let (server_writer, mut child) = match upstream {
        Upstream::Process(mut child) => {
            let writer = tokio::spawn(write_lines(child.stdin.take().expect("piped"), server_in));
            let stdout = child.stdout.take().expect("piped");
            tokio::spawn(async move {
                let mut input = tokio::io::BufReader::new(stdout);
                loop {
                    match rpc::read_line(&mut input, MAX_LINE).await {
                        Ok(Line::Text(text)) => {
                            if server_lines.send(text).await.is_err() {
                                return;
                            }
                        }
                        Ok(Line::TooLong(n)) => eprintln!("hookhost mcp proxy: the server sent a message of {n} bytes, over the {MAX_LINE}-byte limit: dropped"),
                        Ok(Line::End) | Err(_) => return,
                    }
                }
            });
            (writer, Some(child))
        }
        Upstream::Http((url, headers)) => (tokio::spawn(upstream_http::run(url, headers, MAX_LINE, server_in, server_lines)), None),
    };

    // The client's messages, to the server (or answered here).
    let from_client = {
        let (proxy, to_client) = (proxy.clone(), to_client.clone());
        tokio::spawn(async move {
            let mut input = tokio::io::BufReader::new(tokio::io::stdin());
            loop {
                match rpc::read_line(&mut input, MAX_LINE).await {
                    Ok(Line::Text(text)) => proxy.from_client(text, &to_client, &to_server).await,
                    Ok(Line::TooLong(n)) => {
                        let _ = to_client.send(rpc::error(&Value::Null, rpc::INVALID_REQUEST, &format!("a message of {n} bytes is over the proxy's {MAX_LINE}-byte limit")).into_bytes()).await;
                    }
                    // The client is gone: the server's stdin closes when `to_server` drops.
                    Ok(Line::End) | Err(_) => return,
                }
            }
        })
    };
    // The server's messages, to the client; their end (the server exited, or the HTTP session
    // ended) is the proxy's.
    let mut from_server = {
        let proxy = proxy.clone();
        tokio::spawn(async move {
            while let Some(text) = from_server_lines.recv().await {
                proxy.from_server(text, &to_client).await;
            }
        })
    };

    let mut signals = Signals::new()?;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            // The server's output ended: it exited (or closed it), so the session is over.
            _ = &mut from_server => break,
            signal = signals.next() => if proxy.chain().await.on(signal).await { break },
            _ = tick.tick() => if let Some(chain) = proxy.chain.get() { chain.tick().await },
        }
    }
    from_client.abort();
    // Gone with it, the last sender to the server: an HTTP server's session is then ended (its
    // DELETE), on a signal as when the client goes.
    let _ = from_client.await;
    // What was answered reaches the client before the proxy ends.
    let _ = tokio::time::timeout(Duration::from_secs(5), client_writer).await;
    let Some(child) = child.as_mut() else {
        let _ = tokio::time::timeout(Duration::from_secs(6), server_writer).await;
        return Ok(ExitCode::SUCCESS);
    };
    server_writer.abort();
    let status = match tokio::time::timeout(Duration::from_secs(5), child.wait()).await {
        Ok(Ok(status)) => status,
        _ => {
            let _ = child.kill().await;
            return Ok(ExitCode::from(1));
        }
    };
    Ok(match status.code() {
        Some(0) | None => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
    })
}

/// The server: a process on stdio, or a URL (and the headers each request carries).
enum Upstream {
    Process(tokio::process::Child),
    Http((reqwest::Url, reqwest::header::HeaderMap)),
}

/// Write each line, and a newline, until the senders are gone.
async fn write_lines(mut out: impl tokio::io::AsyncWrite + Unpin, mut lines: mpsc::Receiver<Vec<u8>>) {
    while let Some(line) = lines.recv().await {
        if out.write_all(&line).await.is_err() || out.write_all(b"\n").await.is_err() || out.flush().await.is_err() {
            return;
        }
    }
}

/// A tool error the model sees (`CallToolResult` with `isError`).
fn tool_error(text: String) -> Value {
    json!({ "content": [{ "type": "text", "text": text }], "isError": true })
}

impl Proxy {
    /// The tool's name for the hooks.
    fn tool_name(&self, tool: &str) -> String {
        format!("mcp__{}__{tool}", self.name)
    }

    fn event(&self, name: EventName, data: Map<String, Value>) -> HookEvent {
        let mut event = HookEvent::new(name, data);
        event.session_id = self.session.clone();
        event.cwd = self.cwd.clone();
        event
    }

    /// The chain, once it has loaded (or failed to).
    async fn chain(&self) -> &Chain {
        self.chain.get_or_init(|| Chain::start(&self.host, self.request_timeout)).await
    }

    /// The chain's outcome for `event`, or why it has none.
    async fn decide(&self, event: &HookEvent) -> Result<Outcome, String> {
        let app = self.chain().await.app()?;
        let (host, outcome) = decide(&app, event).await;
        if outcome.is_ok() {
            background(host, event.clone());
        }
        outcome
    }

    async fn from_client(&self, text: Vec<u8>, to_client: &mpsc::Sender<Vec<u8>>, to_server: &mpsc::Sender<Vec<u8>>) {
        let forward = match rpc::parse(&text) {
            Message::Request { id, method, params } if method == "tools/call" => self.call(text, &id, params, to_client).await,
            Message::Request { id, method, .. } if method == "tools/list" && self.filter_tools => {
                self.pending.lock().unwrap_or_else(|p| p.into_inner()).insert(id.to_string(), Pending::List);
                Some(text)
            }
            // A tool call the proxy could not judge — in a batch, as a notification, under an
            // id that is not one — is not passed on: no call reaches the server unchecked.
            _ if rpc::names_method(&text, "tools/call") => {
                let why = "a tools/call must be a request of its own, with a string or number id: hookhost checks each one, and did not pass this on";
                let _ = to_client.send(rpc::error(&Value::Null, rpc::INVALID_REQUEST, why).into_bytes()).await;
                None
            }
            _ => Some(text),
        };
        if let Some(line) = forward {
            let _ = to_server.send(line).await;
        }
    }

    /// A `tools/call` from the client: what goes on to the server (`None`: it was answered here).
    async fn call(&self, text: Vec<u8>, id: &Value, params: Value, to_client: &mpsc::Sender<Vec<u8>>) -> Option<Vec<u8>> {
        let tool = self.tool_name(params.get("name").and_then(Value::as_str).unwrap_or_default());
        let arguments = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
        let mut data = Map::new();
        data.insert("tool_name".into(), tool.clone().into());
        data.insert("tool_call_id".into(), id.to_string().into());
        data.insert("arguments".into(), arguments.clone());
        data.insert("mcp_server".into(), self.name.clone().into());
        let event = self.event(EventName::PreToolUse, data);
        let refuse = |why: String| async move {
            let _ = to_client.send(rpc::result(id, tool_error(why)).into_bytes()).await;
            None
        };
        let mut sent = arguments;
        let mut line = text;
        match self.decide(&event).await {
            Ok(outcome) if outcome.decision >= VerdictKind::Ask => {
                let reason = outcome.reason.or(outcome.user_message).unwrap_or_else(|| "blocked by policy".into());
                let how = if outcome.decision == VerdictKind::Ask { "needs a person's approval, which an MCP call cannot ask for, so hookhost blocked it" } else { "was blocked by hookhost" };
                return refuse(format!("this call of {tool} {how}: {reason}")).await;
            }
            Ok(outcome) => {
                if let Some(arguments) = outcome.patch.as_ref().and_then(|p| p.get("arguments")) {
                    let mut message: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
                    message["params"]["arguments"] = arguments.clone();
                    line = message.to_string().into_bytes();
                    sent = arguments.clone();
                }
            }
            Err(why) if self.on_failure.blocks(Some(&EventName::PreToolUse)) => return refuse(hookhost::protocol::failure_reason(&why)).await,
            Err(why) => eprintln!("hookhost mcp proxy: error: {why} (--fail-open: the call of {tool} goes through unchecked)"),
        }
        self.pending.lock().unwrap_or_else(|p| p.into_inner()).insert(id.to_string(), Pending::Call { tool, arguments: sent });
        Some(line)
    }

    async fn from_server(&self, text: Vec<u8>, to_client: &mpsc::Sender<Vec<u8>>) {
        let pending = match rpc::parse(&text) {
            Message::Response { id } => self.pending.lock().unwrap_or_else(|p| p.into_inner()).remove(&id.to_string()),
            _ => None,
        };
        let line = match pending {
            None => text,
            Some(pending) => {
                let mut message: Value = serde_json::from_slice(&text).unwrap_or(Value::Null);
                let id = message["id"].to_string();
                let changed = match (pending, message.get_mut("result")) {
                    (Pending::Call { tool, arguments }, Some(result)) => self.result(&id, tool, arguments, result).await,
                    (Pending::List, Some(result)) => self.filter(result).await,
                    // An error answer carries no result to judge.
                    (_, None) => false,
                };
                if changed {
                    message.to_string().into_bytes()
                } else {
                    text
                }
            }
        };
        let _ = to_client.send(line).await;
    }

    /// The server's result of a call, judged: whether it was changed.
    async fn result(&self, id: &str, tool: String, arguments: Value, result: &mut Value) -> bool {
        let mut data = Map::new();
        data.insert("tool_name".into(), tool.clone().into());
        data.insert("tool_call_id".into(), id.into());
        data.insert("arguments".into(), arguments);
        data.insert("result".into(), result.clone());
        data.insert("mcp_server".into(), self.name.clone().into());
        let event = self.event(EventName::PostToolUse, data);
        match self.decide(&event).await {
            Ok(outcome) if outcome.decision >= VerdictKind::Block => {
                let reason = outcome.reason.or(outcome.user_message).unwrap_or_else(|| "withheld by policy".into());
                *result = tool_error(format!("hookhost withheld the result of {tool}: {reason}"));
                true
            }
            Ok(outcome) => match outcome.patch.as_ref().and_then(|p| p.get("result")) {
                // A result of the call's own shape, rewritten (redaction keeps the shape).
                Some(new @ Value::Object(_)) => {
                    *result = new.clone();
                    true
                }
                Some(other) => {
                    let text = if let Value::String(s) = other { s.clone() } else { other.to_string() };
                    *result = json!({ "content": [{ "type": "text", "text": text }] });
                    true
                }
                None => false,
            },
            Err(why) if self.on_failure.blocks(Some(&EventName::PostToolUse)) => {
                *result = tool_error(format!("hookhost withheld the result of {tool}: {}", hookhost::protocol::failure_reason(&why)));
                true
            }
            Err(why) => {
                eprintln!("hookhost mcp proxy: error: {why} (the result of {tool} goes through unchecked)");
                false
            }
        }
    }

    /// `tools/list`'s answer without the tools the hooks block whatever their arguments.
    async fn filter(&self, result: &mut Value) -> bool {
        let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else { return false };
        let mut kept = Vec::with_capacity(tools.len());
        let before = tools.len();
        for tool in std::mem::take(tools) {
            let name = self.tool_name(tool.get("name").and_then(Value::as_str).unwrap_or_default());
            let mut data = Map::new();
            data.insert("tool_name".into(), name.into());
            data.insert("arguments".into(), json!({}));
            data.insert("mcp_server".into(), self.name.clone().into());
            let blocked = match self.decide(&self.event(EventName::PreToolUse, data)).await {
                Ok(outcome) => outcome.decision >= VerdictKind::Block,
                // Not known: listed (a call of it is judged when made).
                Err(_) => false,
            };
            if !blocked {
                kept.push(tool);
            }
        }
        *tools = kept;
        tools.len() != before
    }
}
