//! The hook contract (WIT), one module per version, each holding its private generated
//! bindings and its conversions to and from `hookhost-types`' values (Zed's
//! one-module-per-WIT-version layout). This hookhost speaks `v0_1`.
//!
//! A new version goes beside it: `v0_2.rs` with its own `bindgen!` (from its own WIT file) and
//! conversions to the same `HookEvent` / `Decision`, and the loader picks the module by the
//! version of the `handler` export a component has (see `plugin::check_shape`).

mod v0_1;

pub use v0_1::*;
