//! The `hook` tool of `hookhost mcp`: a runtime's hook input in (as its MCP tool hook template
//! fills it), the answer its command hook would print out — served on stdio by `hookhost mcp`
//! ([`crate::mcp`]) and over streamable HTTP by `hookhost serve` ([`super::mcp_http`]).

use super::{answer_in, runtime_protocol, App, Unanswered};
use crate::jsonrpc as rpc;
use anyhow::Result;
use hookhost::protocol::{OnFailure, Protocol};
use hookhost::Runtime;
use hookhost_types::runtime::McpHooks;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The MCP revisions this server speaks, newest first: a client asking for one of them gets
/// it, any other the newest (the specification's version negotiation).
pub(crate) const REVISIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The one tool's name.
pub(crate) const TOOL: &str = "hook";

/// The server's name in the runtime's MCP settings (`mcp__hookhost__…`).
pub(crate) const SERVER: &str = "hookhost";

/// The runtime named by `--runtime`, with its MCP hook template: one whose hooks can call a tool.
fn runtime_of(name: &str) -> Result<(Protocol, Runtime, &'static McpHooks)> {
    let known = || Runtime::ALL.into_iter().filter(|r| r.profile().install.as_ref().is_some_and(|i| i.mcp.is_ok())).map(|r| r.name()).collect::<Vec<_>>().join(", ");
    let (protocol, runtime) = runtime_protocol(name).ok_or_else(|| crate::usage(format!("--runtime {name:?}: not a runtime hookhost answers; the runtimes whose hooks can call an MCP tool: {}", known())))?;
    match runtime.profile().install.as_ref().map(|i| &i.mcp) {
        Some(Ok(mcp)) => Ok((protocol, runtime, mcp)),
        Some(Err(why)) => Err(crate::usage(format!("--runtime {name}: {why}"))),
        None => Err(crate::usage(format!("--runtime {name}: its hooks cannot call an MCP tool; those that can: {}", known()))),
    }
}

/// The `hook` tool of one runtime's hooks: what `hookhost mcp` serves on stdio and `hookhost
/// serve` at `/mcp/<runtime>` (streamable HTTP, [`crate::serve`]).
pub(crate) struct Server {
    protocol: Protocol,
    runtime: Runtime,
    template: &'static McpHooks,
    on_failure: OnFailure,
}

impl Server {
    /// The server for the runtime named `runtime` (one whose hooks can call an MCP tool).
    pub(crate) fn new(runtime: &str, on_failure: OnFailure) -> Result<Server> {
        let (protocol, runtime, template) = runtime_of(runtime)?;
        Ok(Server { protocol, runtime, template, on_failure })
    }

    /// hookhost's failure to decide `body`'s event, as the runtime's hook reads it: the
    /// event's block where the failure policy blocks it (text), else a tool error.
    fn failure(&self, body: &[u8], why: &str) -> (String, bool) {
        let event = hookhost::HookEvent::read(body, Some(self.runtime), None).ok();
        let reply = hookhost::protocol::failure(self.protocol, event.as_ref(), why, self.on_failure);
        if reply.code == 0 && !reply.stdout.is_empty() {
            (reply.stdout, false)
        } else {
            (format!("hookhost: error: {why}"), true)
        }
    }

    /// Every request but `tools/call`.
    pub(crate) fn answer(&self, id: &Value, method: &str, params: &Value) -> String {
        match method {
            "initialize" => {
                let asked = params.get("protocolVersion").and_then(Value::as_str);
                let revision = asked.filter(|a| REVISIONS.contains(a)).unwrap_or(REVISIONS[0]);
                rpc::result(id, json!({
                    "protocolVersion": revision,
                    "capabilities": { "tools": { "listChanged": false } },
                    "serverInfo": { "name": SERVER, "title": "hookhost", "version": env!("CARGO_PKG_VERSION") },
                    "instructions": format!("hookhost's hooks for {}: its `{TOOL}` tool is called by the runtime's hooks, not by the model.", self.runtime.title()),
                }))
            }
            "ping" => rpc::result(id, json!({})),
            "tools/list" => rpc::result(id, json!({ "tools": [self.tool()] })),
            other => rpc::error(id, rpc::METHOD_NOT_FOUND, &format!("hookhost mcp has no method {other:?} (it serves tools/list and tools/call of its `{TOOL}` tool)")),
        }
    }

    /// The `hook` tool as `tools/list` describes it.
    fn tool(&self) -> Value {
        let fields: Map<String, Value> = self.template.common.iter().chain(self.template.events.iter().flat_map(|(_, f)| f.iter())).map(|f| (f.to_string(), json!({}))).collect();
        json!({
            "name": TOOL,
            "title": format!("hookhost ({} hooks)", self.runtime.title()),
            "description": format!("Decides one {} hook event with hookhost's hooks and answers as its command hook would. Called by {}'s mcp_tool hooks (hookhost install --wiring mcp); its arguments are the hook input's fields.", self.runtime.title(), self.runtime.title()),
            "inputSchema": { "type": "object", "properties": fields, "additionalProperties": true },
            "annotations": { "readOnlyHint": true, "idempotentHint": true, "openWorldHint": false },
            // MCP Apps' tool visibility: for the host application (its hooks), not the model.
            "_meta": { "ui": { "visibility": ["app"] } },
        })
    }

    /// `tools/call`: the event decided by `app` (or, when the chain did not load, hookhost's
    /// failure), answered as the runtime's command hook would print it.
    pub(crate) async fn call(&self, app: Result<Arc<App>, String>, id: &Value, params: Value) -> String {
        let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
        if name != TOOL {
            return rpc::error(id, rpc::INVALID_PARAMS, &format!("unknown tool {name:?}: hookhost mcp serves `{TOOL}`"));
        }
        let arguments = match params.get("arguments") {
            Some(Value::Object(map)) => map.clone(),
            None | Some(Value::Null) => Map::new(),
            Some(_) => return rpc::error(id, rpc::INVALID_PARAMS, "the tool's arguments must be an object: the hook input's fields"),
        };
        let payload = Value::Object(self.template.payload(arguments));
        let body = serde_json::to_vec(&payload).unwrap_or_default();
        let (text, failed) = match app {
            Err(why) => self.failure(&body, &why),
            Ok(app) => match answer_in(&app, self.protocol, self.runtime, None, &body).await {
                Ok(text) => (text, false),
                Err(Unanswered::Unreadable(why) | Unanswered::Late(why)) => self.failure(&body, &why),
            },
        };
        rpc::result(id, json!({ "content": [{ "type": "text", "text": text }], "isError": failed }))
    }
}
