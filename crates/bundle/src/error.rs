//! Why a bundle was refused or could not be had: a kind an embedder can match on, one message
//! that names the bundle (or file) and what to do, and the underlying cause when there is one.

use std::error::Error as StdError;
use std::fmt;

/// What kind of failure a [`BundleError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The archive, manifest or source directory is malformed or over a limit.
    Invalid,
    /// Bytes do not match their digest: a file, the manifest, a blob or a cache entry was
    /// altered or damaged.
    Integrity,
    /// The trust policy refused it (unknown key, key not allowed for the name, too few
    /// signers, a replayed or altered signature).
    Untrusted,
    /// It carries no signature and the trust policy requires one.
    Unsigned,
    /// The registry does not have it.
    NotFound,
    /// The registry could not be reached.
    Unreachable,
    /// The registry refused the request or answered with something that is not a bundle
    /// (authentication, wrong media type, protocol errors).
    Registry,
    /// The lock file is missing, unreadable, or does not pin a reference under `Locked`.
    Lock,
    /// A local file or directory could not be read or written.
    Io,
    /// The bundles' hooks or the trust configuration have problems.
    Config,
    /// The version, or every key that signed it, was revoked by a trusted signed revocation.
    Revoked,
}

/// Why a bundle was refused. Nothing of a refused bundle was compiled or cached.
#[derive(Debug)]
pub struct BundleError {
    kind: ErrorKind,
    message: String,
    source: Option<Box<dyn StdError + Send + Sync + 'static>>,
}

impl BundleError {
    /// An error of `kind` with its message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> BundleError {
        BundleError { kind, message: message.into(), source: None }
    }

    /// The same error, with its underlying cause.
    pub fn with_source(mut self, source: impl StdError + Send + Sync + 'static) -> BundleError {
        self.source = Some(Box::new(source));
        self
    }

    /// What kind of failure it is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message (without the cause chain).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error with `prefix: ` before its message (which bundle, which file).
    pub fn context(mut self, prefix: impl fmt::Display) -> BundleError {
        self.message = format!("{prefix}: {}", self.message);
        self
    }
}

impl fmt::Display for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl StdError for BundleError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn StdError + 'static))
    }
}

pub(crate) fn invalid(message: impl Into<String>) -> BundleError {
    BundleError::new(ErrorKind::Invalid, message)
}
