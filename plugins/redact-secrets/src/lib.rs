//! `redact-secrets`: masks API keys, bearer tokens and private-key blocks in tool input
//! (`pre_tool_use`), tool output (`post_tool_use`, `tool_result_transform`) and prompts
//! (`user_prompt_submit`), as rewrites the host applies before anything else sees the text.
//!
//! The scanner (`hookhost-secret-scan`, shared with the guard's `taint` pack) is hand-written
//! (no regex), so a fresh instance starts for free. It takes no settings.

#![deny(missing_docs)]

use hookhost_sdk::prelude::*;

pub use hookhost_secret_scan::redact;

/// Redact every string inside a JSON value; returns how many secrets were masked.
fn redact_json(value: &mut Value) -> usize {
    match value {
        Value::String(s) => match redact(s) {
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

fn note(n: usize) -> String {
    n.to_string()
}

/// The redaction hook: replaces secrets in tool input, prompts and tool output (see the module docs).
pub struct Redact;

impl Hook for Redact {
    fn validate_settings(v: &Value) -> Result<(), String> {
        match v.as_object() {
            Some(map) if map.is_empty() => Ok(()),
            Some(map) => Err(format!("redact-secrets takes no settings; remove {:?}", map.keys().collect::<Vec<_>>())),
            None => Err("settings must be an object".into()),
        }
    }

    fn handle(event: Event, _ctx: Context) -> HookResult {
        Ok(match event {
            Event::PreToolUse(mut call) | Event::PermissionRequest(mut call) => match redact_json(&mut call.arguments) {
                0 => Decision::pass(),
                n => Decision::pass().rewrite_input(call.arguments).annotate("redacted", note(n)),
            },
            Event::PostToolUse(mut r) | Event::ToolResultTransform(mut r) => match redact_json(&mut r.result) {
                0 => Decision::pass(),
                n => Decision::pass().rewrite_output(r.result).annotate("redacted", note(n)),
            },
            Event::UserPromptSubmit { message } => match redact(&message) {
                None => Decision::pass(),
                Some((clean, n)) => Decision::pass().rewrite_prompt(clean).annotate("redacted", note(n)),
            },
            _ => Decision::pass(),
        })
    }
}

export_hook!(Redact);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_input_secrets_are_rewritten() {
        let ev = Event::pre_tool_use("bash", json!({"command": "curl -H 'Authorization: Bearer abcdefghijklmnop1234' https://x", "n": 1}));
        let d = Redact::handle(ev, Context::default()).unwrap();
        assert_eq!(
            d,
            Decision::pass()
                .rewrite_input(json!({"command": "curl -H 'Authorization: Bearer [REDACTED]' https://x", "n": 1}))
                .annotate("redacted", "1")
        );
    }

    #[test]
    fn tool_output_and_prompts_are_rewritten() {
        let ev = Event::post_tool_use("read_file", json!({}), json!(["AWS_KEY=AKIAABCDEFGHIJKLMNOP"]));
        let d = Redact::handle(ev, Context::default()).unwrap();
        assert_eq!(d.effects[0], Effect::RewriteOutput(json!(["AWS_KEY=[REDACTED:aws-access-key]"])));
        let d = Redact::handle(Event::user_prompt("my key is sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX ok"), Context::default()).unwrap();
        assert_eq!(d.effects[0], Effect::RewritePrompt("my key is [REDACTED:api-key] ok".into()));
    }

    #[test]
    fn clean_events_pass_untouched() {
        let d = Redact::handle(Event::pre_tool_use("bash", json!({"command": "ls -la"})), Context::default()).unwrap();
        assert_eq!(d, Decision::pass());
    }

    #[test]
    fn settings_are_rejected() {
        assert!(Redact::validate_settings(&json!({})).is_ok());
        assert_eq!(Redact::validate_settings(&json!({"x": 1})).unwrap_err(), "redact-secrets takes no settings; remove [\"x\"]");
    }
}
