//! `hookhost:hooks@0.1.0`, the first contract, served unchanged to hooks built against it: its
//! own bindings, and conversions to and from the newest version's values ([`super::v0_2`]),
//! the way Zed's `since_v0_x_y.rs` modules convert to its latest. The shapes are 0.2.0's but
//! for `context` (0.2.0 adds `runtime`): a conversion moves each field, copying nothing, so a
//! 0.1.0 hook receives exactly what it always did, and its decision is checked by the same code
//! as a 0.2.0 hook's.

use super::v0_2 as latest;

// `log` and `process` did not change: their Rust types and host traits are the newest's
// (bindgen's `with`), and the linker adds the newest's functions under this version's names
// (`plugin/state.rs`: `add_to_linker_instance`; a remapped interface's own `add_to_linker`
// would use `…@0.2.0`). `types` changed (`context.runtime`), and `with` remaps whole interfaces
// (or resources), not single types (tried for `event` and `decision`: "not referenced in the
// target world"), so it keeps its own bindings and the conversions below.
wasmtime::component::bindgen!({
    path: "../wit/0.1.0/hooks.wit",
    world: "shell-hook",
    exports: { default: async },
    with: {
        "hookhost:hooks/log@0.1.0": crate::wit::v0_2::log,
        "hookhost:hooks/process@0.1.0": crate::wit::v0_2::process,
    },
});

pub use exports::hookhost::hooks::handler::{Context, Decision as WitDecision};
use self::hookhost::hooks::types as t;
use latest::hookhost::hooks::types as lt;

/// The WIT package (and version) of this module.
pub const PACKAGE: &str = "hookhost:hooks@0.1.0";
/// The exported interface every 0.1.0 hook plugin has.
pub const HANDLER_EXPORT: &str = "hookhost:hooks/handler@0.1.0";
/// Its log interface.
pub const LOG_IMPORT: &str = "hookhost:hooks/log@0.1.0";
/// Its shared types interface.
pub const TYPES_IMPORT: &str = "hookhost:hooks/types@0.1.0";
/// Its process interface (capability `process:exec`).
pub const PROCESS_IMPORT: &str = "hookhost:hooks/process@0.1.0";

/// A 0.1.0 hook's context: 0.2.0's without what 0.2.0 added.
pub fn context(ctx: latest::Context) -> Context {
    let latest::Context { hook_id, session_id, turn_id, agent_id, org_id, ts, cwd, settings, extra, runtime: _ } = ctx;
    Context { hook_id, session_id, turn_id, agent_id, org_id, ts, cwd, settings, extra }
}

/// `From` between two records of the same shape, field by field (moved).
macro_rules! same_record {
    ($from:ident => $to:ident : $($ty:ident { $($field:ident),* })*) => {$(
        impl From<$from::$ty> for $to::$ty {
            fn from(x: $from::$ty) -> Self {
                $to::$ty { $($field: x.$field.into()),* }
            }
        }
    )*};
}

/// `From` between two variants (or enums) of the same shape, case by case.
macro_rules! same_variant {
    ($from:ident => $to:ident : $ty:ident { $($unit:ident),* ; $($case:ident),* }) => {
        impl From<$from::$ty> for $to::$ty {
            fn from(x: $from::$ty) -> Self {
                match x {
                    $($from::$ty::$unit => $to::$ty::$unit,)*
                    $($from::$ty::$case(v) => $to::$ty::$case(v.into()),)*
                }
            }
        }
    };
}

// The event goes to a 0.1.0 hook: newest → 0.1.0.
same_record!(lt => t:
    SessionStart { source }
    SessionEnd { reason }
    Prompt { message }
    ToolCall { name, call_id, arguments }
    ToolResult { name, call_id, arguments, output, is_error }
    Stop { response, stop_hook_active, loop_count }
    TurnEnd { success }
    ModelCall { model, request }
    ModelResponse { model, response }
    Compact { trigger, summary }
    Notice { message, kind }
);
same_variant!(lt => t: Event { TurnStart ; SessionStart, SessionEnd, UserPromptSubmit, PreToolUse, PermissionRequest, ToolResultTransform, PostToolUse, Stop, SubagentStop, TurnEnd, BeforeModelCall, AfterModelCall, PreCompact, PostCompact, Notification, Custom });

// Its decision comes back: 0.1.0 → newest, to be checked as any other.
same_record!(t => lt: BlockInfo { reason, user_message });
same_variant!(t => lt: Verdict { Pass ; Allow, Ask, Block, Halt });
same_variant!(t => lt: Effect { ; RewriteInput, RewritePrompt, RewriteOutput, AddContext, NotifyUser, Annotate, ReplaceSummary });

impl From<WitDecision> for latest::WitDecision {
    fn from(d: WitDecision) -> Self {
        latest::WitDecision { verdict: d.verdict.into(), effects: d.effects.into_iter().map(Into::into).collect() }
    }
}
