//! Exports `hookhost:hooks/handler@0.9.0`: a component for a WIT version the host does not know.

wit_bindgen::generate!({ path: "wit", world: "hook" });

struct Future;

impl exports::hookhost::hooks::handler::Guest for Future {
    fn handle(_event_json: String) -> String {
        "{}".into()
    }
}

export!(Future);
