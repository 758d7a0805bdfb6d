//! Matchers run in the host before any instance is created (docs/CONFIG.md, "Matchers"; Everruns' user_hooks contract):
//! a miss costs a few string comparisons, never a wasm instantiation.

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The matcher block of a hook, as written in config.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MatcherSpec {
    /// Exact tool name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// `a|b|c` alternation; an alternative may end in `*` (prefix match); `*` alone matches all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name_glob: Option<String>,
    /// Dot path into the tool arguments: `$.command`, `$.a.b`, `$.items[0]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args_jsonpath: Option<String>,
    /// Fires when the extracted value matches (Rust regex flavour).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_regex: Option<String>,
    /// Also fires when the extracted value matches; names a deny pattern (Everruns' `guard_rm` example).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny_regex: Option<String>,
    /// A Claude Code / docker-agent matcher: `*`, `""` = every tool; only letters, digits, `_`,
    /// `-`, `,`, `|` and spaces = exact names separated by `|` or `,`; anything else = an
    /// unanchored regex on the tool name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_pattern: Option<String>,
    /// A Claude Code permission rule narrowing the hook: `Bash(rm *)`, `Edit(*.ts)`, `Read`.
    #[serde(default, rename = "if", skip_serializing_if = "Option::is_none")]
    pub if_rule: Option<String>,
    /// Starchild: a regex over the event's JSON text; allowed on every event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_regex: Option<String>,
    /// A field of the event's data that `pattern` is tested on (`source` of `session_start`,
    /// `kind` of `notification`, `trigger` of `pre_compact`, ...); allowed on every event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// A Claude Code matcher tested on `field`, with `tool_pattern`'s rules: `*` or `""` =
    /// any value; only letters, digits, `_`, `-`, `,`, `|` and spaces = exact values
    /// separated by `|` or `,` (`startup|resume`); anything else = an unanchored regex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
}

/// One step of a parsed `args_jsonpath`.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// How a Claude-style tool pattern matches.
#[derive(Debug, Clone)]
enum ToolPattern {
    Any,
    Names(Vec<String>),
    Regex(Regex),
}

/// A compiled Claude Code permission rule: `Tool` or `Tool(glob)`.
#[derive(Debug, Clone)]
struct IfRule {
    tool: String,
    glob: Option<String>,
    /// The glob read as a path pattern, for the file tools' rules.
    path: Option<path_rule::PathRule>,
}

/// Claude Code's file tools, whose rules name paths.
fn is_file_tool(tool: &str) -> bool {
    matches!(tool, "Edit" | "Write" | "Read" | "MultiEdit" | "NotebookEdit")
}

/// Whether a file rule for `rule_tool` applies to a `tool` call: an `Edit` rule to every tool
/// that edits files (its permissions reference, "Read and Edit"), the others to their own tool.
fn file_rule_covers(rule_tool: &str, tool: &str) -> bool {
    rule_tool == tool || (rule_tool == "Edit" && matches!(tool, "Write" | "MultiEdit" | "NotebookEdit"))
}

/// A compiled matcher.
#[derive(Debug, Clone)]
pub struct Matcher {
    tool_name: Option<String>,
    glob: Option<Vec<String>>,
    path: Option<Vec<Step>>,
    regex: Option<Regex>,
    pattern: Option<ToolPattern>,
    if_rule: Option<IfRule>,
    payload: Option<Regex>,
    field: Option<(String, ToolPattern)>,
}

fn compile_regex(field: &'static str, text: &str, problems: &mut Vec<(&'static str, String)>) -> Option<Regex> {
    match Regex::new(text) {
        Ok(re) => Some(re),
        Err(e) => {
            let first = e.to_string().lines().last().unwrap_or("").trim().to_string();
            problems.push((field, format!("invalid regex {text:?}: {first}")));
            None
        }
    }
}

fn tool_pattern(text: &str, problems: &mut Vec<(&'static str, String)>) -> Option<ToolPattern> {
    claude_pattern("tool_pattern", text, problems)
}

/// Claude Code's matcher rules (its hooks reference, "Matcher patterns"), for any field.
fn claude_pattern(field: &'static str, text: &str, problems: &mut Vec<(&'static str, String)>) -> Option<ToolPattern> {
    let t = text.trim();
    if t.is_empty() || t == "*" {
        return Some(ToolPattern::Any);
    }
    if t.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ',' | '|' | ' ')) {
        return Some(ToolPattern::Names(t.split(['|', ',']).map(|n| n.trim().to_string()).filter(|n| !n.is_empty()).collect()));
    }
    // Claude Code compiles matchers as JavaScript regular expressions, where a brace that does
    // not open a `{n}`, `{n,}` or `{n,m}` quantifier is a literal character; Rust's regex
    // would refuse it, so such braces are escaped first.
    compile_regex(field, &js_literal_braces(t), problems).map(ToolPattern::Regex)
}

/// Escape the braces of `re` that JavaScript reads as literals (not part of a quantifier).
fn js_literal_braces(re: &str) -> String {
    let bytes = re.as_bytes();
    // `{` digits [`,` digits] `}` starting at `i`: the index of its closing brace.
    let quantifier = |i: usize| -> Option<usize> {
        let digits = |mut j: usize| {
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            j
        };
        let mut j = digits(i + 1);
        if j == i + 1 {
            return None;
        }
        if bytes.get(j) == Some(&b',') {
            j = digits(j + 1);
        }
        (bytes.get(j) == Some(&b'}')).then_some(j)
    };
    let mut out = String::with_capacity(re.len() + 4);
    let mut closing = None;
    let mut escaped = false;
    for (i, c) in re.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '{' => match quantifier(i) {
                Some(end) => closing = Some(end),
                None => {
                    out.push_str("\\{");
                    continue;
                }
            },
            '}' if closing == Some(i) => closing = None,
            '}' => {
                out.push_str("\\}");
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

impl ToolPattern {
    fn matches(&self, value: &str) -> bool {
        match self {
            ToolPattern::Any => true,
            ToolPattern::Names(names) => names.iter().any(|n| n == value),
            ToolPattern::Regex(re) => re.is_match(value),
        }
    }
}

fn if_rule(text: &str, problems: &mut Vec<(&'static str, String)>) -> Option<IfRule> {
    let t = text.trim();
    let (tool, glob) = match t.split_once('(') {
        Some((tool, rest)) => match rest.strip_suffix(')') {
            Some(glob) => (tool, Some(glob.to_string())),
            None => {
                problems.push(("if", format!("{t:?} is not a permission rule; use Tool or Tool(pattern), e.g. \"Bash(rm *)\"")));
                return None;
            }
        },
        None => (t, None),
    };
    if tool.is_empty() || !tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        problems.push(("if", format!("{t:?} is not a permission rule; use Tool or Tool(pattern), e.g. \"Bash(rm *)\"")));
        return None;
    }
    let path = glob.as_deref().filter(|_| is_file_tool(tool)).map(path_rule::PathRule::parse);
    Some(IfRule { tool: tool.to_string(), glob, path })
}

/// A `Bash(...)` rule matches a command line when it matches the line as written or any simple
/// command in it, as Claude Code checks each subcommand: `ls; rm -rf b`, `FOO=1 rm -rf b`,
/// `cd /tmp && rm -rf b`, `true || rm -rf b` and `$(rm -rf b)` all match `Bash(rm *)`. Wrappers
/// and strings are unwrapped exactly as the guard unwraps them (`sudo rm …`, `env X=1 rm …`,
/// `timeout 5 rm …`, `bash -c 'rm …'`, `xargs rm …`, `/bin/rm …`: the shell-parse crate's one
/// table). The line is read with the same shell parser as the guard; a line it cannot parse
/// matches (a hook that guards must rather run too often than not at all). `prefix:*` is Claude
/// Code's older prefix form (`Bash(npm run test:*)`).
fn shell_rule_matches(glob: &str, line: &str) -> bool {
    let one = |command: &str| match glob.strip_suffix(":*") {
        Some(prefix) => command == prefix || command.starts_with(&format!("{prefix} ")),
        None => glob_match(glob, command),
    };
    if one(line.trim()) {
        return true;
    }
    match hookhost_shell_parse::every_command(line) {
        Ok(commands) => commands.iter().any(|words| one(&words.join(" "))),
        Err(_) => true,
    }
}

/// `*` matches any run of characters, `?` one; everything else literally.
fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

impl IfRule {
    /// The rule's subject for a tool call: the command of a shell tool, the path of a file tool
    /// (matched as a path pattern, from the session's `cwd`: [`path_rule`]), else the first
    /// string argument.
    fn matches(&self, tool: &str, args: Option<&Value>, cwd: Option<&str>) -> bool {
        if self.tool != tool && !(self.path.is_some() && file_rule_covers(&self.tool, tool)) {
            return false;
        }
        let Some(glob) = &self.glob else { return true };
        let get = |k: &str| args.and_then(|a| a.get(k)).and_then(Value::as_str);
        if let Some(rule) = &self.path {
            let Some(path) = get("file_path").or_else(|| get("notebook_path")).or_else(|| get("path")) else { return false };
            return rule.matches(path, cwd, path_rule::home().as_deref(), path_rule::host_folds_case());
        }
        let subject = match tool {
            "Bash" | "bash" | "shell" => get("command").or_else(|| get("cmd")),
            "WebFetch" => get("url"),
            _ => args.and_then(Value::as_object).and_then(|o| o.values().find_map(Value::as_str)),
        };
        let Some(subject) = subject else { return false };
        if matches!(tool, "Bash" | "bash" | "shell") {
            return shell_rule_matches(glob, subject);
        }
        glob_match(glob, subject)
    }
}

impl MatcherSpec {
    /// True when only event matchers are set (`payload_regex`, `field` + `pattern`): the
    /// matchers allowed on events without a tool call.
    pub fn is_event_only(&self) -> bool {
        (self.payload_regex.is_some() || self.field.is_some())
            && self.tool_name.is_none()
            && self.tool_name_glob.is_none()
            && self.args_jsonpath.is_none()
            && self.match_regex.is_none()
            && self.deny_regex.is_none()
            && self.tool_pattern.is_none()
            && self.if_rule.is_none()
    }

    /// Compile, collecting every problem as `(field, message)`.
    pub fn compile(&self) -> Result<Matcher, Vec<(&'static str, String)>> {
        let mut problems = Vec::new();
        if self.match_regex.is_some() && self.deny_regex.is_some() {
            problems.push(("match_regex", "match_regex and deny_regex are mutually exclusive; keep one".to_string()));
        }
        let (regex_field, regex_text) = match (&self.match_regex, &self.deny_regex) {
            (Some(r), _) => ("match_regex", Some(r)),
            (None, Some(r)) => ("deny_regex", Some(r)),
            (None, None) => ("match_regex", None),
        };
        let regex = regex_text.and_then(|text| compile_regex(regex_field, text, &mut problems));
        if regex_text.is_some() && self.args_jsonpath.is_none() {
            problems.push((regex_field, format!("{regex_field} needs args_jsonpath to say which argument to test (e.g. \"$.command\")")));
        }
        let path = self.args_jsonpath.as_ref().and_then(|p| match parse_path(p) {
            Ok(steps) => Some(steps),
            Err(msg) => {
                problems.push(("args_jsonpath", msg));
                None
            }
        });
        let glob = self.tool_name_glob.as_ref().map(|g| g.split('|').map(|alt| alt.trim().to_string()).collect::<Vec<_>>());
        if let Some(alts) = &glob {
            for alt in alts {
                if alt.is_empty() || alt[..alt.len() - 1].contains('*') {
                    problems.push(("tool_name_glob", format!("{:?} is not a restricted glob: use a|b|c alternatives, each a name or a name ending in *", self.tool_name_glob.as_deref().unwrap_or(""))));
                    break;
                }
            }
        }
        let pattern = self.tool_pattern.as_deref().and_then(|p| tool_pattern(p, &mut problems));
        let if_rule = self.if_rule.as_deref().and_then(|r| if_rule(r, &mut problems));
        let payload = self.payload_regex.as_deref().and_then(|r| compile_regex("payload_regex", r, &mut problems));
        let field = match (&self.field, &self.pattern) {
            (Some(field), Some(p)) if !field.is_empty() => claude_pattern("pattern", p, &mut problems).map(|p| (field.clone(), p)),
            (Some(_), Some(_)) => {
                problems.push(("field", "is empty; name a field of the event's data, e.g. \"source\"".to_string()));
                None
            }
            (Some(_), None) => {
                problems.push(("pattern", "is required with field (e.g. pattern = \"startup|resume\")".to_string()));
                None
            }
            (None, Some(_)) => {
                problems.push(("field", "is required with pattern: name the event field it is tested on (e.g. field = \"source\")".to_string()));
                None
            }
            (None, None) => None,
        };
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Matcher { tool_name: self.tool_name.clone(), glob, path, regex, pattern, if_rule, payload, field })
    }
}

fn parse_path(text: &str) -> Result<Vec<Step>, String> {
    let bad = || format!("invalid args_jsonpath {text:?}: use a dot path such as \"$.command\" or \"$.files[0].path\"");
    let rest = text.strip_prefix('$').ok_or_else(bad)?;
    let mut steps = Vec::new();
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '.' => {
                let mut key = String::new();
                while let Some(&n) = chars.peek() {
                    if n == '.' || n == '[' {
                        break;
                    }
                    key.push(n);
                    chars.next();
                }
                if key.is_empty() {
                    return Err(bad());
                }
                steps.push(Step::Key(key));
            }
            '[' => {
                let mut digits = String::new();
                for n in chars.by_ref() {
                    if n == ']' {
                        break;
                    }
                    digits.push(n);
                }
                steps.push(Step::Index(digits.parse().map_err(|_| bad())?));
            }
            _ => return Err(bad()),
        }
    }
    Ok(steps)
}

impl Matcher {
    /// Whether a hook with this matcher fires for this event.
    pub fn matches_event(&self, ev: &crate::HookEvent) -> bool {
        if let Some(re) = &self.payload {
            if !re.is_match(&serde_json::to_string(&ev.data).unwrap_or_default()) {
                return false;
            }
        }
        if let Some((field, pattern)) = &self.field {
            // A missing field is an empty value: only "match all" patterns fire on it.
            let value = match ev.data.get(field) {
                Some(Value::String(s)) => std::borrow::Cow::Borrowed(s.as_str()),
                Some(Value::Null) | None => std::borrow::Cow::Borrowed(""),
                Some(other) => std::borrow::Cow::Owned(other.to_string()),
            };
            if !pattern.matches(&value) {
                return false;
            }
        }
        // Tool parts (none on a lifecycle event's matcher) test the call, if any.
        self.matches_in(ev.tool_name(), ev.arguments(), ev.cwd.as_deref())
    }

    /// Whether a hook with this matcher fires for this tool call (a file rule's relative
    /// pattern read with no working directory: [`Matcher::matches_event`] has the event's).
    pub fn matches(&self, tool_name: Option<&str>, arguments: Option<&Value>) -> bool {
        self.matches_in(tool_name, arguments, None)
    }

    fn matches_in(&self, tool_name: Option<&str>, arguments: Option<&Value>, cwd: Option<&str>) -> bool {
        let tool = tool_name.unwrap_or("");
        if self.pattern.as_ref().is_some_and(|p| !p.matches(tool)) {
            return false;
        }
        if let Some(rule) = &self.if_rule {
            if !rule.matches(tool, arguments, cwd) {
                return false;
            }
        }
        if let Some(name) = &self.tool_name {
            if name != tool {
                return false;
            }
        }
        if let Some(alts) = &self.glob {
            let hit = alts.iter().any(|alt| match alt.strip_suffix('*') {
                Some(prefix) => tool.starts_with(prefix),
                None => alt == tool,
            });
            if !hit {
                return false;
            }
        }
        let Some(path) = &self.path else { return true };
        let mut value = match arguments {
            Some(v) => v,
            None => return false,
        };
        for step in path {
            let next = match step {
                Step::Key(k) => value.get(k.as_str()),
                Step::Index(i) => value.get(*i),
            };
            match next {
                Some(v) => value = v,
                None => return false,
            }
        }
        match &self.regex {
            None => true,
            Some(re) => match value {
                Value::String(s) => re.is_match(s),
                other => re.is_match(&other.to_string()),
            },
        }
    }
}

mod path_rule;
#[cfg(test)]
mod tests;
