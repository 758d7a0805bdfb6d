//! `/mcp/<runtime>`: the `hook` tool of `hookhost mcp`, served by the daemon over MCP's
//! streamable HTTP transport (specification 2025-11-25, "Transports" → "Streamable HTTP":
//! <https://modelcontextprotocol.io/specification/2025-11-25/basic/transports>) — for a runtime
//! whose MCP tool hooks reach a server by URL, with no process of hookhost's per session.
//!
//! Each message is POSTed on its own: a request is answered with one JSON-RPC response as
//! `application/json` (the transport lets a server answer so rather than open an event
//! stream), a notification or a response with 202 and no body. The server keeps no session
//! (it gives no `Mcp-Session-Id`) and sends nothing of its own, so a GET for a stream (and a
//! DELETE of a session) is 405. The daemon's rules hold as on every route: this user's
//! socket peer or the bearer token, no `Origin` (the transport's guard against DNS rebinding),
//! a JSON body within the size limit.

use super::hook_tool::{Server, REVISIONS};
use super::*;
use crate::jsonrpc as rpc;
use serde_json::Value;

pub(super) async fn post_message(State(app): State<Arc<App>>, UrlPath(name): UrlPath<String>, headers: HeaderMap, body: Bytes) -> Response {
    let route = format!("/mcp/{name}");
    // A server that cannot answer in a runtime's protocol: no such route.
    let server = match Server::new(&name, OnFailure::Closed) {
        Ok(server) => server,
        Err(e) => {
            app.count("/mcp/unknown", StatusCode::NOT_FOUND);
            return json_error(StatusCode::NOT_FOUND, &format!("{e:#}"));
        }
    };
    // "MCP-Protocol-Version": a revision the server does not speak is a 400.
    if let Some(asked) = headers.get("mcp-protocol-version") {
        let asked = asked.to_str().unwrap_or_default();
        if !REVISIONS.contains(&asked) {
            app.count(&route, StatusCode::BAD_REQUEST);
            let text = rpc::error(&Value::Null, rpc::INVALID_REQUEST, &format!("MCP-Protocol-Version {asked:?} is not one this server speaks ({})", REVISIONS.join(", ")));
            return (StatusCode::BAD_REQUEST, [(header::CONTENT_TYPE, "application/json")], text).into_response();
        }
    }
    let answer = match rpc::parse(&body) {
        rpc::Message::Request { id, method, params } if method == "tools/call" => server.call(Ok(app.clone()), &id, params).await,
        rpc::Message::Request { id, method, params } => server.answer(&id, &method, &params),
        rpc::Message::Notification | rpc::Message::Response { .. } => {
            app.count(&route, StatusCode::ACCEPTED);
            return StatusCode::ACCEPTED.into_response();
        }
        rpc::Message::Invalid(code, why) => {
            app.count(&route, StatusCode::BAD_REQUEST);
            return (StatusCode::BAD_REQUEST, [(header::CONTENT_TYPE, "application/json")], rpc::error(&Value::Null, code, &why)).into_response();
        }
    };
    app.count(&route, StatusCode::OK);
    (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], answer).into_response()
}

/// GET (a stream of the server's own messages) and DELETE (a session's end): this server has
/// neither.
pub(super) async fn not_allowed(State(app): State<Arc<App>>) -> Response {
    app.count("/mcp", StatusCode::METHOD_NOT_ALLOWED);
    let mut response = json_error(StatusCode::METHOD_NOT_ALLOWED, "hookhost serve's MCP endpoint takes POSTed messages only: it opens no stream and keeps no session");
    response.headers_mut().insert(header::ALLOW, axum::http::HeaderValue::from_static("POST"));
    response
}
