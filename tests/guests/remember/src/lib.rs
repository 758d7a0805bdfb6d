//! Keeps the session's last shell command in `state` and blocks a repeat ("again: CMD").
const REMEMBER: bool = true;
include!("hook.rs");
