//! `remember` without its state calls: passes every call.
const REMEMBER: bool = false;
include!("../../remember/src/hook.rs");
