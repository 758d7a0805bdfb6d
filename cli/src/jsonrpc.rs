//! JSON-RPC 2.0 as MCP's stdio transport carries it: one message per line, UTF-8, no embedded
//! newlines (the MCP specification, "Transports" → stdio, and "Base protocol"; JSON-RPC 2.0 §4–5).
//!
//! Written here rather than taken from an MCP SDK: hookhost's server answers five methods, and
//! the proxy (`hookhost mcp proxy`) must pass every other message through byte for byte,
//! including methods and fields no SDK release knows yet — a typed SDK would reshape or refuse
//! them. What is needed is the framing and the message kinds below.

use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// JSON-RPC's error codes (JSON-RPC 2.0 §5.1).
pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
pub(crate) const INVALID_PARAMS: i64 = -32602;

/// One line read from the transport.
pub(crate) enum Line {
    /// A whole line (without its newline).
    Text(Vec<u8>),
    /// A line longer than the limit, skipped to its end.
    TooLong(usize),
    /// The other side closed the stream.
    End,
}

/// Read one line of at most `limit` bytes; a longer one is read to its newline and dropped, so
/// a peer cannot make the reader hold more than `limit` bytes. Not cancel-safe (a line read in
/// part is lost with the future): read on a task of its own, not in a `select!`.
pub(crate) async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R, limit: usize) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut skipped = 0usize;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok(if line.is_empty() && skipped == 0 { Line::End } else if skipped > 0 { Line::TooLong(skipped) } else { Line::Text(line) });
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (&buf[..at], at + 1),
            None => (buf, buf.len()),
        };
        let newline = done > chunk.len();
        if skipped > 0 || line.len() + chunk.len() > limit {
            skipped += line.len() + chunk.len();
            line.clear();
        } else {
            line.extend_from_slice(chunk);
        }
        reader.consume(done);
        if newline {
            if skipped > 0 {
                return Ok(Line::TooLong(skipped));
            }
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(Line::Text(line));
        }
    }
}

/// What a message is (JSON-RPC 2.0 §4).
pub(crate) enum Message {
    /// A request: it has an id and a method, and is answered.
    Request { id: Value, method: String, params: Value },
    /// A notification: a method and no id; never answered.
    Notification,
    /// A response (a result or an error for an id).
    Response { id: Value },
    /// Not a message: answered with this error (id null).
    Invalid(i64, String),
}

/// Classify one line's text.
pub(crate) fn parse(text: &[u8]) -> Message {
    let value: Value = match serde_json::from_slice(text) {
        Ok(v) => v,
        Err(e) => return Message::Invalid(PARSE_ERROR, format!("not JSON: {e}")),
    };
    let Value::Object(mut map) = value else {
        // MCP sends no batches (removed in its 2025-06-18 revision).
        return Message::Invalid(INVALID_REQUEST, "a message must be a JSON object (batches are not part of MCP)".into());
    };
    let method = map.get("method").and_then(Value::as_str).map(str::to_string);
    match (method, map.remove("id")) {
        (Some(method), Some(id)) if id.is_string() || id.is_number() => Message::Request { id, method, params: map.remove("params").unwrap_or(Value::Null) },
        (Some(_), Some(_)) => Message::Invalid(INVALID_REQUEST, "a request's id must be a string or a number".into()),
        (Some(_), None) => Message::Notification,
        (None, Some(id)) if map.contains_key("result") || map.contains_key("error") => Message::Response { id },
        (None, _) => Message::Invalid(INVALID_REQUEST, "a message must have a method (or be a response)".into()),
    }
}

/// Whether `text` is JSON that holds a message with this method: itself, or one of a batch.
pub(crate) fn names_method(text: &[u8], method: &str) -> bool {
    let named = |v: &Value| v.get("method").and_then(Value::as_str) == Some(method);
    match serde_json::from_slice::<Value>(text) {
        Ok(Value::Array(items)) => items.iter().any(named),
        Ok(v) => named(&v),
        Err(_) => false,
    }
}

/// A result for `id`, as one line.
pub(crate) fn result(id: &Value, result: Value) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string()
}

/// An error for `id` (null when the request's id could not be read), as one line.
pub(crate) fn error(id: &Value, code: i64, message: &str) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], limit: usize) -> Vec<String> {
        let mut reader = tokio::io::BufReader::with_capacity(4, input);
        let mut out = Vec::new();
        loop {
            match read_line(&mut reader, limit).await.unwrap() {
                Line::Text(t) => out.push(String::from_utf8(t).unwrap()),
                Line::TooLong(n) => out.push(format!("<{n} bytes>")),
                Line::End => return out,
            }
        }
    }

    #[tokio::test]
    async fn lines_are_split_bounded_and_a_long_one_is_skipped_whole() {
        assert_eq!(lines(b"{\"a\":1}\r\nshort\n", 16).await, ["{\"a\":1}", "short"]);
        assert_eq!(lines(b"0123456789abcdefXYZ\nnext\nlast", 16).await, ["<19 bytes>", "next", "last"]);
        assert_eq!(lines(b"", 16).await, Vec::<String>::new());
    }

    #[test]
    fn messages_are_told_apart() {
        assert!(matches!(parse(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), Message::Request { method, .. } if method == "ping"));
        assert!(matches!(parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), Message::Notification));
        assert!(matches!(parse(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#), Message::Response { .. }));
        assert!(matches!(parse(b"{not json"), Message::Invalid(PARSE_ERROR, _)));
        assert!(matches!(parse(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#), Message::Invalid(INVALID_REQUEST, _)));
        assert!(matches!(parse(br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#), Message::Invalid(INVALID_REQUEST, _)));
        assert!(matches!(parse(br#"{"jsonrpc":"2.0","id":3}"#), Message::Invalid(INVALID_REQUEST, _)));
        assert!(names_method(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call"}]"#, "tools/call"));
        assert!(names_method(br#"{"jsonrpc":"2.0","method":"tools/call"}"#, "tools/call"));
        assert!(!names_method(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, "tools/call"));
        assert!(!names_method(b"not json", "tools/call"));
    }
}
