//! Reading a peer file's fields: each problem names where it is (`at`) and what to write.

use hookhost_types::Problem;
use super::*;

/// A peer's `env` (or `working_dir`) as the adapter takes it: strings only; anything else is a
/// problem naming it.
pub(super) fn string_map(at: &str, key: &str, v: Option<&Value>, problems: &mut Vec<Problem>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    match v {
        None => {}
        Some(Value::Object(map)) => {
            for (k, v) in map {
                match v.as_str() {
                    Some(text) => {
                        out.insert(k.clone(), text.to_string());
                    }
                    None => problems.push(Problem::at(format!("{at}.{key}.{k}"), format!("must be a string, not {}", hookhost_types::text::json_kind(v)))),
                }
            }
        }
        Some(other) => problems.push(Problem::at(format!("{at}.{key}"), format!("must be a map of strings, not {}", hookhost_types::text::json_kind(other)))),
    }
    out
}

/// A peer's HTTP hook: the bash adapter's `url` mode (it POSTs the dialect's JSON through
/// `wasi:http`, which the host lets out only under a `net:http:HOST[:PORT]` grant). `headers`
/// values may name the variables `allowedEnvVars` lists (Claude Code); the host fills them.
pub(super) fn http_executor(at: &str, dialect: Runtime, h: &Value, env: &BTreeMap<String, String>, problems: &mut Vec<Problem>) -> Option<RawExecutor> {
    let url = str_field(at, h, "url", problems)?;
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        problems.push(Problem::at(format!("{at}.url"), format!("{url:?} must be an http:// or https:// URL")));
        return None;
    }
    let mut settings = AdapterSettings { url: Some(url), dialect: Some(dialect), env: env.clone(), ..Default::default() };
    match h.get("headers") {
        None => {}
        Some(Value::Object(map)) if map.values().all(Value::is_string) => {
            settings.headers = map.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect();
        }
        Some(_) => {
            problems.push(Problem::at(format!("{at}.headers"), "must be an object of strings"));
            return None;
        }
    }
    match h.get("allowedEnvVars") {
        None => {}
        Some(Value::Array(names)) if names.iter().all(Value::is_string) => {
            settings.allowed_env_vars = names.iter().filter_map(Value::as_str).map(str::to_string).collect();
        }
        Some(_) => {
            problems.push(Problem::at(format!("{at}.allowedEnvVars"), "must be a list of variable names"));
            return None;
        }
    }
    Some(RawExecutor { plugin: "builtin:bash-adapter".into(), settings: Some(settings.to_json()), fuel: None, memory_mib: None })
}

/// Change a converted hook's bash-adapter settings through their type; settings of any other
/// shape stay as they are.
pub(super) fn edit_adapter(exec: &mut RawExecutor, edit: impl FnOnce(&mut AdapterSettings)) {
    use serde::Deserialize as _;
    let Some(Ok(mut settings)) = exec.settings.as_ref().map(AdapterSettings::deserialize) else { return };
    edit(&mut settings);
    exec.settings = Some(settings.to_json());
}

/// The exec form (`command` + `args`): the program and its arguments, no shell.
pub(super) fn exec_form(exec: &mut RawExecutor, program: &str, args: &[String]) {
    edit_adapter(exec, |settings| {
        settings.command = None;
        settings.argv = Some(std::iter::once(program.to_string()).chain(args.iter().cloned()).collect());
    });
}

/// A peer's `args`: a list of strings, else a problem.
pub(super) fn args_field(at: &str, h: &Value, problems: &mut Vec<Problem>) -> Option<Vec<String>> {
    let v = h.get("args")?;
    let list: Option<Vec<String>> = v.as_array().and_then(|a| a.iter().map(|i| i.as_str().map(str::to_string)).collect());
    if list.is_none() {
        problems.push(Problem::at(format!("{at}.args"), "must be a list of strings"));
    }
    list
}

/// Seconds (a peer's timeout) to milliseconds, up to hookhost's ceiling for peer hooks (600 s,
/// Claude Code's default); a longer one is capped with a warning.
pub(super) fn seconds(at: &str, v: Option<&Value>, default_s: u64, problems: &mut Vec<Problem>, warnings: &mut Vec<String>) -> u64 {
    let s = match v {
        None => default_s as f64,
        Some(v) => match v.as_f64() {
            Some(s) if s > 0.0 => s,
            _ => {
                problems.push(Problem::at(format!("{at}.timeout"), "must be a positive number of seconds"));
                default_s as f64
            }
        },
    };
    let max = *PEER_TIMEOUT_RANGE_MS.end();
    let ms = ((s * 1000.0) as u64).clamp(*PEER_TIMEOUT_RANGE_MS.start(), max);
    if s * 1000.0 > max as f64 {
        warnings.push(format!("{at}.timeout: {s} s is capped at hookhost's ceiling of {} s for peer hooks", max / 1000));
    }
    ms
}

pub(super) fn str_field(at: &str, h: &Value, key: &str, problems: &mut Vec<Problem>) -> Option<String> {
    match h.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        None => {
            problems.push(Problem::at(format!("{at}.{key}"), "required"));
            None
        }
        Some(_) => {
            problems.push(Problem::at(format!("{at}.{key}"), "must be a string"));
            None
        }
    }
}

pub(super) fn unknown_keys(at: &str, h: &Value, known: &[&str], problems: &mut Vec<Problem>) {
    if let Some(obj) = h.as_object() {
        for key in obj.keys().filter(|k| !known.contains(&k.as_str())) {
            problems.push(Problem::at(format!("{at}.{key}"), format!("unknown field; known fields are {}", known.join(", "))));
        }
    }
}

/// Keys a runtime does not document: ignored, one warning each (files in the wild carry
/// `description`, `blocking`, ...; the runtime ignores them too).
pub(super) fn ignored_keys(at: &str, h: &Value, known: &[&str], warnings: &mut Vec<String>) {
    if let Some(obj) = h.as_object() {
        for key in obj.keys().filter(|k| !known.contains(&k.as_str())) {
            warnings.push(format!("{at}.{key}: not a field this runtime documents; ignored"));
        }
    }
}

/// A handler object's `type` (`command` when it names none), with a warning for each key
/// `keys` does not list. `None` when there is nothing to run: not an object (a problem), or a
/// `prompt` handler (listed as not run). Cursor's and Antigravity CLI's flat handlers.
pub(super) fn handler_type<'a>(at: &str, event: &EventName, h: &'a Value, keys: &[&str], raw: &mut RawConfig, problems: &mut Vec<Problem>) -> Option<&'a str> {
    if !h.is_object() {
        problems.push(Problem::at(at.to_string(), format!("must be a hook object, not {}", hookhost_types::text::json_kind(h))));
        return None;
    }
    ignored_keys(at, h, keys, &mut raw.warnings);
    match h.get("type").and_then(Value::as_str).unwrap_or("command") {
        "prompt" => {
            raw.not_run.push(crate::NotRun { at: at.into(), event: event.config_name(), kind: "prompt".into(), why: "a prompt hook is text for a model; hookhost runs programs".into() });
            None
        }
        kind => Some(kind),
    }
}

/// A file's `"version": 1`, which GitHub Copilot CLI's and Cursor's hook files carry.
pub(super) fn version_one(doc: &Value, runtime: Runtime, problems: &mut Vec<Problem>) {
    match doc.get("version") {
        Some(v) if v.as_u64() == Some(1) => {}
        Some(v) => problems.push(Problem::at("version", format!("{v} is not a version hookhost reads; {} hook files are version 1", runtime.title()))),
        None => problems.push(Problem::at("version", "required (1)")),
    }
}

/// An entry's `matcher`, a pattern for the whole value (`^(?:PATTERN)$`) of what the event's
/// matchers test (Copilot's and Cursor's); none when it is empty or the event has nothing to
/// match.
pub(super) fn anchored_matcher(on: hookhost_types::runtime::MatchOn, h: &Value) -> Option<hookhost_types::matcher::MatcherSpec> {
    use hookhost_types::matcher::MatcherSpec;
    use hookhost_types::runtime::MatchOn as On;
    let pattern = h.get("matcher").and_then(Value::as_str).filter(|m| !m.is_empty()).map(|m| format!("^(?:{m})$"))?;
    match on {
        On::Nothing => None,
        On::Tool => Some(MatcherSpec { tool_pattern: Some(pattern), ..Default::default() }),
        On::Field(field) => Some(MatcherSpec { field: Some(field.to_string()), pattern: Some(pattern), ..Default::default() }),
    }
}
