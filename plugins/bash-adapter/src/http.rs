//! `url` hooks: a peer's HTTP hook (Claude Code `type: "http"`, Starchild `type: http`) posts
//! the same JSON its command hooks read on stdin, and its response body is read as their stdout.
//!
//! The request goes through `wasi:http/outgoing-handler`; the host lets it out only to a host a
//! `net:http:HOST[:PORT]` grant names for this hook, under the hook's deadline. The rules follow
//! Claude Code's hooks reference (<https://code.claude.com/docs/en/hooks>, "HTTP hook fields" and
//! "HTTP response handling"): POST with `Content-Type: application/json`; a 2xx with an empty
//! body is success with no output; a 2xx with a JSON object is read like a command hook's stdout
//! on exit 0; any other 2xx body, a non-2xx status, a refused connection or a timeout is an error
//! (Claude Code's "non-blocking error"; here the hook's `on_error` decides, which fails closed
//! on events that guard). Headers arrive resolved: the host substitutes `$VAR` / `${VAR}` for
//! the variables the hook lists in `allowedEnvVars`, and an empty string for any other.

/// The largest response body read; a longer one is an error, never a cut-off JSON document.
pub const RESPONSE_CAP: usize = 64 << 10;

/// Why a request did not produce a usable response.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The host refused it: no `net:http` grant names the URL's host.
    Denied(String),
    /// It went out and failed (connection, timeout, status, size, body).
    Failed(String),
}

/// A URL split for `wasi:http`: scheme, authority, path with query.
#[derive(Debug, Clone, PartialEq)]
pub struct Url {
    /// `https://` rather than `http://`.
    pub https: bool,
    /// `host[:port]`.
    pub authority: String,
    /// The path with its query (`/` when none).
    pub path: String,
}

impl Url {
    /// Parse an `http://` or `https://` URL (no user info).
    pub fn parse(url: &str) -> Result<Url, String> {
        let (https, rest) = match url.split_once("://") {
            Some(("http", rest)) => (false, rest),
            Some(("https", rest)) => (true, rest),
            _ => return Err(format!("settings.url {url:?} must start with http:// or https://")),
        };
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(end);
        let path = path.split('#').next().unwrap_or_default();
        if authority.is_empty() || authority.contains('@') || authority.chars().any(|c| c.is_whitespace()) {
            return Err(format!("settings.url {url:?} needs a host (and no user name or spaces)"));
        }
        let path = match path {
            "" => "/".to_string(),
            p if p.starts_with('?') => format!("/{p}"),
            p => p.to_string(),
        };
        Ok(Url { https, authority: authority.to_string(), path })
    }

    /// The grant that lets this URL out: `net:http:HOST[:PORT]`.
    pub fn grant(&self) -> String {
        format!("net:http:{}", self.authority)
    }
}

/// The status, read as Claude Code reads it: `Ok(stdout)` for a 2xx whose body is empty or a
/// JSON object (the empty string for "no output"), else why not.
pub fn read_response(url: &str, status: u16, body: &[u8]) -> Result<String, String> {
    if !(200..300).contains(&status) {
        let text = String::from_utf8_lossy(body);
        let first = text.lines().next().unwrap_or("").trim();
        let cut: String = first.chars().take(200).collect();
        return Err(format!("{url} answered HTTP {status}{}", if cut.is_empty() { String::new() } else { format!(": {cut}") }));
    }
    let text = std::str::from_utf8(body).map_err(|_| format!("{url} answered HTTP {status} with a body that is not UTF-8"))?;
    if text.trim().is_empty() {
        return Ok(String::new());
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) if v.is_object() => Ok(text.to_string()),
        _ => Err(format!("{url} answered HTTP {status} with a body that is neither empty nor a JSON object")),
    }
}

/// POST `body` to `url` with `headers` and wait at most `timeout_ms` for each stage.
#[cfg(target_arch = "wasm32")]
pub fn post(url: &Url, shown: &str, headers: &[(String, String)], body: &str, timeout_ms: u32) -> Result<(u16, Vec<u8>), Failure> {
    use wasip2::http::outgoing_handler;
    use wasip2::http::types::{ErrorCode, Fields, Method, OutgoingBody, OutgoingRequest, RequestOptions, Scheme};
    use wasip2::io::streams::StreamError;

    let failed = |what: String| Failure::Failed(format!("{shown}: {what}"));
    let code = |e: ErrorCode| match e {
        ErrorCode::HttpRequestDenied => Failure::Denied(format!("the host does not let this hook reach {} (it needs the grant {})", url.authority, url.grant())),
        ErrorCode::ConnectionRefused => failed("connection refused".into()),
        ErrorCode::ConnectionTimeout => failed(format!("no connection within {timeout_ms} ms")),
        ErrorCode::ConnectionReadTimeout => failed(format!("no response within {timeout_ms} ms")),
        ErrorCode::DnsError(_) => failed("its host name does not resolve".into()),
        other => failed(format!("{other:?}")),
    };
    let mut fields = vec![("content-type".to_string(), b"application/json".to_vec()), ("content-length".to_string(), body.len().to_string().into_bytes())];
    fields.extend(headers.iter().filter(|(k, _)| !k.eq_ignore_ascii_case("content-type") && !k.eq_ignore_ascii_case("content-length")).map(|(k, v)| (k.to_ascii_lowercase(), v.clone().into_bytes())));
    let fields = Fields::from_list(&fields).map_err(|e| failed(format!("a header was refused: {e:?}")))?;
    let request = OutgoingRequest::new(fields);
    let scheme = if url.https { Scheme::Https } else { Scheme::Http };
    let set = request.set_method(&Method::Post).and(request.set_scheme(Some(&scheme))).and(request.set_authority(Some(&url.authority))).and(request.set_path_with_query(Some(&url.path)));
    set.map_err(|()| failed("not a URL wasi:http accepts".into()))?;
    let out = request.body().map_err(|()| failed("no request body".into()))?;
    let options = RequestOptions::new();
    let ns = Some(u64::from(timeout_ms) * 1_000_000);
    let _ = (options.set_connect_timeout(ns), options.set_first_byte_timeout(ns), options.set_between_bytes_timeout(ns));
    let pending = outgoing_handler::handle(request, Some(options)).map_err(code)?;
    // A request the host refused (or could not connect) closes the body stream: its reason
    // comes with the response, which is awaited whatever the write did.
    let mut sent = Ok(());
    if let Ok(stream) = out.write() {
        for chunk in body.as_bytes().chunks(4096) {
            if let Err(e) = stream.blocking_write_and_flush(chunk) {
                sent = Err(failed(format!("sending the event: {e:?}")));
                break;
            }
        }
    }
    let finished = OutgoingBody::finish(out, None);
    pending.subscribe().block();
    let response = match pending.get() {
        Some(Ok(Ok(response))) => response,
        Some(Ok(Err(e))) => return Err(code(e)),
        Some(Err(())) | None => return Err(failed("no response".into())),
    };
    sent?;
    finished.map_err(code)?;
    let status = response.status();
    let incoming = response.consume().map_err(|()| failed("no response body".into()))?;
    let stream = incoming.stream().map_err(|()| failed("no response body stream".into()))?;
    let mut bytes = Vec::new();
    loop {
        match stream.blocking_read(16 << 10) {
            Ok(chunk) => bytes.extend_from_slice(&chunk),
            Err(StreamError::Closed) => break,
            Err(StreamError::LastOperationFailed(e)) => return Err(failed(format!("reading the response: {}", e.to_debug_string()))),
        }
        if bytes.len() > RESPONSE_CAP {
            return Err(failed(format!("the response is over {} KiB", RESPONSE_CAP >> 10)));
        }
    }
    Ok((status, bytes))
}

/// Outside wasm (the crate's native tests) there is no `wasi:http`.
#[cfg(not(target_arch = "wasm32"))]
pub fn post(_url: &Url, shown: &str, _headers: &[(String, String)], _body: &str, _timeout_ms: u32) -> Result<(u16, Vec<u8>), Failure> {
    Err(Failure::Failed(format!("{shown}: HTTP needs the wasm build")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_for_wasi_http() {
        assert_eq!(Url::parse("http://127.0.0.1:9000/hooks/pre?x=1").unwrap(), Url { https: false, authority: "127.0.0.1:9000".into(), path: "/hooks/pre?x=1".into() });
        assert_eq!(Url::parse("https://hooks.example.com").unwrap(), Url { https: true, authority: "hooks.example.com".into(), path: "/".into() });
        assert_eq!(Url::parse("http://h?q#frag").unwrap().path, "/?q");
        assert_eq!(Url::parse("http://[::1]:8080/x").unwrap().grant(), "net:http:[::1]:8080");
        for bad in ["ftp://x/", "127.0.0.1:9000/x", "http:///x", "http://user:pw@host/", "http://a b/"] {
            assert!(Url::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn responses_are_read_as_claude_code_reads_them() {
        let u = "http://h/x";
        assert_eq!(read_response(u, 200, b""), Ok(String::new()));
        assert_eq!(read_response(u, 204, b"  \n"), Ok(String::new()));
        assert_eq!(read_response(u, 200, br#"{"decision":"block","reason":"no"}"#), Ok(r#"{"decision":"block","reason":"no"}"#.into()));
        assert_eq!(read_response(u, 200, b"ok").unwrap_err(), "http://h/x answered HTTP 200 with a body that is neither empty nor a JSON object");
        assert_eq!(read_response(u, 200, b"[1]").unwrap_err(), "http://h/x answered HTTP 200 with a body that is neither empty nor a JSON object");
        assert_eq!(read_response(u, 500, b"boom\nmore").unwrap_err(), "http://h/x answered HTTP 500: boom");
        assert_eq!(read_response(u, 302, b"").unwrap_err(), "http://h/x answered HTTP 302", "redirects are not followed");
    }
}
