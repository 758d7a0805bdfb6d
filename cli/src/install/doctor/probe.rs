//! The live probe of an MCP tool hook: the listed `hookhost mcp` started as the runtime starts
//! it (or `hookhost serve`'s MCP endpoint reached at its URL), the MCP handshake, and the hook's
//! own `input` template filled from the probe event as the runtime fills it — so what is
//! checked is the wiring install wrote, end to end.

use super::super::json::Json;
use super::super::mcp_server;
use super::super::runtimes::{Places, Runtime};
use super::super::steps;
use serde_json::{json, Value};
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::time::Duration;

/// Fill an `input` template the way Claude Code does (its hooks reference, "MCP tool hooks"):
/// in every string, `${a.b}` becomes that path of the hook input — an object or array as JSON
/// text, anything else as text, a missing path as "".
pub(crate) fn fill(template: &Value, input: &Value) -> Value {
    match template {
        Value::String(s) => Value::String(fill_text(s, input)),
        Value::Array(items) => Value::Array(items.iter().map(|v| fill(v, input)).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), fill(v, input))).collect()),
        other => other.clone(),
    }
}

fn fill_text(text: &str, input: &Value) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let path_ok = |p: &str| p.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        match after.find('}').filter(|&end| path_ok(&after[..end])) {
            Some(end) => {
                let found = after[..end].split('.').try_fold(input, |v, key| v.get(key));
                match found {
                    None | Some(Value::Null) => {}
                    Some(Value::String(s)) => out.push_str(s),
                    Some(v) => out.push_str(&v.to_string()),
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push_str("${");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Start the server (or reach the daemon's endpoint), call its tool with the probe, and read
/// the answer.
pub(super) fn mcp_tool(runtime: Runtime, handler: &Json, server: Option<&Json>, places: &Places) -> Result<String, (String, String)> {
    let fix = "run `hookhost mcp` by hand and call its tool; `hookhost check` shows whether the chain loads and what it holds".to_string();
    let probe = steps::of(runtime).probe(&places.project.display().to_string());
    let template = handler.get("input").map(Json::to_value).unwrap_or(json!({}));
    let arguments = fill(&template, &probe);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": handler.get("tool").and_then(Json::as_str).unwrap_or(crate::mcp::TOOL), "arguments": arguments}});
    if let Some(url) = server.and_then(mcp_server::endpoint) {
        let headers = server.and_then(|s| s.get("headers")).map(Json::to_value).unwrap_or(json!({}));
        return judged(runtime, &format!("hookhost serve at {url}"), over_http(url, &headers, &call), "start `hookhost serve` (its token in $HOOKHOST_TOKEN where the runtime starts), or install another wiring".into());
    }
    let Some((program, args)) = server.and_then(mcp_server::command) else {
        return Err(("no `hookhost mcp` server is listed for the MCP tool hooks to call".into(), fix));
    };
    let shown = format!("`{program} {}`", args.join(" "));
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "hookhost-doctor", "version": env!("CARGO_PKG_VERSION")}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        call,
    ];
    let mut child = Command::new(&program)
        .args(&args)
        .current_dir(&places.project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| (format!("cannot start `{shown}`: {e}"), fix.clone()))?;
    let mut stdin = child.stdin.take().expect("piped");
    for r in &requests {
        let _ = writeln!(stdin, "{r}");
    }
    let _ = stdin.flush();
    // Read on a thread: the answer is waited for 30 s at most, as a runtime would not wait forever.
    let stdout = child.stdout.take().expect("piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let Ok(msg) = serde_json::from_str::<Value>(&line) else { continue };
            if msg["id"] == 2 {
                let _ = tx.send(msg);
                return;
            }
        }
    });
    let answer = rx.recv_timeout(Duration::from_secs(30));
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let answer = answer.map_err(|_| "did not answer the probe's tool call within 30 s".to_string());
    judged(runtime, &shown, answer, fix)
}

/// The probe's answer (or why there is none) as doctor reports it.
fn judged(runtime: Runtime, shown: &str, answer: Result<Value, String>, fix: String) -> Result<String, (String, String)> {
    let msg = answer.map_err(|why| (format!("{shown} {why}; {} blocks every tool call while its MCP tool hook fails", runtime.title()), fix.clone()))?;
    let text = msg["result"]["content"][0]["text"].as_str().unwrap_or_default();
    if msg["result"]["isError"] != true && super::is_deny(runtime, text) {
        Ok(format!("{shown} denies `rm -rf /` through the hook's MCP tool call, as {} reads it", runtime.title()))
    } else {
        Err((format!("{shown} did not deny `rm -rf /` through its tool (answer: {})", msg), fix))
    }
}

/// One JSON-RPC message POSTed to an MCP endpoint (the daemon's, on this
/// machine), with the entry's headers as the runtime sends them: each `${VAR}` filled from
/// this environment, where the runtime started from it would fill it.
fn over_http(url: &str, headers: &Value, message: &Value) -> Result<Value, String> {
    let mut request = reqwest::header::HeaderMap::new();
    for (name, value) in headers.as_object().into_iter().flatten() {
        let value = expand(value.as_str().unwrap_or_default()).map_err(|var| {
            let own = hookhost::types::paths::serve_token_file().map(|f| format!(" (hookhost serve's own token: `export {var}=\"$(cat {})\"`)", f.display())).unwrap_or_default();
            format!("sends ${{{var}}} in its {name} header, which is not set in this environment: the runtime started from here could not send it; export {var}{own}")
        })?;
        let name = reqwest::header::HeaderName::from_bytes(name.as_bytes()).map_err(|e| format!("has a header name the runtime could not send ({name:?}: {e})"))?;
        let value = reqwest::header::HeaderValue::from_str(&value).map_err(|e| format!("has a {name} header the runtime could not send ({e})"))?;
        request.insert(name, value);
    }
    // TLS for an https:// URL: the ring provider, as the registry client uses.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder().connect_timeout(Duration::from_secs(2)).timeout(Duration::from_secs(30)).build().map_err(|e| format!("cannot be asked ({e})"))?;
    let ask = async {
        let response = http
            .post(url)
            .headers(request)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .body(message.to_string())
            .send()
            .await
            .map_err(|e| format!("cannot be reached ({e})"))?;
        let status = response.status();
        let body = response.text().await.map_err(|e| format!("broke off its answer ({e})"))?;
        if !status.is_success() {
            return Err(format!("answered HTTP {}: {}", status.as_u16(), body.trim()));
        }
        serde_json::from_str(body.trim()).map_err(|e| format!("answered with no JSON-RPC message ({e})"))
    };
    // doctor runs on the multi-threaded runtime; its checks are plain calls.
    tokio::task::block_in_place(|| tokio::runtime::Handle::current().block_on(ask))
}

/// `text` with each `${VAR}` (`${VAR:-default}`) filled from the environment, as Claude Code
/// fills an MCP server's headers; `Err(VAR)`: one that is not set and has no default.
fn expand(text: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let Some(end) = rest[at..].find('}') else { break };
        let inner = &rest[at + 2..at + end];
        let (var, default) = inner.split_once(":-").map_or((inner, None), |(v, d)| (v, Some(d)));
        match (std::env::var(var).ok().filter(|v| !v.is_empty()), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(d)) => out.push_str(d),
            (None, None) => return Err(var.to_string()),
        }
        rest = &rest[at + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_variables_are_filled_from_the_environment() {
        // (PATH is set wherever tests run; this name never is.)
        let path = std::env::var("PATH").unwrap();
        assert_eq!(expand("Bearer ${PATH}"), Ok(format!("Bearer {path}")));
        assert_eq!(expand("x ${HOOKHOST_TEST_NEVER_SET:-none} y"), Ok("x none y".into()));
        assert_eq!(expand("Bearer ${HOOKHOST_TEST_NEVER_SET}"), Err("HOOKHOST_TEST_NEVER_SET".into()));
        assert_eq!(expand("plain"), Ok("plain".into()));
    }

    #[test]
    fn a_template_is_filled_as_claude_code_fills_it() {
        let input = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "n": 3, "flag": true, "deep": {"a": {"b": "x"}}});
        let template = json!({"name": "${tool_name}", "input": "${tool_input}", "n": "n=${n} ${flag}", "deep": "${deep.a.b}", "gone": "${missing}", "bad": "${1x} ${", "kept": 5});
        assert_eq!(fill(&template, &input), json!({"name": "Bash", "input": "{\"command\":\"ls\"}", "n": "n=3 true", "deep": "x", "gone": "", "bad": "${1x} ${", "kept": 5}));
    }
}
