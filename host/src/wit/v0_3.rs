//! `hookhost:hooks@0.3.0`, the newest contract: 0.2.0 plus the `state` interface. Its `types`,
//! `log` and `process` did not change, so bindgen's `with` maps them onto 0.2.0's bindings
//! ([`super::v0_2`]): a 0.3.0 hook's event, context and decision are the very values a 0.2.0
//! hook's are, converted and checked by the same code. Only `state` is this module's own; its
//! host side is in `plugin/state.rs`, over the store in `kv.rs`.

wasmtime::component::bindgen!({
    path: "../wit/0.3.0/hooks.wit",
    world: "shell-hook",
    exports: { default: async },
    with: {
        "hookhost:hooks/types@0.3.0": crate::wit::v0_2::hookhost::hooks::types,
        "hookhost:hooks/log@0.3.0": crate::wit::v0_2::log,
        "hookhost:hooks/process@0.3.0": crate::wit::v0_2::process,
    },
});

pub use self::hookhost::hooks::state;

/// `hookhost:hooks/<interface>@` this version: the one place the version is written.
macro_rules! interface {
    ($name:literal) => {
        concat!("hookhost:hooks/", $name, "@0.3.0")
    };
}

/// The WIT package (and version) of this module.
pub const PACKAGE: &str = "hookhost:hooks@0.3.0";
const _: () = assert!(super::konst_eq(PACKAGE, hookhost_types::WIT_PACKAGE), "hookhost-types names the newest contract this host speaks");
/// The exported interface every 0.3.0 hook plugin has.
pub const HANDLER_EXPORT: &str = interface!("handler");
/// Its log interface.
pub const LOG_IMPORT: &str = interface!("log");
/// Its shared types interface.
pub const TYPES_IMPORT: &str = interface!("types");
/// Its process interface (capability `process:exec`).
pub const PROCESS_IMPORT: &str = interface!("process");
/// Its state interface (every hook's own, bounded by the host).
pub const STATE_IMPORT: &str = interface!("state");
