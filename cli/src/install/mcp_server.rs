//! `--wiring mcp`: `hookhost mcp` listed among the runtime's MCP servers, so that its hooks can
//! call the server's tool (`--wiring mcp-http`: `hookhost serve`'s MCP endpoint, by URL). Claude Code lists a user's servers in `~/.claude.json`: `mcpServers`
//! for every project, `projects.<path>.mcpServers` for one (what `claude mcp add --scope user`
//! and `--scope local` write; its MCP documentation, "MCP installation scopes"). A project's
//! shared `.mcp.json` is not used: each person who clones it would have to approve it, and the
//! server is this machine's binary anyway.

use super::json::Json;
use super::runtimes::{first_word, Places, Runtime, Scope, Target, Wiring};
use super::{parse_json, read, rendered, Edit, Role};
use std::path::{Path, PathBuf};

/// The file listing the runtime's MCP servers (None: it has no MCP tool hooks).
pub(crate) fn servers_file(runtime: Runtime, places: &Places) -> Option<PathBuf> {
    runtime.mcp().ok().map(|mcp| places.home.join(mcp.servers_file))
}

/// The object holding the servers at `project` (None: the user's, for every project).
fn servers<'a>(runtime: Runtime, doc: &'a Json, project: Option<&Path>) -> Option<&'a Json> {
    let mcp = runtime.mcp().ok()?;
    match project {
        None => doc.get("mcpServers"),
        Some(p) => doc.get(mcp.project_servers.0)?.get(&p.display().to_string())?.get(mcp.project_servers.1),
    }
}

/// hookhost's server entry at `project`, when the runtime lists one.
pub(crate) fn entry(runtime: Runtime, doc: &Json, project: Option<&Path>) -> Option<Json> {
    servers(runtime, doc, project)?.get(crate::mcp::SERVER).cloned()
}

/// Whether a server entry runs `hookhost mcp`, or is `hookhost serve`'s MCP endpoint.
pub(crate) fn is_ours(entry: &Json) -> bool {
    if let Some(url) = endpoint(entry) {
        return hookhost::Runtime::ALL.iter().any(|r| url.trim_end_matches('/').ends_with(&format!("/mcp/{}", r.name())));
    }
    let program = entry.get("command").and_then(Json::as_str).map(first_word).unwrap_or_default();
    let name = Path::new(&program.replace('\\', "/")).file_stem().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    let first_arg = entry.get("args").and_then(Json::as_array).and_then(|a| a.first()).and_then(Json::as_str);
    name == "hookhost" && first_arg == Some("mcp")
}

/// The command and arguments of the server entry (to run it as the runtime would).
pub(crate) fn command(entry: &Json) -> Option<(String, Vec<String>)> {
    let program = entry.get("command").and_then(Json::as_str)?.to_string();
    let args = entry.get("args").and_then(Json::as_array).map(|a| a.iter().filter_map(Json::as_str).map(str::to_string).collect()).unwrap_or_default();
    Some((program, args))
}

/// The URL of a server entry reached over HTTP (`"type": "http"`).
pub(crate) fn endpoint(entry: &Json) -> Option<&str> {
    (entry.get("type").and_then(Json::as_str) == Some("http")).then(|| entry.get("url").and_then(Json::as_str)).flatten()
}

/// The entry install writes: this hookhost, speaking the runtime's hooks — or, for
/// `mcp-http`, the daemon's endpoint for them with the token the runtime fills in from the
/// environment (Claude Code expands `${VAR}` in a server's headers).
fn new_entry(runtime: Runtime, target: &Target) -> Json {
    let mut e = Json::obj();
    if target.wiring == Wiring::McpHttp {
        e.set("type", Json::str("http"));
        e.set("url", Json::str(format!("{}/mcp/{}", target.server.trim_end_matches('/'), runtime.protocol())));
        let mut headers = Json::obj();
        headers.set("Authorization", Json::str("Bearer ${HOOKHOST_TOKEN}"));
        e.set("headers", headers);
        return e;
    }
    e.set("type", Json::str("stdio"));
    e.set("command", Json::str(target.hookhost.display().to_string()));
    let args = ["mcp", "--runtime", runtime.protocol()].into_iter().chain(target.failure_flag);
    e.set("args", Json::Array(args.map(Json::str).collect()));
    e
}

/// The edit of the servers file that goes with wiring `runtime` at `scope`: the server listed
/// for `--wiring mcp`; taken out again for any other wiring (the runtime would start it for
/// every session and no hook would call it). None: nothing to change.
pub(super) fn edit(runtime: Runtime, scope: Scope, places: &Places, target: &Target) -> Result<Option<Edit>, String> {
    let Some(path) = servers_file(runtime, places) else { return Ok(None) };
    let project = (scope == Scope::Project).then_some(places.project.as_path());
    let before = read(&path)?;
    if !target.wiring.is_mcp() && before.is_none() {
        return Ok(None);
    }
    let old = match parse_json(&path, before.as_deref()) {
        Ok(doc) => doc,
        // Another wiring only takes hookhost's server out: a file it cannot read holds none it
        // could find, and must not stop an install that does not need it.
        Err(_) if !target.wiring.is_mcp() => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut doc = old.clone();
    match entry(runtime, &doc, project) {
        Some(e) if !is_ours(&e) => {
            if target.wiring.is_mcp() {
                return Err(format!("{} already lists an MCP server named {:?} that is not `hookhost mcp`; rename it, then install again", path.display(), crate::mcp::SERVER));
            }
            return Ok(None);
        }
        None if !target.wiring.is_mcp() => return Ok(None),
        _ => {}
    }
    if target.wiring.is_mcp() {
        let mcp = runtime.mcp()?;
        let holder = match project {
            None => &mut doc,
            Some(p) => {
                let projects = doc.entry_obj(mcp.project_servers.0).ok_or_else(|| format!("{}: its {:?} is not an object", path.display(), mcp.project_servers.0))?;
                projects.entry_obj(&p.display().to_string()).ok_or_else(|| format!("{}: its entry for {} is not an object", path.display(), p.display()))?
            }
        };
        let key = if project.is_some() { mcp.project_servers.1 } else { "mcpServers" };
        let servers = holder.entry_obj(key).ok_or_else(|| format!("{}: its {key:?} is not an object", path.display()))?;
        servers.set(crate::mcp::SERVER, new_entry(runtime, target));
    } else {
        remove(runtime, &mut doc, project);
    }
    let after = rendered(&doc, &old, before.as_deref());
    Ok(Some(Edit { path, before, after, role: Role::McpServer, added: vec![] }))
}

/// Take hookhost's server entry out of the servers file at `project` (uninstall).
pub(super) fn remove(runtime: Runtime, doc: &mut Json, project: Option<&Path>) {
    let Ok(mcp) = runtime.mcp() else { return };
    let holder = match project {
        None => Some(doc),
        Some(p) => doc.get_mut(mcp.project_servers.0).and_then(|ps| ps.get_mut(&p.display().to_string())),
    };
    let key = if project.is_some() { mcp.project_servers.1 } else { "mcpServers" };
    if let Some(servers) = holder.and_then(|h| h.get_mut(key)) {
        if servers.get(crate::mcp::SERVER).is_some_and(is_ours) {
            servers.remove(crate::mcp::SERVER);
        }
    }
}
