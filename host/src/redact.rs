//! Secrets masked before an event is kept in the audit log (`audit_events = true`): the
//! built-in redactor's own scanner (`hookhost-secret-scan`, compiled here as well as into the
//! component), so a log never holds what the redaction hooks keep from the model.

use hookhost_secret_scan as scan;

use serde_json::Value;

/// Mask every secret in the strings of `value`, as the built-in redactor does; how many.
pub(crate) fn redact_json(value: &mut Value) -> usize {
    match value {
        Value::String(s) => match scan::redact(s) {
            Some((clean, n)) => {
                *s = clean;
                n
            }
            None => 0,
        },
        Value::Array(items) => items.iter_mut().map(redact_json).sum(),
        Value::Object(map) => map.values_mut().map(redact_json).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod redacted_events {
    use super::*;

    #[test]
    fn secrets_in_an_event_are_masked_as_the_redactor_masks_them() {
        let mut v = serde_json::json!({"tool_input": {"command": "curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789' x", "env": ["OPENAI_API_KEY=sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX"]}, "n": 3});
        assert_eq!(redact_json(&mut v), 2);
        let text = v.to_string();
        assert!(!text.contains("abcdefghijklmnopqrstuvwxyz0123456789") && !text.contains("sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX"), "{text}");
        assert!(text.contains("[REDACTED:api-key]"), "{text}");
    }
}
