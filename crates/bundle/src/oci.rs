//! OCI registries: push and pull bundle artifacts (see [`super::store`] for the layout) with
//! `oci-client`, credentials from the standard Docker config file, plain HTTP only for loopback
//! unless the registry is configured `insecure_http`.
//!
//! Every failure says which of the distinct things went wrong — not found (404), refused
//! (401/403), a blob whose bytes do not match its digest, a wrong media type, an unreachable
//! registry — and names the registry and the reference.

use super::store::{Artifact, Layout, MAX_OCI_MANIFEST_BYTES};
use super::{BundleError, ErrorKind, Progress};
use hookhost_config::OciLocation;
use std::sync::Arc;
use oci_client::client::{ClientConfig, ClientProtocol};
use oci_client::errors::{DigestError, OciDistributionError};
use oci_client::manifest::OCI_IMAGE_MEDIA_TYPE;
use oci_client::secrets::RegistryAuth;
use oci_client::{Client, Reference};
use std::collections::BTreeMap;
use std::pin::Pin;
use std::task::{Context, Poll};

/// An OCI registry location: `host[:port]` plus an optional repository prefix.
#[derive(Clone)]
pub struct Remote {
    /// `host[:port]`.
    pub registry: String,
    /// Repository prefix (`hooks` in `127.0.0.1:5000/hooks`), may be empty.
    pub prefix: String,
    client: Client,
    /// For manifest reads, which hookhost caps while they stream (oci-client reads a whole body).
    http: reqwest::Client,
    /// `http` or `https`.
    scheme: &'static str,
    auth: RegistryAuth,
    /// Told of each blob moved.
    pub progress: Option<Arc<dyn Progress>>,
}

/// Credentials for `registry` from `$DOCKER_CONFIG/config.json` or `~/.docker/config.json`.
fn credentials(registry: &str) -> RegistryAuth {
    match docker_credential::get_credential(registry) {
        Ok(docker_credential::DockerCredential::UsernamePassword(user, password)) => RegistryAuth::Basic(user, password),
        Ok(docker_credential::DockerCredential::IdentityToken(token)) => RegistryAuth::Bearer(token),
        Err(_) => RegistryAuth::Anonymous,
    }
}

/// The OCI tag of a version (`+` is not allowed in tags).
pub fn tag_of(version: &str) -> String {
    version.replace('+', "_")
}

impl Remote {
    /// A client for a checked location (see [`OciLocation::parse`]: plain HTTP off this
    /// machine was refused there, before any connection).
    pub fn new(location: &OciLocation) -> Result<Remote, BundleError> {
        let (registry, prefix, plain) = (location.registry.as_str(), location.prefix.as_str(), location.plain_http);
        let protocol = if plain { ClientProtocol::HttpsExcept(vec![registry.to_string()]) } else { ClientProtocol::Https };
        let config = ClientConfig {
            protocol,
            connect_timeout: Some(std::time::Duration::from_secs(10)),
            read_timeout: Some(std::time::Duration::from_secs(60)),
            platform_resolver: None,
            ..Default::default()
        };
        // The process's TLS provider, unless the embedder installed one already (an error then,
        // and theirs is used).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .connect_timeout(std::time::Duration::from_secs(10))
            .read_timeout(std::time::Duration::from_secs(60))
            .build()
            .map_err(|e| BundleError::new(ErrorKind::Io, format!("cannot set up an HTTP client: {e}")).with_source(e))?;
        Ok(Remote {
            registry: registry.to_string(),
            prefix: prefix.to_string(),
            client: Client::new(config),
            http,
            scheme: if plain { "http" } else { "https" },
            auth: credentials(registry),
            progress: None,
        })
    }

    /// The repository of a bundle: `{prefix}/{namespace}/{name}`.
    pub fn repository(&self, name: &str) -> String {
        if self.prefix.is_empty() { name.to_string() } else { format!("{}/{name}", self.prefix) }
    }

    fn at_tag(&self, name: &str, tag: &str) -> Reference {
        Reference::with_tag(self.registry.clone(), self.repository(name), tag.to_string())
    }

    fn at_digest(&self, name: &str, digest: &str) -> Reference {
        Reference::with_digest(self.registry.clone(), self.repository(name), digest.to_string())
    }

    /// Explain a registry failure; `what` is the reference or blob being moved.
    fn explain(&self, e: OciDistributionError, what: &str) -> BundleError {
        let reg = &self.registry;
        let status = match &e {
            OciDistributionError::ServerError { code, .. } => Some(*code),
            OciDistributionError::UnauthorizedError { .. } | OciDistributionError::AuthenticationFailure(_) => Some(401),
            OciDistributionError::ImageManifestNotFoundError(_) => Some(404),
            OciDistributionError::RegistryError { envelope, .. } => {
                let codes: Vec<String> = envelope.errors.iter().map(|e| format!("{:?}", e.code)).collect();
                if codes.iter().any(|c| c.contains("Unknown")) {
                    Some(404)
                } else if codes.iter().any(|c| c.contains("Unauthorized") || c.contains("Denied")) {
                    Some(401)
                } else {
                    None
                }
            }
            OciDistributionError::RequestError(r) => r.status().map(|s| s.as_u16()),
            _ => None,
        };
        let kind = match (&e, status) {
            (OciDistributionError::DigestError(_), _) => ErrorKind::Integrity,
            (_, Some(404)) => ErrorKind::NotFound,
            (OciDistributionError::RequestError(r), None) if r.is_connect() || r.is_timeout() => ErrorKind::Unreachable,
            _ => ErrorKind::Registry,
        };
        let msg = match (&e, status) {
            (OciDistributionError::DigestError(DigestError::VerificationError { expected, actual }), _) => {
                format!("digest mismatch: {reg} served {what} with content that hashes to {actual}, not {expected}; the registry's storage is corrupt or something in between altered it; nothing was cached or run")
            }
            (_, Some(404)) => format!("not found (404): {reg} has no {what}; check the name and version (`hookhost registry list oci://{reg}/{}`)", self.prefix),
            (_, Some(401 | 403)) => format!("refused (401 unauthorized): {reg} wants credentials for {what}, or rejected the ones given; run `docker login {reg}` (hookhost reads $DOCKER_CONFIG/config.json, else ~/.docker/config.json)"),
            (OciDistributionError::RequestError(r), None) if r.is_connect() || r.is_timeout() => format!("cannot reach the registry {reg} ({r}); check the address and that it is running"),
            (_, Some(code)) => format!("{reg} answered {code} for {what}: {e}"),
            _ => format!("{reg}: {what}: {e}"),
        };
        BundleError::new(kind, msg).with_source(e)
    }

    /// Push an artifact tagged `tag` under the bundle's repository. Returns its digest.
    pub async fn push(&self, name: &str, tag: &str, artifact: &Artifact) -> Result<String, BundleError> {
        let reference = self.at_tag(name, tag);
        let shown = format!("{}:{tag}", self.repository(name));
        self.client.store_auth_if_needed(&self.registry, &self.auth).await;
        for (digest, bytes) in &artifact.blobs {
            if let Some(p) = &self.progress {
                p.blob(true, digest, bytes.len() as u64);
            }
            self.client.push_blob(&reference, bytes.clone(), digest).await.map_err(|e| self.explain(e, &format!("blob {digest} of {shown}")))?;
        }
        let content_type = http::HeaderValue::from_static(OCI_IMAGE_MEDIA_TYPE);
        self.client.push_manifest_raw(&reference, artifact.manifest.clone(), content_type).await.map_err(|e| self.explain(e, &shown))?;
        Ok(artifact.digest())
    }

    /// The digest a tag points at: the registry's `Docker-Content-Digest` header, or else the
    /// sha256 of the manifest, read with the cap.
    pub async fn resolve(&self, name: &str, tag: &str) -> Result<String, BundleError> {
        let reference = self.at_tag(name, tag);
        let shown = format!("{}:{tag}", self.repository(name));
        let head = self.manifest_request(&reference, reqwest::Method::HEAD, &shown).await?;
        if let Some(digest) = head.headers().get("docker-content-digest").and_then(|v| v.to_str().ok()) {
            let digest = digest.to_ascii_lowercase();
            if digest.parse::<hookhost_types::Digest>().is_err() {
                return Err(BundleError::new(ErrorKind::Registry, format!("{}: the registry named {shown} by {digest:?}, which is not a sha256 digest", self.registry)));
            }
            return Ok(digest);
        }
        let bytes = self.manifest_bytes(&reference, &shown).await?;
        Ok(hookhost_types::Digest::of(&bytes).to_string())
    }

    /// Send a manifest request (GET or HEAD) with the registry's credentials; a non-2xx answer
    /// is an error that says which.
    async fn manifest_request(&self, reference: &Reference, method: reqwest::Method, shown: &str) -> Result<reqwest::Response, BundleError> {
        let token = self.client.auth(reference, &self.auth, oci_client::RegistryOperation::Pull).await.map_err(|e| self.explain(e, shown))?;
        let url = format!("{}://{}/v2/{}/manifests/{}", self.scheme, self.registry, reference.repository(), reference.digest().or(reference.tag()).unwrap_or("latest"));
        let mut request = self.http.request(method, &url).header(http::header::ACCEPT, OCI_IMAGE_MEDIA_TYPE);
        request = match (&token, &self.auth) {
            (Some(token), _) => request.bearer_auth(token),
            (None, RegistryAuth::Basic(user, password)) => request.basic_auth(user, Some(password)),
            (None, RegistryAuth::Bearer(token)) => request.bearer_auth(token),
            (None, _) => request,
        };
        let response = request.send().await.map_err(|e| self.transport(e, shown))?;
        let reg = &self.registry;
        match response.status().as_u16() {
            200..=299 => Ok(response),
            404 => Err(BundleError::new(ErrorKind::NotFound, format!("not found (404): {reg} has no {shown}; check the name and version (`hookhost registry list oci://{reg}/{}`)", self.prefix))),
            401 | 403 => Err(BundleError::new(ErrorKind::Registry, format!("refused (401 unauthorized): {reg} wants credentials for {shown}, or rejected the ones given; run `docker login {reg}` (hookhost reads $DOCKER_CONFIG/config.json, else ~/.docker/config.json)"))),
            code => Err(BundleError::new(ErrorKind::Registry, format!("{reg} answered {code} for {shown}"))),
        }
    }

    fn transport(&self, e: reqwest::Error, shown: &str) -> BundleError {
        if e.is_connect() || e.is_timeout() {
            BundleError::new(ErrorKind::Unreachable, format!("cannot reach the registry {} ({e}); check the address and that it is running", self.registry)).with_source(e)
        } else {
            BundleError::new(ErrorKind::Registry, format!("{}: {shown}: {e}", self.registry)).with_source(e)
        }
    }

    /// A manifest's bytes, refused as soon as more than [`MAX_OCI_MANIFEST_BYTES`] arrive (or
    /// are announced): a registry cannot make hookhost hold an unbounded body.
    async fn manifest_bytes(&self, reference: &Reference, shown: &str) -> Result<Vec<u8>, BundleError> {
        let mut response = self.manifest_request(reference, reqwest::Method::GET, shown).await?;
        let too_big = |n: u64| BundleError::new(ErrorKind::Registry, format!("{}: the manifest of {shown} is {n} bytes or more, over the {MAX_OCI_MANIFEST_BYTES}-byte cap; refused without reading the rest", self.registry));
        if let Some(n) = response.content_length().filter(|n| *n > MAX_OCI_MANIFEST_BYTES as u64) {
            return Err(too_big(n));
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| self.transport(e, shown))? {
            if bytes.len() + chunk.len() > MAX_OCI_MANIFEST_BYTES {
                return Err(too_big((bytes.len() + chunk.len()) as u64));
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes)
    }

    /// Fetch an artifact by digest: its manifest, checked (media types, sizes), then every
    /// blob, each checked against its digest and size as it arrives.
    pub async fn fetch(&self, name: &str, digest: &str) -> Result<Artifact, BundleError> {
        let reference = self.at_digest(name, digest);
        let shown = format!("{}@{digest}", self.repository(name));
        let bytes = self.manifest_bytes(&reference, &shown).await?;
        let actual = hookhost_types::Digest::of(&bytes).to_string();
        if actual != digest {
            return Err(BundleError::new(ErrorKind::Integrity, format!("digest mismatch: {} served a manifest for {shown} that hashes to {actual}; nothing was cached or run", self.registry)));
        }
        let layout = Layout::parse(&bytes, &format!("{}/{shown}", self.registry))?;
        let mut blobs = BTreeMap::new();
        for d in layout.blobs() {
            if let Some(p) = &self.progress {
                p.blob(false, d.annotations.as_ref().and_then(|a| a.get("org.opencontainers.image.title")).map_or(d.digest.as_str(), |t| t.as_str()), d.size as u64);
            }
            let mut out = Capped { buf: Vec::with_capacity(d.size as usize), cap: d.size as usize };
            self.client.pull_blob(&reference, d, &mut out).await.map_err(|e| match e {
                OciDistributionError::IoError(io) if io.kind() == std::io::ErrorKind::FileTooLarge => {
                    BundleError::new(ErrorKind::Registry, format!("{}: blob {} of {shown} is larger than the {} bytes its descriptor declares; refused (archive bomb?)", self.registry, d.digest, d.size))
                }
                e => self.explain(e, &format!("blob {} of {shown}", d.digest)),
            })?;
            blobs.insert(d.digest.clone(), out.buf);
        }
        Ok(Artifact { manifest: bytes, blobs })
    }

    /// The tags of a bundle's repository (none when the repository does not exist).
    pub async fn tags(&self, name: &str) -> Result<Vec<String>, BundleError> {
        let reference = self.at_tag(name, "latest");
        match self.client.list_tags(&reference, &self.auth, None, None).await {
            Ok(t) => Ok(t.tags),
            Err(e) => {
                let e = self.explain(e, &self.repository(name));
                if e.kind() == ErrorKind::NotFound { Ok(Vec::new()) } else { Err(e) }
            }
        }
    }

    /// Every bundle repository under the prefix, with its tags.
    pub async fn list(&self) -> Result<Vec<(String, Vec<String>)>, BundleError> {
        let probe = self.at_tag("x/x", "x");
        let catalog = self.client.catalog(&probe, &self.auth, None, None).await.map_err(|e| self.explain(e, "the catalog"))?;
        let mut out = Vec::new();
        let prefix = if self.prefix.is_empty() { String::new() } else { format!("{}/", self.prefix) };
        for repo in catalog.repositories {
            let Some(name) = repo.strip_prefix(&prefix) else { continue };
            let reference = Reference::with_tag(self.registry.clone(), repo.clone(), "latest".into());
            let tags = self.client.list_tags(&reference, &self.auth, None, None).await.map_err(|e| self.explain(e, &repo))?;
            out.push((name.to_string(), tags.tags));
        }
        Ok(out)
    }
}

/// A writer that refuses more bytes than declared.
struct Capped {
    buf: Vec<u8>,
    cap: usize,
}

impl tokio::io::AsyncWrite for Capped {
    fn poll_write(mut self: Pin<&mut Self>, _: &mut Context<'_>, data: &[u8]) -> Poll<std::io::Result<usize>> {
        if self.buf.len() + data.len() > self.cap {
            return Poll::Ready(Err(std::io::Error::new(std::io::ErrorKind::FileTooLarge, "blob larger than declared")));
        }
        self.buf.extend_from_slice(data);
        Poll::Ready(Ok(data.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Write};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    /// A registry that misbehaves on loopback: no digest header on HEAD, and manifests that
    /// are announced (`/big`) or streamed without a length (`/stream`) far past any sane size.
    /// Counts the manifest bytes it managed to send before the client hung up.
    fn misbehaving_registry() -> (String, Arc<AtomicU64>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let sent = Arc::new(AtomicU64::new(0));
        let counter = sent.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let counter = counter.clone();
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut first = String::new();
                    reader.read_line(&mut first).unwrap();
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                            break;
                        }
                    }
                    let (method, path) = first.split_once(' ').map(|(m, rest)| (m.to_string(), rest.split(' ').next().unwrap_or("").to_string())).unwrap();
                    if !path.contains("/manifests/") || method == "HEAD" {
                        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                        return;
                    }
                    if path.starts_with("/v2/acme/big/") {
                        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/vnd.oci.image.manifest.v1+json\r\nContent-Length: 1610612736\r\nConnection: close\r\n\r\n{");
                        return;
                    }
                    // Chunked, no length: 64 KiB chunks until the client stops reading.
                    let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/vnd.oci.image.manifest.v1+json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
                    let chunk = vec![b' '; 64 << 10];
                    for _ in 0..(1536 << 4) {
                        if stream.write_all(format!("{:x}\r\n", chunk.len()).as_bytes()).and_then(|_| stream.write_all(&chunk)).and_then(|_| stream.write_all(b"\r\n")).is_err() {
                            return;
                        }
                        counter.fetch_add(chunk.len() as u64, Ordering::SeqCst);
                    }
                });
            }
        });
        (addr, sent)
    }

    #[tokio::test]
    async fn manifest_reads_are_capped_while_they_stream() {
        let (addr, sent) = misbehaving_registry();
        let remote = Remote::new(&OciLocation::parse(&format!("oci://{addr}"), false).unwrap()).unwrap();
        // Announced 1.5 GB: refused before reading the body.
        let err = remote.resolve("acme/big", "1.0.0").await.unwrap_err().to_string();
        assert_eq!(err, format!("{addr}: the manifest of acme/big:1.0.0 is 1610612736 bytes or more, over the 1048576-byte cap; refused without reading the rest"));
        // No digest header on HEAD and a body without length: the GET that follows stops at the cap.
        let err = remote.resolve("acme/stream", "1.0.0").await.unwrap_err().to_string();
        assert!(err.starts_with(&format!("{addr}: the manifest of acme/stream:1.0.0 is ")) && err.ends_with("bytes or more, over the 1048576-byte cap; refused without reading the rest"), "{err}");
        let digest = format!("sha256:{}", "0".repeat(64));
        let err = remote.fetch("acme/stream", &digest).await.unwrap_err().to_string();
        assert!(err.contains("over the 1048576-byte cap"), "{err}");
        // Give the server a moment to notice the hang-ups, then check what it got out.
        std::thread::sleep(std::time::Duration::from_millis(200));
        let total = sent.load(Ordering::SeqCst);
        assert!(total < 32 << 20, "the server pushed {total} bytes into two capped reads");
    }
}
