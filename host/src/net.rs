//! `wasi:http/outgoing-handler` for guests, deny-by-default (wasmtime-wasi-http does the HTTP).
//!
//! Every plugin may import `wasi:http` — standard toolchains (componentize-js) import it
//! whether or not the hook uses it — but a request goes out only to a host a `net:http:HOST[:PORT]`
//! grant names for that hook. Anything else fails with `HTTP-request-denied` before a socket is
//! opened. Granted requests get the hook's remaining time as their connect, first-byte and
//! between-bytes timeouts (whichever of the guest's own is shorter), and are never redirected
//! (wasmtime-wasi-http does not follow redirects).

use hookhost_types::spec::NetHost;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};
use wasmtime_wasi_http::{Error, RequestOptions, WasiBody, WasiHttpHooks};

/// Stop waiting on the network this long before the hook's deadline, so the guest can still
/// turn the failure into its answer.
const DEADLINE_MARGIN: Duration = Duration::from_millis(50);

/// What one hook's instance may reach over HTTP.
pub(crate) struct NetPolicy {
    pub(crate) hook_id: String,
    pub(crate) allowed: Arc<[NetHost]>,
    pub(crate) deadline: Instant,
}

impl NetPolicy {
    /// Whether the request's scheme and authority are granted.
    fn permits(&self, uri: &http::Uri) -> bool {
        let https = uri.scheme() == Some(&http::uri::Scheme::HTTPS);
        let http = uri.scheme() == Some(&http::uri::Scheme::HTTP);
        (https || http) && uri.host().is_some_and(|host| self.allowed.iter().any(|grant| grant.allows(host, uri.port_u16(), https)))
    }
}

type SendFuture = Box<dyn Future<Output = Result<(http::Response<WasiBody>, Box<dyn Future<Output = Result<(), Error>> + Send>), Error>> + Send>;

impl WasiHttpHooks for NetPolicy {
    fn send_request(&mut self, request: http::Request<WasiBody>, options: Option<RequestOptions>, fut: Box<dyn Future<Output = Result<(), Error>> + Send>) -> SendFuture {
        _ = fut;
        let uri = request.uri().clone();
        if !self.permits(&uri) {
            tracing::warn!(hook_id = %self.hook_id, %uri, "HTTP request denied: no net:http grant names this host");
            return Box::new(async { Err(Error::HttpRequestDenied) });
        }
        let left = self.deadline.saturating_duration_since(Instant::now()).saturating_sub(DEADLINE_MARGIN).max(Duration::from_millis(1));
        let cap = |t: Option<Duration>| Some(t.map_or(left, |t| t.min(left)));
        let options = options.unwrap_or_default();
        let options = RequestOptions { connect_timeout: cap(options.connect_timeout), first_byte_timeout: cap(options.first_byte_timeout), between_bytes_timeout: cap(options.between_bytes_timeout) };
        tracing::debug!(hook_id = %self.hook_id, %uri, "HTTP request");
        Box::new(async move {
            use http_body_util::BodyExt;
            let (res, io) = wasmtime_wasi_http::default_send_request(request, Some(options)).await?;
            Ok((res.map(BodyExt::boxed_unsync), Box::new(io) as Box<dyn Future<Output = _> + Send>))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(grants: &[&str]) -> NetPolicy {
        let allowed: Vec<NetHost> = grants.iter().map(|g| match format!("net:http:{g}").parse().unwrap() {
            hookhost_types::Capability::NetHttp(h) => h,
            other => panic!("{other}"),
        }).collect();
        NetPolicy { hook_id: "user:h".into(), allowed: allowed.into(), deadline: Instant::now() + Duration::from_secs(5) }
    }

    #[test]
    fn only_granted_hosts_and_ports_are_reachable() {
        let p = policy(&["127.0.0.1:9000", "hooks.example.com", "[::1]:8080"]);
        let ok = |u: &str| p.permits(&u.parse().unwrap());
        assert!(ok("http://127.0.0.1:9000/hook"));
        assert!(!ok("http://127.0.0.1:9001/hook"), "another port");
        assert!(!ok("http://127.0.0.1/hook"), "the default port is not 9000");
        assert!(!ok("http://localhost:9000/hook"), "a name is not its address");
        assert!(ok("https://hooks.example.com/x"), "a grant without a port: the scheme's default");
        assert!(ok("http://HOOKS.example.com/x"));
        assert!(ok("http://hooks.example.com:80/x"));
        assert!(!ok("https://hooks.example.com:8443/x"));
        assert!(!ok("https://evil.example.com/x"));
        assert!(!ok("https://hooks.example.com.evil.net/x"));
        assert!(ok("http://[::1]:8080/"));
        assert!(!policy(&[]).permits(&"http://127.0.0.1:9000/".parse().unwrap()), "no grant, no network");
    }

    #[test]
    fn grants_parse_and_print_as_written() {
        for (written, ok) in [("net:http:127.0.0.1:9000", true), ("net:http:hooks.example.com", true), ("net:http:[::1]:8080", true), ("net:http:", false), ("net:http:a b", false), ("net:http:host:0", false), ("net:http:host:99999", false), ("net:http:*", false), ("net:https:x", false)] {
            let parsed = written.parse::<hookhost_types::Capability>();
            assert_eq!(parsed.is_ok(), ok, "{written}");
            if let Ok(cap) = parsed {
                assert_eq!(cap.to_string(), written);
            }
        }
        let err = "net:tcp:x".parse::<hookhost_types::Capability>().unwrap_err().to_string();
        assert!(err.contains("process:exec, net:http:HOST[:PORT]"), "{err}");
    }
}
