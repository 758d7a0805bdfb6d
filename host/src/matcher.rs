//! Matchers run in the host before any instance is created (DESIGN.md §7, seed 001):
//! a miss costs a few string comparisons, never a wasm instantiation.

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The matcher block of a hook, as written in config.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
    /// Also fires when the extracted value matches; names a deny pattern (seed 000's `guard_rm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny_regex: Option<String>,
}

/// One step of a parsed `args_jsonpath`.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// A compiled matcher.
#[derive(Debug, Clone)]
pub struct Matcher {
    tool_name: Option<String>,
    glob: Option<Vec<String>>,
    path: Option<Vec<Step>>,
    regex: Option<Regex>,
}

impl MatcherSpec {
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
        let regex = regex_text.and_then(|text| match Regex::new(text) {
            Ok(re) => Some(re),
            Err(e) => {
                let first = e.to_string().lines().last().unwrap_or("").trim().to_string();
                problems.push((regex_field, format!("invalid regex {text:?}: {first}")));
                None
            }
        });
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
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Matcher { tool_name: self.tool_name.clone(), glob, path, regex })
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
    /// Whether a hook with this matcher fires for this tool call.
    pub fn matches(&self, tool_name: Option<&str>, arguments: Option<&Value>) -> bool {
        let tool = tool_name.unwrap_or("");
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(v: Value) -> MatcherSpec {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn seed_guard_rm_matcher_fires_on_rm_rf_only() {
        let m = spec(json!({"tool_name": "bash", "args_jsonpath": "$.commands", "deny_regex": "(?:^|;|&&|\\|)\\s*rm\\s+-rf\\b"}))
            .compile()
            .unwrap();
        let fires = |tool: &str, cmd: &str| m.matches(Some(tool), Some(&json!({"commands": cmd})));
        assert!(fires("bash", "rm -rf /tmp/x"));
        assert!(fires("bash", "cd / && rm -rf target"));
        assert!(!fires("bash", "ls -la"));
        assert!(!fires("bash", "echo rm -rf"));
        assert!(!fires("python", "rm -rf /"));
        assert!(!m.matches(Some("bash"), Some(&json!({"command": "rm -rf /"}))), "missing path does not fire");
    }

    #[test]
    fn glob_table() {
        let m = spec(json!({"tool_name_glob": "edit_file|write_*"})).compile().unwrap();
        for (tool, want) in [("edit_file", true), ("write_file", true), ("write_", true), ("edit", false), ("read_file", false)] {
            assert_eq!(m.matches(Some(tool), None), want, "{tool}");
        }
        let all = spec(json!({"tool_name_glob": "*"})).compile().unwrap();
        assert!(all.matches(Some("anything"), None));
    }

    #[test]
    fn paths_with_indices_and_non_string_values() {
        let m = spec(json!({"args_jsonpath": "$.files[1].path", "match_regex": "\\.rs$"})).compile().unwrap();
        assert!(m.matches(Some("x"), Some(&json!({"files": [{"path": "a.md"}, {"path": "b.rs"}]}))));
        assert!(!m.matches(Some("x"), Some(&json!({"files": [{"path": "b.rs"}]}))));
        let n = spec(json!({"args_jsonpath": "$.n", "match_regex": "^4[0-9]$"})).compile().unwrap();
        assert!(n.matches(None, Some(&json!({"n": 42}))));
    }

    #[test]
    fn bad_matchers_report_every_problem() {
        let errs = spec(json!({"args_jsonpath": "command", "match_regex": "(", "deny_regex": "x"})).compile().unwrap_err();
        let fields: Vec<_> = errs.iter().map(|e| e.0).collect();
        assert_eq!(fields, ["match_regex", "match_regex", "args_jsonpath"], "{errs:?}");
        assert!(errs[0].1.contains("mutually exclusive"));
        assert!(errs[1].1.starts_with("invalid regex \"(\""), "{}", errs[1].1);
        let lone = spec(json!({"match_regex": "x"})).compile().unwrap_err();
        assert_eq!(lone[0].1, "match_regex needs args_jsonpath to say which argument to test (e.g. \"$.command\")");
        let glob = spec(json!({"tool_name_glob": "a*b"})).compile().unwrap_err();
        assert_eq!(glob[0].0, "tool_name_glob");
    }
}
