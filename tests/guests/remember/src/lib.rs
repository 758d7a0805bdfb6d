//! Keeps the session's last shell command in `state` and blocks a repeat ("again: CMD"); the
//! prompt `churn` writes until the call is stopped (the crash test of `hookhost run`).
const REMEMBER: bool = true;
include!("hook.rs");
