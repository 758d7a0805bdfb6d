//! `hookhost mcp`: hookhost as an MCP server on stdio, for a runtime whose hooks can call a tool
//! of a server it keeps connected (Claude Code's `type: "mcp_tool"` hooks) — one process for the
//! session instead of one per event.
//!
//! It serves one tool, `hook`: its arguments are the runtime's hook input as the runtime's
//! template fills it ([`hookhost_types::runtime::McpHooks`]), its answer the text the runtime's
//! command hook would print (`{}` when there is nothing to say), which the runtime reads the
//! same way. The chain is the one `hookhost serve` runs — the managed, user and project layers
//! (each event's own project by its `cwd`), audit, background hooks — reloaded when its files
//! change or on SIGHUP. hookhost's own failure is a tool error (`isError`), which the runtime
//! treats as its hook's `onFailure` says: `hookhost install --wiring mcp` writes `block` on the
//! events that gate an action.
//!
//! The protocol: MCP's lifecycle (`initialize`, `notifications/initialized`, `ping`) and tools
//! (`tools/list`, `tools/call`), from the MCP specification, revision 2025-11-25
//! (<https://modelcontextprotocol.io/specification/2025-11-25>); the earlier revisions a client
//! may ask for are answered the same way.

use crate::serve::Signals;
use crate::HostArgs;
use anyhow::Result;
use hookhost::protocol::OnFailure;
use serde_json::Value;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;

mod chain;
pub(crate) mod proxy;
mod upstream_http;

// The framing, and the `hook` tool `hookhost serve` serves too (over HTTP).
pub(crate) use crate::jsonrpc as rpc;
pub(crate) use crate::serve::hook_tool::{Server, SERVER, TOOL};

use chain::Chain;
use rpc::{Line, Message};

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct McpArgs {
    #[command(subcommand)]
    pub command: Option<McpCommand>,
    #[command(flatten)]
    pub host: HostArgs,
    /// The runtime whose hooks call the tool: its hook input in, its hook answer out.
    #[arg(long, value_name = "RUNTIME", default_value = "claude-code")]
    pub runtime: String,
    /// Seconds one call may take; an event that can block is blocked after that.
    #[arg(long, default_value_t = 30)]
    pub request_timeout: u64,
    /// Calls decided at once; more wait.
    #[arg(long, default_value_t = 64)]
    pub max_concurrent: usize,
    /// hookhost's own failure (a config that does not load, an event it cannot read) blocks
    /// every event. Without it, it blocks the events that gate an action and is a tool error
    /// (the runtime's non-blocking error) on the others.
    #[arg(long, conflicts_with = "fail_open")]
    pub fail_closed: bool,
    /// hookhost's own failure is a tool error on every event: the tool runs unchecked.
    #[arg(long)]
    pub fail_open: bool,
}

#[derive(clap::Subcommand)]
pub(crate) enum McpCommand {
    /// Stand between an MCP client and an MCP server (`-- SERVER-COMMAND...`): every
    /// `tools/call` is a pre-tool event (a block never reaches the server; a rewrite changes the
    /// arguments), its result a post-tool event (redaction; a block withholds it); everything
    /// else passes through as it came. Put it in the client's MCP settings in place of the server.
    Proxy(proxy::ProxyArgs),
}

/// The longest line read: an event at its size limit, written as a template's JSON text
/// (escaped once more), with room for the envelope.
const MAX_LINE: usize = 4 * hookhost::MAX_EVENT_BYTES;

pub(crate) async fn mcp(args: McpArgs) -> Result<ExitCode> {
    if let Some(McpCommand::Proxy(proxy)) = args.command {
        return proxy::proxy(proxy).await;
    }
    let server = Server::new(&args.runtime, OnFailure::from_flags(args.fail_open, args.fail_closed))?;
    let request_timeout = Duration::from_secs(args.request_timeout.clamp(1, 3600));
    // A chain that does not load is not the end of the session: every call is answered with
    // hookhost's failure (a block where it gates an action) until the files are fixed.
    let chain = Arc::new(Chain::start(&args.host, request_timeout).await);
    let server = Arc::new(server);
    let mut signals = Signals::new()?;
    // Every answer goes through one writer, a whole line at a time.
    let (tx, mut rx) = tokio::sync::mpsc::channel::<String>(256);
    let writer = tokio::spawn(async move {
        let mut out = tokio::io::stdout();
        while let Some(line) = rx.recv().await {
            if out.write_all(line.as_bytes()).await.is_err() || out.write_all(b"\n").await.is_err() || out.flush().await.is_err() {
                break;
            }
        }
    });
    let calls = Arc::new(tokio::sync::Semaphore::new(args.max_concurrent.max(1)));
    // Lines are read on a task of their own: a read is not cancel-safe (a line half-read would
    // be lost when a tick won the `select!`), a channel's receive is.
    let (line_tx, mut lines) = tokio::sync::mpsc::channel::<std::io::Result<Line>>(16);
    tokio::spawn(async move {
        let mut input = tokio::io::BufReader::new(tokio::io::stdin());
        loop {
            let line = rpc::read_line(&mut input, MAX_LINE).await;
            let last = matches!(line, Ok(Line::End) | Err(_));
            if line_tx.send(line).await.is_err() || last {
                return;
            }
        }
    });
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut tasks = tokio::task::JoinSet::new();
    loop {
        let line = tokio::select! {
            line = lines.recv() => line.unwrap_or(Ok(Line::End)),
            signal = signals.next() => if chain.on(signal).await { break } else { continue },
            _ = tick.tick() => {
                chain.tick().await;
                continue;
            }
            Some(_) = tasks.join_next(), if !tasks.is_empty() => continue,
        };
        let text = match line {
            Ok(Line::Text(text)) if text.iter().all(u8::is_ascii_whitespace) => continue,
            Ok(Line::Text(text)) => text,
            Ok(Line::TooLong(n)) => {
                let _ = tx.send(rpc::error(&Value::Null, rpc::INVALID_REQUEST, &format!("a message of {n} bytes is over the {MAX_LINE}-byte limit"))).await;
                continue;
            }
            // The client closed its end: the session is over.
            Ok(Line::End) => break,
            Err(e) => {
                eprintln!("hookhost mcp: cannot read stdin: {e}");
                break;
            }
        };
        match rpc::parse(&text) {
            Message::Request { id, method, params } if method == "tools/call" => {
                let server = server.clone();
                let app = chain.app();
                let tx = tx.clone();
                let permit = calls.clone().acquire_owned().await.expect("never closed");
                tasks.spawn(async move {
                    let answer = server.call(app, &id, params).await;
                    let _ = tx.send(answer).await;
                    drop(permit);
                });
            }
            Message::Request { id, method, params } => {
                let _ = tx.send(server.answer(&id, &method, &params)).await;
            }
            // `notifications/initialized`, `notifications/cancelled` (a hook's answer is quick
            // and harmless to finish), and anything else a client tells: nothing to answer.
            Message::Notification | Message::Response { .. } => {}
            Message::Invalid(code, why) => {
                let _ = tx.send(rpc::error(&Value::Null, code, &why)).await;
            }
        }
    }
    // Calls in flight finish (each within the request timeout) and are answered.
    while tasks.join_next().await.is_some() {}
    drop(tx);
    let _ = writer.await;
    Ok(ExitCode::SUCCESS)
}
