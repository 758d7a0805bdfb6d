//! This hook's state in the current session (`hookhost:hooks/state`, contract 0.3.0): string
//! keys and values the host keeps between events — and between the `hookhost run` processes
//! of one session — until the session ends or the value expires.
//!
//! Each hook sees only its own keys of the session it is called for. The host bounds what one
//! hook may keep (by default 1,024 keys, 256-byte keys, 64 KiB values, 1 MiB in all): a write
//! over a bound returns [`StateError::Quota`] and writes nothing. Values live 24 hours from
//! their last write unless a shorter TTL is given ([`set_for`]).
//!
//! Outside wasm (a hook's native unit tests) the same functions work on a map private to the
//! test's thread; [`clear`] empties it.
//!
//! ```
//! use hookhost_sdk::state;
//! # state::clear();
//! let n = state::incr("failures", 1).unwrap();
//! assert_eq!(n, 1);
//! state::set_json("last", &serde_json::json!({"tool": "bash"})).unwrap();
//! assert_eq!(state::get_json("last").unwrap().unwrap()["tool"], "bash");
//! ```

use serde_json::Value;
use std::time::Duration;

/// Why a state call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateError {
    /// Over one of the host's bounds; nothing was written.
    Quota(String),
    /// Not acceptable: an empty key, `incr` on a value that is not an integer.
    Invalid(String),
    /// The host's store cannot be reached (the message says why).
    Unavailable(String),
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateError::Quota(m) | StateError::Invalid(m) | StateError::Unavailable(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for StateError {}

impl From<StateError> for String {
    fn from(e: StateError) -> String {
        e.to_string()
    }
}

/// The value under `key`, if set and not expired.
pub fn get(key: &str) -> Result<Option<String>, StateError> {
    imp::get(key)
}

/// Set `key` to `value` (it lives the host's state TTL, 24 hours by default, or until the
/// session ends).
pub fn set(key: &str, value: &str) -> Result<(), StateError> {
    imp::set(key, value, None)
}

/// Set `key` to `value` for at most `ttl` (whole seconds; the host's TTL caps it).
pub fn set_for(key: &str, value: &str, ttl: Duration) -> Result<(), StateError> {
    imp::set(key, value, Some(ttl.as_secs().min(u64::from(u32::MAX)) as u32))
}

/// Delete `key`; nothing happens when it is not set.
pub fn delete(key: &str) -> Result<(), StateError> {
    imp::delete(key)
}

/// Add `delta` to the integer under `key` (not set: 0) and return the sum. Atomic: other
/// processes of the same session adding at the same time lose nothing.
pub fn incr(key: &str, delta: i64) -> Result<i64, StateError> {
    imp::incr(key, delta)
}

/// This hook's keys in this session that start with `prefix`, sorted.
pub fn keys(prefix: &str) -> Result<Vec<String>, StateError> {
    imp::keys(prefix)
}

/// The JSON value under `key` (a value that is not JSON is [`StateError::Invalid`]).
pub fn get_json(key: &str) -> Result<Option<Value>, StateError> {
    match get(key)? {
        None => Ok(None),
        Some(text) => serde_json::from_str(&text).map(Some).map_err(|e| StateError::Invalid(format!("state key {key:?} does not hold JSON: {e}"))),
    }
}

/// Set `key` to `value` as JSON text.
pub fn set_json(key: &str, value: &Value) -> Result<(), StateError> {
    set(key, &value.to_string())
}

/// Empty this thread's state (native builds: a hook's unit tests). Inside hookhost it does
/// nothing: a session's state ends with the session.
pub fn clear() {
    #[cfg(not(target_arch = "wasm32"))]
    imp::MAP.with(|m| m.borrow_mut().clear());
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::StateError;
    use crate::bindings::hookhost::hooks::state as s;

    fn err(e: s::StateError) -> StateError {
        match e {
            s::StateError::Quota(m) => StateError::Quota(m),
            s::StateError::Invalid(m) => StateError::Invalid(m),
            s::StateError::Unavailable(m) => StateError::Unavailable(m),
        }
    }

    pub fn get(key: &str) -> Result<Option<String>, StateError> {
        s::get(key).map_err(err)
    }
    pub fn set(key: &str, value: &str, ttl: Option<u32>) -> Result<(), StateError> {
        s::set(key, value, ttl).map_err(err)
    }
    pub fn delete(key: &str) -> Result<(), StateError> {
        s::delete(key).map_err(err)
    }
    pub fn incr(key: &str, delta: i64) -> Result<i64, StateError> {
        s::incr(key, delta, None).map_err(err)
    }
    pub fn keys(prefix: &str) -> Result<Vec<String>, StateError> {
        s::keys(prefix).map_err(err)
    }
}

/// Native builds: a map per thread, so a hook's unit tests can exercise its use of state.
#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::StateError;
    use std::cell::RefCell;
    use std::collections::BTreeMap;

    thread_local! {
        pub(super) static MAP: RefCell<BTreeMap<String, String>> = const { RefCell::new(BTreeMap::new()) };
    }

    fn key_ok(key: &str) -> Result<(), StateError> {
        if key.is_empty() {
            return Err(StateError::Invalid("a state key cannot be empty".into()));
        }
        Ok(())
    }

    pub fn get(key: &str) -> Result<Option<String>, StateError> {
        Ok(MAP.with(|m| m.borrow().get(key).cloned()))
    }
    pub fn set(key: &str, value: &str, _ttl: Option<u32>) -> Result<(), StateError> {
        key_ok(key)?;
        MAP.with(|m| m.borrow_mut().insert(key.to_string(), value.to_string()));
        Ok(())
    }
    pub fn delete(key: &str) -> Result<(), StateError> {
        MAP.with(|m| m.borrow_mut().remove(key));
        Ok(())
    }
    pub fn incr(key: &str, delta: i64) -> Result<i64, StateError> {
        key_ok(key)?;
        MAP.with(|m| {
            let mut m = m.borrow_mut();
            let current = match m.get(key) {
                None => 0,
                Some(v) => v.trim().parse::<i64>().map_err(|_| StateError::Invalid(format!("state key {key:?} holds {v:?}, not an integer: incr cannot add to it")))?,
            };
            let sum = current.checked_add(delta).ok_or_else(|| StateError::Invalid(format!("state key {key:?}: {current} + {delta} overflows a 64-bit integer")))?;
            m.insert(key.to_string(), sum.to_string());
            Ok(sum)
        })
    }
    pub fn keys(prefix: &str) -> Result<Vec<String>, StateError> {
        Ok(MAP.with(|m| m.borrow().keys().filter(|k| k.starts_with(prefix)).cloned().collect()))
    }
}
