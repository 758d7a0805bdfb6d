//! The chain behind `hookhost mcp` and `hookhost mcp proxy`: `hookhost serve`'s ([`App`]),
//! kept for a session that a config failing to load must not end — every event is then
//! answered with hookhost's failure until the files change and load.

use crate::serve::{config_stamp, App, Signal};
use crate::HostArgs;
use std::sync::{Arc, RwLock};
use std::time::Duration;

pub(crate) struct Chain {
    state: RwLock<Result<Arc<App>, String>>,
    args: HostArgs,
    request_timeout: Duration,
    stamp: std::sync::Mutex<Option<String>>,
}

impl Chain {
    /// Load the chain (or keep why it did not load).
    pub(crate) async fn start(args: &HostArgs, request_timeout: Duration) -> Chain {
        let stamp = config_stamp(args);
        let state = load(args, request_timeout).await;
        Chain { state: RwLock::new(state), args: args.clone(), request_timeout, stamp: std::sync::Mutex::new(stamp) }
    }

    /// The loaded chain, or why there is none.
    pub(crate) fn app(&self) -> Result<Arc<App>, String> {
        self.state.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Once a second: reload when the config's files changed (a chain that did not load is
    /// tried again then, not every second).
    pub(crate) async fn tick(&self) {
        let mut stamp = self.stamp.lock().unwrap_or_else(|p| p.into_inner()).clone();
        match self.app() {
            Ok(app) => app.tick(&mut stamp).await,
            Err(_) if config_stamp(&self.args) != stamp => {
                stamp = config_stamp(&self.args);
                self.retry().await;
            }
            Err(_) => {}
        }
        *self.stamp.lock().unwrap_or_else(|p| p.into_inner()) = stamp;
    }

    /// A signal: reload on SIGHUP; whether to stop.
    pub(crate) async fn on(&self, signal: Signal) -> bool {
        match signal {
            Signal::Reload => {
                match self.app() {
                    Ok(app) => crate::serve::reload(&app, "SIGHUP").await,
                    Err(_) => self.retry().await,
                }
                *self.stamp.lock().unwrap_or_else(|p| p.into_inner()) = config_stamp(&self.args);
                false
            }
            Signal::Stop => true,
        }
    }

    async fn retry(&self) {
        let state = load(&self.args, self.request_timeout).await;
        if state.is_ok() {
            eprintln!("hookhost mcp: config loaded");
        }
        *self.state.write().unwrap_or_else(|p| p.into_inner()) = state;
    }
}

async fn load(args: &HostArgs, request_timeout: Duration) -> Result<Arc<App>, String> {
    App::start("hookhost mcp", args, request_timeout, None).await.map_err(|e| {
        eprintln!("hookhost mcp: error: {e:#}");
        format!("{e:#}")
    })
}
