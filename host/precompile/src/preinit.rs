//! Pre-initialisation (Wizer) of a built-in that exports `wizer-initialize`: the component is
//! instrumented, instantiated once here, its `wizer-initialize` called, and its memories and
//! globals written back into it as its initial state (`wasmtime-wizer`'s component support).
//! Every instance of the result then starts where that call left off — for the bash adapter,
//! with bashkit's interpreter already built.
//!
//! The initialiser runs with no WASI at all: every import traps, except the clocks and the
//! randomness std and bashkit read while building, which answer fixed values so that a build
//! is reproducible. A monotonic clock at 0 keeps durations measured from it right in each
//! instance (hookhost gives every instance a monotonic clock that starts at 0); what the
//! snapshot holds from randomness (hash-map keys, bashkit's `$RANDOM` seed) is therefore the
//! same in every instance, and the bash adapter reseeds `$RANDOM` per call.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use wasmtime::component::{Component, Instance, Linker, Val, WasmList, types::ComponentItem};
use wasmtime::{Engine, Store};
use wasmtime_wizer::{ComponentInstanceState, Wizer};

/// The export a component names its initialiser by (Wizer's default).
pub const INIT: &str = "wizer-initialize";

/// Whether the component at the top level exports [`INIT`].
pub fn wants_preinit(bytes: &[u8]) -> Result<bool, String> {
    let mut depth = 0usize;
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        match payload.map_err(|e| format!("not a component: {e}"))? {
            wasmparser::Payload::Version { .. } => depth += 1,
            wasmparser::Payload::End(_) => depth = depth.saturating_sub(1),
            wasmparser::Payload::ComponentExportSection(exports) if depth == 1 => {
                for export in exports {
                    if export.map_err(|e| format!("reading its exports: {e}"))?.name.name == INIT {
                        return Ok(true);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(false)
}

/// The component, pre-initialised.
pub fn preinit(engine: &Engine, bytes: &[u8]) -> Result<Vec<u8>, String> {
    // Kept: Wizer removes the export both from the component and from its core module, but the
    // component's lifting of it still names the core export (the two share the name), which
    // leaves an invalid component. Calling it again later only builds the state afresh.
    let mut wizer = Wizer::new();
    wizer.keep_init_func(true);
    let (cx, instrumented) = wizer.instrument_component(bytes).map_err(|e| format!("instrumenting it: {e:#}"))?;
    let component = Component::new(engine, &instrumented).map_err(|e| format!("compiling it for initialisation: {e:#}"))?;
    let mut linker = Linker::<()>::new(engine);
    fixed_answers(&mut linker, &component, engine)?;
    linker.define_unknown_imports_as_traps(&component).map_err(|e| format!("linking it: {e:#}"))?;
    let mut store = Store::new(engine, ());
    store.set_fuel(u64::MAX).map_err(|e| e.to_string())?;
    store.set_epoch_deadline(u64::MAX / 2);
    let instance = linker.instantiate(&mut store, &component).map_err(|e| format!("instantiating it: {e:#}"))?;
    let init = instance.get_typed_func::<(), ()>(&mut store, INIT).map_err(|e| format!("its `{INIT}` export: {e:#}"))?;
    init.call(&mut store, ()).map_err(|e| format!("its `{INIT}` failed: {e:#}"))?;
    let mut state = Snapshot { store: &mut store, instance };
    block_on(wizer.snapshot_component(&cx, &mut state)).map_err(|e| format!("snapshotting it: {e:#}"))
}

/// What a function answers, from its arguments.
type Answer = fn(&[Val]) -> Val;

/// The clocks and randomness the initialiser may read, at fixed values.
fn fixed_answers(linker: &mut Linker<()>, component: &Component, engine: &Engine) -> Result<(), String> {
    let fail = |e: wasmtime::Error| format!("linking it: {e:#}");
    for (name, item) in component.component_type().imports(engine) {
        let ComponentItem::ComponentInstance(_) = item.ty else { continue };
        let interface = name.split('@').next().unwrap_or(name);
        let answers: &[(&str, Answer)] = match interface {
            "wasi:clocks/monotonic-clock" => &[("now", |_| Val::U64(0)), ("resolution", |_| Val::U64(1))],
            "wasi:clocks/wall-clock" => &[("now", |_| datetime()), ("resolution", |_| datetime())],
            "wasi:random/insecure-seed" => &[("insecure-seed", |_| Val::Tuple(vec![Val::U64(0x6b6f_6f68_7473_6f68), Val::U64(0x7a69_7261_6e65_7262)]))],
            "wasi:random/random" | "wasi:random/insecure" => &[("get-random-u64", |_| Val::U64(0x9e37_79b9_7f4a_7c15)), ("get-insecure-random-u64", |_| Val::U64(0x9e37_79b9_7f4a_7c15)), ("get-random-bytes", bytes), ("get-insecure-random-bytes", bytes)],
            _ => continue,
        };
        let mut instance = linker.instance(name).map_err(fail)?;
        for (func, answer) in answers {
            let answer = *answer;
            instance
                .func_new(func, move |_, _, params, results| {
                    results[0] = answer(params);
                    Ok(())
                })
                .map_err(fail)?;
        }
    }
    Ok(())
}

fn datetime() -> Val {
    Val::Record(vec![("seconds".into(), Val::U64(0)), ("nanoseconds".into(), Val::U32(0))])
}

/// `len` bytes of a fixed sequence.
fn bytes(params: &[Val]) -> Val {
    let len = match params.first() {
        Some(Val::U64(n)) => *n as usize,
        _ => 0,
    };
    Val::List((0..len).map(|i| Val::U8((i as u8).wrapping_mul(151).wrapping_add(17))).collect())
}

/// Wizer reads the instance's state through the accessor functions its instrumentation added.
struct Snapshot<'a> {
    store: &'a mut Store<()>,
    instance: Instance,
}

impl Snapshot<'_> {
    fn call<R: wasmtime::component::Lift + 'static, O>(&mut self, instance: &str, func: &str, read: impl FnOnce(&Store<()>, R) -> O) -> O {
        let (_, parent) = self.instance.get_export(&mut *self.store, None, instance).expect("wizer's accessor instance");
        let (_, index) = self.instance.get_export(&mut *self.store, Some(&parent), func).expect("wizer's accessor");
        let func = self.instance.get_typed_func::<(), (R,)>(&mut *self.store, index).expect("wizer's accessor type");
        let (value,) = func.call(&mut *self.store, ()).expect("reading the initialised state");
        read(self.store, value)
    }
}

impl ComponentInstanceState for Snapshot<'_> {
    async fn call_func_ret_list_u8(&mut self, instance: &str, func: &str, contents: impl FnOnce(&[u8]) + Send) {
        self.call(instance, func, |store, list: WasmList<u8>| contents(list.as_le_slice(store)))
    }

    async fn call_func_ret_s32(&mut self, instance: &str, func: &str) -> i32 {
        self.call(instance, func, |_, v| v)
    }

    async fn call_func_ret_s64(&mut self, instance: &str, func: &str) -> i64 {
        self.call(instance, func, |_, v| v)
    }

    async fn call_func_ret_f32(&mut self, instance: &str, func: &str) -> u32 {
        self.call(instance, func, |_, v: f32| v.to_bits())
    }

    async fn call_func_ret_f64(&mut self, instance: &str, func: &str) -> u64 {
        self.call(instance, func, |_, v: f64| v.to_bits())
    }
}

/// Drive a future that never waits on anything (every call above is synchronous).
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}
