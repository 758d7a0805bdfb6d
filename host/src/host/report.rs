//! What a loaded host can say about its hooks without running an event through the chain:
//! where each runs and what stands in its way ([`Host::report`], `hookhost check`), and what
//! each costs on a sample event ([`Host::profile`], `hookhost check -v`).

use super::Host;
use hookhost_types::adapter::{AdapterMode, AdapterRefusal, AdapterSettings};

impl Host {
    /// Where each loaded hook runs and what stands in its way, in chain order. For a converted
    /// peer hook in the sandbox, the bash adapter's own analysis (a real shell parser over the
    /// command and the project's scripts) says whether it can run there, and if not, what it
    /// needs.
    pub async fn report(&self) -> Vec<HookReport> {
        let mut out = Vec::with_capacity(self.hooks.len());
        for hook in &self.hooks {
            let adapter = hook.adapter.as_ref();
            let peer = adapter.is_some_and(|s| s.start_failure.is_some());
            let url = adapter.and_then(|s| s.url.as_deref());
            let runs = match adapter.map(AdapterSettings::runs) {
                None => Runs::Wasm,
                Some(None) => Runs::Http,
                Some(Some(AdapterMode::Host)) => Runs::HostProcess,
                Some(Some(_)) => Runs::Sandbox,
            };
            let mut notes = Vec::new();
            let mut runnable = true;
            let mut needs = None;
            if let (Runs::Http, Some(url)) = (runs, url) {
                notes.push(format!("posts the event to {url}"));
                let uri = url.parse::<http::Uri>().ok();
                let https = uri.as_ref().and_then(|u| u.scheme_str()) == Some("https");
                let granted = uri.as_ref().and_then(|u| u.host().map(|h| (h.to_string(), u.port_u16()))).is_some_and(|(h, port)| hook.access.net.iter().any(|g| g.allows(&h, port, https)));
                if !granted {
                    runnable = false;
                    needs = uri.and_then(|u| u.authority().map(|a| format!("net:http:{a}")));
                    notes.push(format!("it may not reach that host: no {} grant", needs.as_deref().unwrap_or("net:http")));
                }
            }
            if peer && runs == Runs::Sandbox {
                // The adapter's own analysis: without `start_failure` it refuses, with its
                // reason, a script that cannot run in the sandbox.
                let strict = AdapterSettings { start_failure: None, ..adapter.cloned().unwrap_or_default() };
                match hook.plugin.validate_settings(&hook.spec.id, &strict.to_json().to_string(), &hook.spec.limits, &hook.access).await {
                    Ok(Ok(())) => {}
                    Ok(Err(why)) => {
                        runnable = false;
                        // What it lacks; its fix is for native hooks (`check` gives a peer hook's).
                        notes.push(match AdapterRefusal::decode(&why) {
                            Some(AdapterRefusal::Sandbox { gap }) => format!("the command cannot run in the sandbox: {gap}"),
                            Some(other) => other.to_string(),
                            None => why,
                        });
                    }
                    Err(e) => notes.push(format!("its sandbox check failed: {e}")),
                }
            }
            out.push(HookReport {
                id: hook.spec.id.to_string(),
                event: hook.spec.event.config_name(),
                plugin: hook.plugin.name.clone(),
                settings: hook.settings_json.clone(),
                runs,
                runnable,
                needs: needs.or_else(|| (!runnable).then(|| "process:exec".to_string())),
                timeout: hook.spec.limits.timeout,
                background: hook.spec.background,
                once: hook.spec.once,
                notes,
                read_dir: hook.access.read_dir.clone(),
            });
        }
        out
    }
}

/// Where a hook runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Runs {
    /// A wasm plugin in its sandbox.
    Wasm,
    /// A shell hook in the bash adapter's in-wasm bash.
    Sandbox,
    /// A shell hook as a real process (`process:exec` granted).
    HostProcess,
    /// A peer's HTTP hook: the event POSTed through `wasi:http` (`net:http` granted).
    Http,
}

impl Runs {
    /// How `check` names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Runs::Wasm => "wasm",
            Runs::Sandbox => "sandbox",
            Runs::HostProcess => "host process",
            Runs::Http => "http",
        }
    }
}

/// What `check` says about one loaded hook ([`Host::report`]).
#[derive(Debug, Clone, serde::Serialize)]
pub struct HookReport {
    /// The hook.
    pub id: String,
    /// Its event as a config names it.
    pub event: String,
    /// Its plugin.
    pub plugin: String,
    /// Its settings, as the plugin receives them (JSON).
    pub settings: String,
    /// Where it runs.
    pub runs: Runs,
    /// False when it cannot run where it would (its first note says why).
    pub runnable: bool,
    /// The capability that would let it run, when it cannot (`process:exec`,
    /// `net:http:127.0.0.1:9000`).
    pub needs: Option<String>,
    /// Its wall-clock limit.
    pub timeout: std::time::Duration,
    /// It runs in the background, after the decision.
    pub background: bool,
    /// It runs once per session.
    pub once: bool,
    /// What stands in its way, and other facts worth knowing.
    pub notes: Vec<String>,
    /// The project its sandbox may read, mounted read-only (a converted peer hook's).
    pub read_dir: Option<std::path::PathBuf>,
}

/// What one hook's plugin costs (`hookhost check -v`): its size, load time and imports, and on a
/// sample event of the hook's kind, its memory and fuel against the hook's limits.
#[derive(Debug, Clone)]
pub struct HookProfile {
    /// The hook.
    pub id: String,
    /// Its plugin.
    pub plugin: String,
    /// The component's size in bytes.
    pub size: usize,
    /// Loading it: compiling (or mapping from the cache), checking, pre-linking.
    pub load_time: std::time::Duration,
    /// Where its native code came from.
    pub code: crate::CodeSource,
    /// What the component imports.
    pub imports: Vec<String>,
    /// The hook's memory limit (`memory_mib`), in bytes.
    pub memory_limit: usize,
    /// The hook's fuel budget (`fuel`), before the per-payload-byte allowance.
    pub fuel_limit: u64,
    /// On the sample event: its linear memory at the end (start-up memory plus what the call
    /// grew), and the fuel the call used — or why it was not sampled or failed.
    pub sample: Result<(usize, u64), String>,
}

impl Host {
    /// Each hook's [`HookProfile`], in chain order. The sample event is a plain one of the
    /// hook's kind (a `bash` call of `ls -la`, a short prompt); hooks that would start a host
    /// process or reach the network are not sampled.
    pub async fn profile(&self) -> Vec<HookProfile> {
        let mut out = Vec::with_capacity(self.hooks.len());
        for hook in &self.hooks {
            let sample = if hook.access.process {
                Err("not sampled: it runs a host process".to_string())
            } else if !hook.access.net.is_empty() {
                Err("not sampled: it may reach the network".to_string())
            } else {
                match sample_event(&hook.spec.event) {
                    None => Err("not sampled: no sample event of its kind".to_string()),
                    Some(ev) => {
                        let call = crate::wit::Call::new(&ev, &hook.spec.id, &hook.settings_json, 0);
                        // A sample's state is thrown away with it: it is not a session's.
                        let kv = hook.plugin.uses_state().then(|| {
                            let scratch = std::sync::Arc::new(crate::kv::StateStore::in_memory(self.kv.limits()));
                            crate::kv::ScopedState::new(scratch, &hook.plugin.name, &ev.session_id, ev.cwd.as_deref())
                        });
                        hook.plugin.usage_of(&hook.spec.id, call, &hook.spec.limits, &hook.access, kv).await.map(|u| (u.peak_memory, u.fuel)).map_err(|e| e.to_string())
                    }
                }
            };
            out.push(HookProfile {
                id: hook.spec.id.to_string(),
                plugin: hook.plugin.name.clone(),
                size: hook.plugin.size,
                load_time: hook.plugin.load_time,
                code: hook.plugin.code,
                imports: hook.plugin.imports.clone(),
                memory_limit: hook.spec.limits.memory_bytes,
                fuel_limit: hook.spec.limits.fuel,
                sample,
            });
        }
        out
    }
}

/// A plain event of this kind, for profiling.
fn sample_event(name: &hookhost_types::EventName) -> Option<hookhost_types::HookEvent> {
    let kind = name.config_name();
    let data = match kind.as_str() {
        "pre_tool_use" | "permission_request" => serde_json::json!({"tool_name": "bash", "arguments": {"command": "ls -la"}}),
        "post_tool_use" | "tool_result_transform" => serde_json::json!({"tool_name": "bash", "arguments": {"command": "ls -la"}, "result": "README.md\nsrc"}),
        "user_prompt_submit" => serde_json::json!({"message": "Summarise the README, please."}),
        "notification" => serde_json::json!({"message": "Waiting for input"}),
        _ => serde_json::json!({}),
    };
    hookhost_types::HookEvent::from_value(serde_json::json!({"event": kind, "session_id": "hookhost-check", "data": data})).ok()
}
