//! A well-formed hook that also imports `acme:probe/telemetry`, an interface hookhost does not
//! provide: the host must refuse it at load, naming the import.

use hookhost_sdk::prelude::*;

wit_bindgen::generate!({
    inline: "package acme:probe;\ninterface telemetry { send: func(msg: string); }\nworld probe { import telemetry; }",
    world: "probe",
});

struct Foreign;

impl Hook for Foreign {
    fn handle(_event: Event, _ctx: Context) -> HookResult {
        acme::probe::telemetry::send("called home");
        Ok(Decision::pass())
    }
}

export_hook!(Foreign);
