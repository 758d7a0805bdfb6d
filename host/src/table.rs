//! The readable table `hookhost replay` prints.

use hookhost::{HookEvent, Outcome};

pub struct Row {
    cells: [String; 6],
}

fn clip(text: &str, max: usize) -> String {
    let one_line = text.replace(['\n', '\r'], " ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let cut: String = one_line.chars().take(max - 1).collect();
    format!("{cut}…")
}

fn subject(ev: &HookEvent) -> String {
    if let Some(tool) = ev.tool_name() {
        let args = ev.arguments().map(|a| ["command", "cmd", "commands", "path"].iter().find_map(|k| a.get(*k).and_then(|v| v.as_str())).map(str::to_string).unwrap_or_else(|| a.to_string()));
        return format!("{tool}: {}", args.unwrap_or_default());
    }
    ev.data.get("message").and_then(|m| m.as_str()).map(|m| format!("\"{m}\"")).unwrap_or_else(|| "-".into())
}

impl Row {
    pub fn new(line: usize, ev: &HookEvent, outcome: &Outcome) -> Row {
        let hooks = if outcome.hooks.is_empty() {
            "-".to_string()
        } else {
            outcome
                .hooks
                .iter()
                .map(|h| {
                    let id = h.id.strip_prefix("user:").unwrap_or(&h.id);
                    let mark = if h.error.is_some() { "!" } else { "" };
                    format!("{id}={}{mark}", h.decision.as_str())
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut decision = outcome.decision.as_str().to_string();
        if let Some(patch) = &outcome.patch {
            decision.push_str(&format!(" +rewrite({})", patch.keys().cloned().collect::<Vec<_>>().join(",")));
        }
        let note = outcome
            .reason
            .clone()
            .or_else(|| outcome.hooks.iter().find_map(|h| h.error.clone()))
            .unwrap_or_default();
        Row { cells: [line.to_string(), ev.name.to_string(), clip(&subject(ev), 44), decision, hooks, clip(&note, 70)] }
    }
}

pub fn render(rows: &[Row]) -> String {
    let header = ["line", "event", "subject", "decision", "hooks", "reason / error"];
    let mut widths = header.map(|h| h.chars().count());
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(&row.cells) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 6]| {
        let mut out = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i == 5 {
                out.push_str(cell);
            } else {
                out.push_str(&format!("{cell:<w$}  "));
            }
        }
        out.trim_end().to_string() + "\n"
    };
    let mut out = line(header);
    for row in rows {
        out.push_str(&line(row.cells.each_ref().map(String::as_str)));
    }
    out
}
