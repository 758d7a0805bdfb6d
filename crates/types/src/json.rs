//! Reading event JSON leniently: whatever bytes a runtime sends, hookhost reads what it can and
//! says what it could not — it never turns a strange payload into no answer at all.
//!
//! Three things strict JSON reading refuses, and what is made of them here:
//! - bytes that are not UTF-8: each invalid sequence becomes U+FFFD (as `String::from_utf8_lossy`);
//! - a lone surrogate escape (`"\ud800"`, which JavaScript's `JSON.stringify` writes for a string
//!   holding half a pair, and which `serde_json` refuses): it becomes `\ufffd`;
//! - nesting deeper than [`MAX_DEPTH`] (serde_json refuses 128 levels, and a deeper value would
//!   cost stack to read and to drop): the array or object at that depth is replaced by the
//!   string [`TOO_DEEP`], and the caller judges the event unreadable — with its name, session
//!   and tool still read, so its answer can be the event's own block.

use serde_json::Value;
use std::borrow::Cow;

/// The deepest nesting read as it is; an array or object deeper than this is replaced by
/// [`TOO_DEEP`].
pub const MAX_DEPTH: usize = 100;

/// What stands in for a value nested deeper than [`MAX_DEPTH`].
pub const TOO_DEEP: &str = "\u{FFFD}[hookhost: nested deeper than 100 levels; not read]";

/// Text from bytes: UTF-8 as it is, every invalid sequence as U+FFFD.
pub fn text(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// Parse JSON text leniently (see the module docs); the error is serde_json's for text that is
/// not JSON at all.
pub fn parse(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str(&repair(text))
}

/// Whether `value` holds [`TOO_DEEP`] anywhere: part of it was nested too deep to read.
pub fn was_cut(value: &Value) -> bool {
    // The cut leaves at most MAX_DEPTH levels, so this recursion is bounded.
    match value {
        Value::String(s) => s == TOO_DEEP,
        Value::Array(items) => items.iter().any(was_cut),
        Value::Object(map) => map.values().any(was_cut),
        _ => false,
    }
}

/// `text` with lone surrogate escapes written as `\ufffd` and containers deeper than
/// [`MAX_DEPTH`] replaced by [`TOO_DEEP`]; borrowed when there is nothing to change.
pub fn repair(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    // Made at the first change: the common case (nothing to mend) copies nothing.
    let mut out: Option<String> = None;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = 0;
    // `copied`: the end of the text already in `out`.
    let mut copied = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' if bytes.get(i + 1) == Some(&b'u') => {
                    if let Some(unit) = hex4(bytes, i + 2) {
                        let pair = (0xD800..0xDC00).contains(&unit)
                            && bytes.get(i + 6..i + 8) == Some(&b"\\u"[..])
                            && hex4(bytes, i + 8).is_some_and(|low| (0xDC00..0xE000).contains(&low));
                        if pair {
                            i += 12;
                            continue;
                        }
                        if (0xD800..0xE000).contains(&unit) {
                            let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
                            out.push_str(&text[copied..i]);
                            out.push_str("\\ufffd");
                            i += 6;
                            copied = i;
                            continue;
                        }
                    }
                    i += 2;
                }
                b'\\' => i += 2,
                b'"' => {
                    in_string = false;
                    i += 1;
                }
                _ => i += 1,
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    // Replace this whole container by the marker.
                    let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
                    out.push_str(&text[copied..i]);
                    out.push_str(&serde_json::to_string(TOO_DEEP).expect("a string serialises"));
                    i = container_end(bytes, i);
                    copied = i;
                    depth -= 1;
                    continue;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut out) => {
            out.push_str(&text[copied.min(text.len())..]);
            Cow::Owned(out)
        }
    }
}

/// The four hex digits at `at`, if there are.
fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = std::str::from_utf8(bytes.get(at..at + 4)?).ok()?;
    u32::from_str_radix(digits, 16).ok().filter(|_| digits.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The index just past the container opening at `start` (strings skipped), or the text's end
/// when it never closes.
fn container_end(bytes: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'[' | b'{' => depth += 1,
                b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return i + 1;
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lone_surrogates_become_replacement_characters_and_pairs_stay() {
        assert_eq!(parse(r#"{"c":"rm -rf ~ \ud800"}"#).unwrap(), json!({"c": "rm -rf ~ \u{FFFD}"}));
        assert_eq!(parse(r#"{"c":"\uDC00x\udbff"}"#).unwrap(), json!({"c": "\u{FFFD}x\u{FFFD}"}));
        // A valid pair is a character; an escaped backslash before `ud800` is text, not an escape.
        assert_eq!(parse(r#"{"c":"\ud83d\ude00 \\ud800"}"#).unwrap(), json!({"c": "😀 \\ud800"}));
        // A high surrogate followed by another high one: both lone.
        assert_eq!(parse(r#"["\ud800\ud800"]"#).unwrap(), json!(["\u{FFFD}\u{FFFD}"]));
        // Nothing to mend: borrowed.
        assert!(matches!(repair(r#"{"a":[1,"\u0041"]}"#), Cow::Borrowed(_)));
    }

    #[test]
    fn nesting_past_the_limit_is_cut_and_said() {
        let deep = |n: usize| format!("{{\"tool_input\":{{\"a\":{}1{}}},\"x\":\"]]\"}}", "[".repeat(n), "]".repeat(n));
        // Up to the limit (2 levels of objects above the arrays): read as it is.
        let v = parse(&deep(MAX_DEPTH - 2)).unwrap();
        assert!(!was_cut(&v));
        let v = parse(&deep(MAX_DEPTH - 1)).unwrap();
        assert!(was_cut(&v), "{v}");
        assert_eq!(v["x"], "]]", "the rest of the event is read");
        // Far past serde_json's own limit, and with brackets inside strings: still read, and cut.
        let v = parse(&format!("{{\"a\":{}\"[{{\"{}}}", "[".repeat(100_000), "]".repeat(100_000))).unwrap();
        assert!(was_cut(&v));
        // A container that never closes is cut to the end (then it is not JSON).
        assert!(parse(&"[".repeat(200)).is_err());
    }

    #[test]
    fn bytes_that_are_not_utf8_are_replaced() {
        assert_eq!(parse(&text(b"{\"c\":\"a\xffb\"}")).unwrap(), json!({"c": "a\u{FFFD}b"}));
    }
}
