//! # hookhost-sdk
//!
//! Write [hookhost](https://github.com/hookhost) hooks in Rust. A hook is a type implementing
//! [`Hook`], exported with [`export_hook!`]; the SDK hides wit-bindgen, so the types a hook sees
//! are ordinary Rust structs that can be built and tested natively with `cargo test`.
//!
//! ```
//! use hookhost_sdk::prelude::*;
//!
//! struct Guard;
//! impl Hook for Guard {
//!     fn handle(event: Event, _ctx: Context) -> HookResult {
//!         Ok(match event.shell_command() {
//!             Some(cmd) if cmd.contains("rm -rf /") => Decision::block("rm -rf / is not allowed"),
//!             _ => Decision::pass(),
//!         })
//!     }
//! }
//! // export_hook!(Guard);   // in the plugin crate, once
//!
//! let ev = Event::pre_tool_use("bash", serde_json::json!({"command": "rm -rf / --no-preserve-root"}));
//! assert!(Guard::handle(ev, Context::default()).unwrap().is_block());
//! ```

#![deny(missing_docs)]

mod decision;
mod event;
#[cfg(all(target_arch = "wasm32", target_os = "unknown", feature = "heap"))]
mod heap;
pub mod log;
#[cfg(feature = "process")]
pub mod process;
pub mod state;

#[doc(hidden)]
pub mod bindings;

pub use decision::{Decision, Effect, Verdict};
pub use event::{Compact, Context, Event, Stop, ToolCall, ToolResult};
pub use serde_json::{self, json, Value};

/// What a hook's `handle` returns: a decision, or an error message that the host's `on_error`
/// policy turns into block / allow / warn. An error is never a block by itself.
pub type HookResult = Result<Decision, String>;

/// A hook plugin. Implement `handle`; override `validate_settings` to reject bad settings at load.
pub trait Hook {
    /// Called once when the host loads the hook. Return `Err` with a message naming the bad field.
    fn validate_settings(settings: &Value) -> Result<(), String> {
        let _ = settings;
        Ok(())
    }

    /// Decide on one event. A fresh instance handles every event, so keep start-up work cheap.
    fn handle(event: Event, ctx: Context) -> HookResult;
}

/// Everything a hook file usually needs.
pub mod prelude {
    pub use crate::{export_hook, json, Context, Decision, Effect, Event, Hook, HookResult, ToolCall, ToolResult, Value, Verdict};
}

/// Export a [`Hook`] implementation as this component's `hookhost:hooks/handler`.
///
/// Use it once per plugin crate, a `cdylib` built either lean — for `wasm32-unknown-unknown`
/// with the toolchain's `wasm-component-ld` as linker: one core module that imports nothing but
/// hookhost's interfaces, the cheapest to instantiate; panics reach the host through `log` — or
/// for `wasm32-wasip2`, when the hook uses WASI (stdio, clocks, randomness, environment).
#[macro_export]
macro_rules! export_hook {
    ($hook:ty) => {
        // The export glue only exists in the wasm build; native builds (unit tests) skip it.
        #[cfg(target_arch = "wasm32")]
        #[doc(hidden)]
        struct __HookhostExport;

        #[cfg(target_arch = "wasm32")]
        impl $crate::bindings::exports::hookhost::hooks::handler::Guest for __HookhostExport {
            fn validate_settings(settings: ::std::string::String) -> ::std::result::Result<(), ::std::string::String> {
                $crate::bindings::validate_settings::<$hook>(&settings)
            }

            fn handle(
                event: $crate::bindings::hookhost::hooks::types::Event,
                ctx: $crate::bindings::hookhost::hooks::types::Context,
            ) -> ::std::result::Result<$crate::bindings::hookhost::hooks::types::Decision, ::std::string::String> {
                $crate::bindings::handle::<$hook>(event, ctx)
            }
        }

        #[cfg(target_arch = "wasm32")]
        $crate::bindings::__export_hook_world!(__HookhostExport with_types_in $crate::bindings);
    };
}
