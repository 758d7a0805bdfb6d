//! Text from plugins made safe to print: a guest's log line, reason or stderr must not be able
//! to forge a second log line or drive the terminal.

use std::borrow::Cow;

/// `text` with every control character (newlines, carriage returns, ESC, ...) written as its
/// Rust escape (`\n`, `\r`, `\u{1b}`), so it prints as one inert line. Borrowed when there is
/// nothing to escape.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// What kind of JSON value this is, for messages ("a string", "an array").
pub fn json_kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A name configs may use as a hook id, capability id or custom event name: non-empty ASCII
/// letters, digits, `_`, `-` and `.`.
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(printable("plain — ünïcode"), "plain — ünïcode");
        assert_eq!(printable("ok\n2026-01-01T00:00:00Z  INFO forged"), "ok\\n2026-01-01T00:00:00Z  INFO forged");
        assert_eq!(printable("\u{1b}[2J\u{1b}]0;title\u{7}\r"), "\\u{1b}[2J\\u{1b}]0;title\\u{7}\\r");
    }
}
