//! The signals the daemon heeds: reload and stop.

/// What the daemon is told from outside.
pub(crate) enum Signal {
    /// Load the config again (SIGHUP).
    #[cfg_attr(not(unix), allow(dead_code))]
    Reload,
    /// Stop accepting, finish what is in flight (SIGTERM, SIGINT, Ctrl-C).
    Stop,
}

/// The signals the daemon heeds: on unix SIGHUP, SIGTERM and SIGINT; elsewhere Ctrl-C stops it
/// (and it reloads when its config file changes, as everywhere).
pub(crate) struct Signals {
    #[cfg(unix)]
    hangup: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
}

impl Signals {
    /// Set up before anyone is told the daemon is up.
    pub(crate) fn new() -> std::io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(Signals { hangup: signal(SignalKind::hangup())?, terminate: signal(SignalKind::terminate())?, interrupt: signal(SignalKind::interrupt())? })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// The next signal (cancel-safe: nothing is lost when another event wins a `select!`).
    pub(crate) async fn next(&mut self) -> Signal {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.hangup.recv() => Signal::Reload,
                _ = self.terminate.recv() => Signal::Stop,
                _ = self.interrupt.recv() => Signal::Stop,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            Signal::Stop
        }
    }
}
